// POSIX: a server Lazy MCP started must not outlive it, however Lazy MCP ends
// (SIGKILL of the CLI or of VS Code's extension host runs no exit handler).
//
// The server is started through `/bin/sh`, which leads the process group and
// holds one extra pipe end from us (fd 3) that we never write. The shell forks a
// watcher that blocks reading fd 3, then `exec`s the server with fd 3 closed, so
// the server keeps the leader's pid, its exit status and its stdio, and neither
// it nor its children inherit the pipe. When we die by any means the kernel
// closes our end, the watcher's read hits EOF, and it sends TERM, then KILL
// after the core's kill grace (2 s), to the whole group. The watcher ignores TERM from the start: our own
// shutdown SIGTERMs the group, and if we are SIGKILLed between that SIGTERM and
// the SIGKILL that follows (a client killing `lazy-mcp serve` mid-stop, VS Code
// ending its extension host), a server that ignores TERM must still be killed by
// the watcher. Once the rest of the group is gone, our shutdown SIGKILLs the
// watcher (`isSupervisor` tells it apart). Cost: one small `sh` per server
// (about 1 MB), no Node process.

import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The shell script: the watcher waits the core's `killGraceMs` (host_limits.rs `stdio`) between
 * its TERM and KILL of the group, in whole seconds (POSIX `sleep` takes no fraction).
 */
function supervisorScript(seconds: number | string): string {
  return [`(trap '' TERM; read -r _ <&3; kill -s TERM 0; sleep ${seconds}; kill -s KILL 0) </dev/null >/dev/null 2>&1 &`, 'exec "$@" 3<&-'].join('\n');
}

/** The name the supervisor shell runs under (its `$0`); the watcher, a forked subshell, keeps its command line. */
const SUPERVISOR_NAME = 'lazy-mcp-supervisor';

/** Whether a `/proc/<pid>/cmdline` (NUL-separated) is the supervisor's watcher (or its shell before the `exec`). */
export function isSupervisor(cmdline: string): boolean {
  // Whatever its grace: a process started under other limits is one too.
  const head = `/bin/sh\0-c\0${scriptHead}`;
  if (!cmdline.startsWith(head)) return false;
  const rest = cmdline.slice(head.length);
  const seconds = /^\d+/.exec(rest)?.[0];
  return seconds !== undefined && rest.startsWith(`${scriptTail}\0${SUPERVISOR_NAME}\0`, seconds.length);
}

/** The script before and after its seconds. */
const [scriptHead = '', scriptTail = ''] = supervisorScript('\0').split('\0');

export interface SupervisedSpawn {
  command: string;
  args: string[];
  /** stdio for spawn: the server's three pipes plus the watch pipe (fd 3). */
  stdio: ['pipe', 'pipe', 'pipe', 'pipe'];
}

/**
 * How to start `command args` under the supervisor, or the spawn error Node
 * would have reported (`ENOENT`, `EACCES`): the shell would only exit 127/126,
 * which a server can also do, so the command is looked up here first.
 */
export function planSupervisedSpawn(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  killGraceMs: number,
): SupervisedSpawn | { errorCode: 'ENOENT' | 'EACCES' } {
  const found = findExecutable(command, env.PATH ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', cwd ?? process.cwd());
  if (found !== 'ok') return { errorCode: found };
  // The shell looks the command up again on the same PATH, so the server keeps its argv[0].
  return { command: '/bin/sh', args: ['-c', supervisorScript(Math.max(1, Math.ceil(killGraceMs / 1000))), SUPERVISOR_NAME, command, ...args], stdio: ['pipe', 'pipe', 'pipe', 'pipe'] };
}

/** Whether `command` resolves (as execvp would) to an executable file. */
export function findExecutable(command: string, pathVar: string, cwd: string): 'ok' | 'ENOENT' | 'EACCES' {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : pathVar.split(':').map((dir) => path.resolve(cwd, dir === '' ? '.' : dir, command));
  let sawFile = false;
  for (const file of candidates) {
    try {
      if (!statSync(file).isFile()) continue;
    } catch {
      continue;
    }
    sawFile = true;
    try {
      accessSync(file, constants.X_OK);
      return 'ok';
    } catch {
      // not executable: execvp goes on searching, and reports EACCES if nothing else runs
    }
  }
  return sawFile ? 'EACCES' : 'ENOENT';
}
