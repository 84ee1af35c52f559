// Signalling and observing a server's whole process tree.
//
// On POSIX the server is spawned as the leader of its own process group
// (`detached: true`), so an `npx`-style wrapper and everything it starts share
// one group id (= the leader's pid) and can be signalled together. On Windows
// `taskkill /T` walks the tree instead.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';

// Groups of servers that are running. If the host process itself exits (VS Code
// shutting the extension host down without deactivation, a crash, the CLI being
// stopped), every one of them is killed synchronously: nothing may outlive us.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const g of liveGroups) signalGroup(g, 'SIGKILL');
  });
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Send `signal` to every process in the group led by `pgid`. Never throws. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (isWindows) {
    // /T: the whole tree; /F only for the forceful step.
    const args = ['/pid', String(pgid), '/T'];
    if (signal === 'SIGKILL') args.push('/F');
    execFile('taskkill', args, { windowsHide: true }, () => undefined);
    return;
  }
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone. EPERM: not ours to signal; nothing to do.
  }
}

/**
 * Whether any process of the group is still running. Zombies do not count: in
 * containers whose pid 1 does not reap, an orphaned grandchild that already
 * exited stays a zombie forever, and it holds no resources worth waiting for.
 */
export function groupIsAlive(pgid: number): boolean {
  if (isWindows) return pidIsAlive(pgid);
  if (isLinux) return linuxGroupHasLiveMember(pgid);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Linux: whether a live member of the group is not `except` (given its command line).
 * Elsewhere (no /proc): whether any member is alive.
 */
export function groupHasLiveMemberOtherThan(pgid: number, except: (cmdline: string) => boolean): boolean {
  if (!isLinux) return groupIsAlive(pgid);
  for (const pid of linuxLiveMembers(pgid)) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!except(cmdline)) return true;
  }
  return false;
}

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function linuxGroupHasLiveMember(pgid: number): boolean {
  // Cheap first check: no member at all (not even a zombie).
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readProcStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

/** Live (non-zombie) members of the group (Linux). */
function linuxLiveMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readProcStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') live.push(Number(entry));
  }
  return live;
}

/** `/proc/<pid>/stat`: state and process group (Linux). Undefined when the process is gone. */
export function readProcStat(pid: number | string): { state: string; ppid: number; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or ')'.
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const state = fields[0] ?? '';
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  return { state, ppid, pgrp };
}

/**
 * Poll until the group has no live member (but those `except` names), or `timeoutMs`
 * passes. Resolves true when it is gone.
 */
export async function waitForGroupGone(pgid: number, timeoutMs: number, pollMs: number, except?: (cmdline: string) => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (except ? !groupHasLiveMemberOtherThan(pgid, except) : !groupIsAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await delay(pollMs);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
