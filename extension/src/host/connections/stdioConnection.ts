// stdio transport: a child process speaking newline-delimited JSON-RPC.
//
// The server runs as the leader of its own process group (POSIX), so closing
// it — or cleaning up after it crashed — reaches everything it started (an
// `npx` wrapper's real server, a shell's children). Shutdown follows the MCP
// spec: close stdin, then SIGTERM, then SIGKILL, each step bounded.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { writeBatched } from './batchedWrite';
import { parseEnvFile } from './envFile';
import { LineSplitter, StderrRing, byteLine } from './lineFraming';
import { groupIsAlive, signalGroup, trackGroup, untrackGroup, waitForGroupGone } from './processGroup';
import { isSupervisor, planSupervisedSpawn } from './supervisor';
import { planWindowsSpawn } from './windowsCommand';
import type { StdioLimits } from '../../core/contract.generated';
import type { ClosedInfo, Connection, ConnectionEvents, ConnectionOptions, LogSink, StdioTransport } from './types';

const isWindows = process.platform === 'win32';

export function openStdioConnection(
  transport: StdioTransport,
  events: ConnectionEvents,
  opts: ConnectionOptions,
): Connection {
  return new StdioConnection(transport, events, opts);
}

class StdioConnection implements Connection {
  private readonly log: LogSink;
  private readonly label: string;
  /** The core's: how long each stop step waits, how often a group is looked at, the wait for the pipes (host_limits.rs). */
  private readonly limits: StdioLimits;
  private readonly stderr: StderrRing;
  private child: ChildProcessWithoutNullStreams | undefined;
  private spawned = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private pipesClosed = false;
  private readonly pipeWaiters = new Set<() => void>();
  private closedByHost = false;
  private finished = false;
  private failure: string | undefined;
  private reaping: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly whenFinished: Promise<void>;
  private resolveFinished!: () => void;
  private readonly exitWaiters = new Set<() => void>();

  constructor(
    private readonly transport: StdioTransport,
    private readonly events: ConnectionEvents,
    opts: ConnectionOptions,
  ) {
    this.log = opts.log ?? (() => undefined);
    this.label = `"${transport.command}"`;
    if (opts.stdio === undefined) throw new Error("a stdio connection needs the core's limits (ConnectionOptions.stdio: WasmCore.limits().stdio)");
    this.limits = opts.stdio;
    this.stderr = new StderrRing(this.limits.stderrTailLines, this.limits.stderrTailChars);
    this.whenFinished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.start(opts);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  send(json: string): void {
    const child = this.child;
    if (this.finished || this.closing !== undefined || child === undefined || this.exit !== undefined) {
      this.log('warn', `stdio ${this.label}: message dropped, the connection is closed`);
      return;
    }
    // Raw newlines can only be insignificant whitespace in valid JSON; they would break the framing.
    // (indexOf, not a regular expression, for the check: 1.6 against 11 ms over 4 MB.)
    const line = json.indexOf('\n') !== -1 || json.indexOf('\r') !== -1 ? json.replace(/\r?\n|\r/g, ' ') : json;
    // Requests of one event-loop turn (several HTTP clients calling this server at once) leave in one write.
    writeBatched(child.stdin, line + '\n');
  }

  sendLine(line: Uint8Array): void {
    const child = this.child;
    if (this.finished || this.closing !== undefined || child === undefined || this.exit !== undefined) {
      this.log('warn', `stdio ${this.label}: message dropped, the connection is closed`);
      return;
    }
    writeBatched(child.stdin, line);
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutDown();
    return this.closing;
  }

  // --- start -------------------------------------------------------------------------------

  private start(opts: ConnectionOptions): void {
    const t = this.transport;
    const base = opts.cwdFallback ?? process.cwd();
    const cwd = t.cwd ? path.resolve(base, t.cwd) : opts.cwdFallback;

    const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env) };
    if (t.envFile) {
      const file = path.resolve(cwd ?? base, t.envFile);
      try {
        mergeEnv(env, parseEnvFile(readFileSync(file, 'utf8')));
      } catch (err) {
        this.failEarly(`cannot start ${this.label}: cannot read envFile "${file}" (${errorCode(err)})`);
        return;
      }
    }
    mergeEnv(env, t.env ?? {});

    if (cwd !== undefined && !existsSync(cwd)) {
      this.failEarly(`cannot start ${this.label}: working directory "${cwd}" does not exist`);
      return;
    }

    // POSIX: under the supervisor shell (supervisor.ts), so the group dies with us.
    const supervised = isWindows ? undefined : planSupervisedSpawn(t.command, t.args ?? [], env, cwd, this.limits.killGraceMs);
    if (supervised !== undefined && 'errorCode' in supervised) {
      this.failEarly(`cannot start ${this.label}: ${describeSpawnError({ code: supervised.errorCode })}`);
      return;
    }
    const plan = supervised ?? { ...planWindowsSpawn(t.command, t.args ?? [], env, cwd, existsSync), stdio: ['pipe', 'pipe', 'pipe'] as const };
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(plan.command, plan.args, {
        cwd,
        env,
        stdio: [...plan.stdio],
        detached: !isWindows,
        windowsHide: true,
        windowsVerbatimArguments: 'verbatim' in plan ? plan.verbatim : false,
      });
    } catch (err) {
      this.failEarly(`cannot start ${this.label}: ${describeSpawnError(err)}`);
      return;
    }
    this.child = child;

    // Lines stay bytes: the core reads UTF-8 itself (a 10 MB answer is not decoded and encoded again here).
    const stdout = new LineSplitter(
      (line) => this.onStdoutLine(line),
      this.limits.maxLineBytes,
      (bytes) => this.log('error', `stdio ${this.label}: dropped a ${bytes}-byte stdout line (limit ${this.limits.maxLineBytes})`),
      0,
      byteLine,
    );
    const stderr = new LineSplitter(
      (line) => this.onStderrLine(line),
      this.limits.maxStderrLineBytes,
      (bytes) => this.onStderrLine(`[${bytes}-byte stderr line dropped]`),
    );
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stdout.on('end', () => stdout.end());
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stderr.on('end', () => stderr.end());
    child.stdin.on('error', (err) => this.log('debug', `stdio ${this.label}: stdin ${errorCode(err)}`));
    child.stdout.on('error', (err) => this.log('debug', `stdio ${this.label}: stdout ${errorCode(err)}`));
    child.stderr.on('error', (err) => this.log('debug', `stdio ${this.label}: stderr ${errorCode(err)}`));
    (child.stdio[3] as NodeJS.EventEmitter | null | undefined)?.on('error', (err: unknown) => this.log('debug', `stdio ${this.label}: supervisor pipe ${errorCode(err)}`));

    child.on('spawn', () => {
      this.spawned = true;
      if (child.pid !== undefined && !isWindows) trackGroup(child.pid);
      this.log('info', `stdio ${this.label}: started, pid ${child.pid}`);
      this.events.onOpened({ pid: child.pid });
    });
    child.on('error', (err) => {
      if (!this.spawned) {
        this.failure = `cannot start ${this.label}: ${describeSpawnError(err)}`;
        this.finish({});
      } else {
        this.log('warn', `stdio ${this.label}: ${errorCode(err)}`);
      }
    });
    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      for (const wake of this.exitWaiters) wake();
      this.exitWaiters.clear();
      void this.reapGroup();
    });
    child.on('close', () => {
      this.pipesClosed = true;
      for (const wake of this.pipeWaiters) wake();
      this.pipeWaiters.clear();
    });
  }

  /** Fail before any process exists; the event is delivered after `openConnection` returned. */
  private failEarly(reason: string): void {
    this.failure = reason;
    setImmediate(() => this.finish({}));
  }

  // --- streams -----------------------------------------------------------------------------

  private onStdoutLine(line: Buffer): void {
    if (this.finished) return;
    // The usual line, `{…}` or `[…]` between ASCII whitespace, goes on as bytes.
    let start = 0;
    let end = line.length;
    while (start < end && isAsciiSpace(line[start]!)) start++;
    while (end > start && isAsciiSpace(line[end - 1]!)) end--;
    const head = line[start];
    const tail = line[end - 1];
    if ((head === 0x7b && tail === 0x7d) || (head === 0x5b && tail === 0x5d)) {
      this.events.onMessage(line.subarray(start, end));
      return;
    }
    // Anything else is read as text, as it always was (trim() also drops Unicode spaces and a BOM).
    const text = line.toString('utf8').trim();
    if (text === '') return;
    const first = text.charCodeAt(0);
    const last = text.charCodeAt(text.length - 1);
    const looksLikeJson = (first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d);
    if (!looksLikeJson) {
      const shown = text.length > 160 ? `${text.slice(0, 160)}…` : text;
      this.log('warn', `stdio ${this.label}: ignored a non-JSON stdout line (${text.length} chars): ${shown}`);
      return;
    }
    this.events.onMessage(text);
  }

  private onStderrLine(line: string): void {
    this.stderr.add(line);
    if (!this.finished) this.events.onStderr?.(line);
  }

  // --- shutdown ----------------------------------------------------------------------------

  private async shutDown(): Promise<void> {
    this.closedByHost = true;
    const child = this.child;
    if (child === undefined || child.pid === undefined) {
      // Never started (or failing to): the failure event is on its way.
      await this.whenFinished;
      return;
    }
    if (this.exit === undefined) {
      child.stdin.end();
      if (!(await this.waitForExit(this.limits.killGraceMs))) {
        this.log('info', `stdio ${this.label}: no exit ${this.limits.killGraceMs} ms after stdin closed, sending SIGTERM`);
        signalGroup(child.pid, 'SIGTERM');
        if (!(await this.waitForExit(this.limits.killGraceMs))) {
          this.log('warn', `stdio ${this.label}: no exit ${this.limits.killGraceMs} ms after SIGTERM, sending SIGKILL`);
          signalGroup(child.pid, 'SIGKILL');
          await this.waitForExit(this.limits.killGraceMs);
        }
      }
    }
    await this.reapGroup();
    await this.whenFinished;
  }

  /** After the leader exited: end whatever else is left in its group, then report. */
  private reapGroup(): Promise<void> {
    if (this.reaping === undefined) {
      this.reaping = (async () => {
        const pgid = this.child?.pid;
        if (pgid !== undefined && !isWindows && groupIsAlive(pgid)) {
          this.log('debug', `stdio ${this.label}: ending what is left of group ${pgid} (the supervisor included)`);
          // The supervisor ignores SIGTERM (so it outlives a SIGKILL of ours mid-stop): the rest
          // gets TERM first; once only the supervisor is left (or the grace ran out), KILL.
          signalGroup(pgid, 'SIGTERM');
          await waitForGroupGone(pgid, this.limits.killGraceMs, this.limits.groupPollMs, isSupervisor);
          signalGroup(pgid, 'SIGKILL');
          if (!(await waitForGroupGone(pgid, this.limits.killGraceMs, this.limits.groupPollMs))) {
            this.log('error', `stdio ${this.label}: processes of group ${pgid} survived SIGKILL`);
          }
        }
        if (pgid !== undefined) untrackGroup(pgid);
        // The supervisor's watch pipe: only now, once the group is gone (closing it
        // earlier would make the supervisor end the group on its own).
        (this.child?.stdio[3] as { destroy?: () => void } | null | undefined)?.destroy?.();
        // Let the last stdout/stderr bytes arrive before reporting the close.
        await this.waitForPipes(this.limits.pipeCloseWaitMs);
        if (!this.pipesClosed) {
          this.child?.stdout.destroy();
          this.child?.stderr.destroy();
        }
        this.child?.stdin.destroy();
        const exit = this.exit;
        this.finish({ exitCode: exit?.code ?? null, signal: exit?.signal ?? null });
      })();
    }
    return this.reaping;
  }

  private waitForPipes(ms: number): Promise<void> {
    if (this.pipesClosed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.pipeWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.pipeWaiters.add(wake);
    });
  }

  private waitForExit(ms: number): Promise<boolean> {
    if (this.exit !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.exitWaiters.delete(wake);
        resolve(this.exit !== undefined);
      }, ms);
      this.exitWaiters.add(wake);
    });
  }

  private finish(info: { exitCode?: number | null; signal?: NodeJS.Signals | null }): void {
    if (this.finished) return;
    this.finished = true;
    const closed: ClosedInfo = {
      reason: this.failure ?? this.describeExit(info.exitCode ?? null, info.signal ?? null),
      exitCode: info.exitCode ?? null,
      signal: info.signal ?? null,
      stderrTail: this.stderr.tail(),
    };
    if (this.closedByHost) closed.byHost = true;
    // An exit nobody asked for is the engine's to report (once, with the exit code and the
    // stderr tail, at the level its consequence deserves): here it is only a debug line.
    this.log(this.closedByHost ? 'info' : 'debug', `stdio ${this.label}: ${closed.reason}`);
    try {
      this.events.onClosed(closed);
    } finally {
      this.resolveFinished();
    }
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | null): string {
    const how = signal !== null ? `was ended by ${signal}` : `exited with code ${code ?? 'unknown'}`;
    return this.closedByHost ? `closed by host: ${this.label} ${how}` : `server process ${this.label} ${how}`;
  }
}

function isAsciiSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Assign `source` over `target`; on Windows a key replaces any same-named key of another case. */
function mergeEnv(target: NodeJS.ProcessEnv, source: Record<string, string>): void {
  for (const [key, value] of Object.entries(source)) {
    if (isWindows) {
      const lower = key.toLowerCase();
      for (const existing of Object.keys(target)) {
        if (existing !== key && existing.toLowerCase() === lower) delete target[existing];
      }
    }
    target[key] = value;
  }
}

function errorCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  return e?.code ?? (e instanceof Error ? e.message : String(err));
}

function describeSpawnError(err: unknown): string {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return 'command not found (ENOENT); check that it is installed and on PATH, or use an absolute path';
    case 'EACCES':
      return 'permission denied (EACCES); check that the file is executable';
    default:
      return errorCode(err);
  }
}
