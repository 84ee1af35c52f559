// `lazy-mcp daemon run|status|stop`: the per-user owner of shared servers
// (docs/shared-servers.md). `run` is what clients start on demand; a user
// never has to. `status` and `stop` talk to the running owner over its socket.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ParsedArgs } from './args';
import { CliError, say, type CliContext } from './cliContext';
import { connectSocket, ownerSpecFor, type OwnerSpec } from '../host/shared/ownerLauncher';
import { SharedServerOwner } from '../host/shared/owner';
import { defaultSocketDir, ensureSocketDir, ownerSocketPath } from '../host/shared/socketDir';
import { FRAME, frame, frameReader } from '../host/shared/wire';
import { LogThrottle } from '../host/logThrottle';
import type { LogLevel } from '../host/lazyHost';
import { treeRssBytes } from '../host/processTree';
import { count } from '../host/wording';

export function sharedProtocol(ctx: CliContext): number {
  return ctx.core.call((c) => c.sharedProtocol());
}

export async function daemonCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const dir = args.socketDir ?? defaultSocketDir();
  const protocol = sharedProtocol(ctx);
  switch (args.daemonAction) {
    case 'run':
      return run(ctx, dir, protocol, args.lingerMs, args.graceMs);
    case 'status':
    case 'stop':
    default:
      return ask(args, dir, protocol, ctx.core.limits().sharedOwner.maxFrameBytes);
  }
}

async function run(ctx: CliContext, dir: string, protocol: number, lingerMs: number | undefined, graceMs: number | undefined): Promise<number> {
  ensureSocketDir(dir);
  const logFile = fs.openSync(path.join(dir, `owner-v${protocol}.log`), 'a', 0o600);
  const write = (level: LogLevel, message: string, server?: string): void => {
    if (level === 'debug') return;
    fs.writeSync(logFile, `${new Date().toISOString()} ${process.pid} ${level}${server ? ` [${server}]` : ''}: ${message}\n`);
  };
  // A shared server flooding its stdout must not flood the owner's log (the gateway's own log is throttled the same way).
  const log = new LogThrottle(write, ctx.core.limits().logThrottle).log;
  process.chdir(dir);
  const owner = new SharedServerOwner({ core: ctx.core, dir, protocol, log, ...(lingerMs !== undefined ? { lingerMs } : {}), ...(graceMs !== undefined ? { graceMs } : {}) });
  if (!(await owner.start())) return 0;
  const stop = (): void => void owner.stop();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
  await owner.done;
  log('info', 'stopped');
  return 0;
}

/** What the running owner says it holds (`daemon status`; the owner's `status` frame). */
export interface OwnerStatus {
  pid: number;
  /** The owner's Lazy MCP version (owners before it was reported: absent). */
  version?: string;
  stopping?: boolean;
  processes?: {
    server: string;
    pid: number | null;
    clients: number;
    sinceMs: number;
    key: string;
    holders?: { label: string; sinceMs: number }[];
    /** The process's calls from every client in the last hour, and the idle time they give it (core shared/mux.rs). */
    callsLastHour?: number;
    idleMs?: number;
    /** No client holds it: when it stops. */
    stopsAtMs?: number | null;
  }[];
}

/** The running owner's answer to `status` (or `stop`); undefined when none listens. */
/** `maxFrameBytes`: the core's `sharedOwner.maxFrameBytes`. */
export async function askOwner(dir: string, protocol: number, maxFrameBytes: number, stop = false): Promise<OwnerStatus | undefined> {
  const socketPath = ownerSocketPath(dir, protocol);
  let socket;
  try {
    socket = await connectSocket(socketPath);
  } catch {
    return undefined;
  }
  const reply = await new Promise<string>((resolve, reject) => {
    let text = '';
    const reader = frameReader(
      (kind, body) => {
        if (kind === FRAME.status) text = body.toString('utf8');
      },
      () => undefined,
      maxFrameBytes,
    );
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(frame(stop ? FRAME.stop : FRAME.status));
  });
  if (reply === '') throw new CliError(`the owner on ${socketPath} did not answer`, 1);
  return JSON.parse(reply) as OwnerStatus;
}

/** `45 s`, `3 min`, `2 min 30 s`. */
function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  if (minutes === 0) return `${seconds} s`;
  return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
}

/** The owner's shared servers as text lines: pid, memory (Linux), clients, idle time, since, key, holders. */
export function ownerStatusLines(status: OwnerStatus, socketPath: string, protocol: number): string[] {
  const rows = status.processes ?? [];
  const version = status.version !== undefined ? ` (Lazy MCP ${status.version}, wire v${protocol})` : ` (wire v${protocol})`;
  const lines = [`Lazy MCP owner pid ${status.pid}${version} on ${socketPath}: ${rows.length === 1 ? '1 shared server' : `${rows.length} shared servers`}`];
  for (const row of rows) {
    const since = new Date(row.sinceMs).toISOString();
    const rss = row.pid != null ? treeRssBytes(row.pid) : undefined;
    const memory = rss !== undefined ? `  RSS ${Math.round(rss / 1_048_576)} MB` : '';
    // How long it is kept after its last use once no client holds it (the rate of every client's calls).
    const idle = row.idleMs !== undefined ? `  idle time ${duration(row.idleMs)} (${count(row.callsLastHour ?? 0, 'call')} in the last hour)` : '';
    const stops = row.stopsAtMs != null ? `, no client: stops in ${duration(Math.max(0, row.stopsAtMs - Date.now()))}` : '';
    lines.push(`  ${row.server}  pid ${row.pid ?? '-'}  ${row.clients === 1 ? '1 client' : `${row.clients} clients`}${idle}${stops}  since ${since}${memory}  key ${row.key}`);
    for (const holder of row.holders ?? []) lines.push(`    held by ${holder.label} since ${new Date(holder.sinceMs).toISOString()}`);
  }
  return lines;
}

async function ask(args: ParsedArgs, dir: string, protocol: number, maxFrameBytes: number): Promise<number> {
  const socketPath = ownerSocketPath(dir, protocol);
  const status = await askOwner(dir, protocol, maxFrameBytes, args.daemonAction === 'stop');
  if (status === undefined) {
    if (args.json) process.stdout.write(`${JSON.stringify({ running: false, socket: socketPath })}\n`);
    else say(`no Lazy MCP owner is running (${socketPath}); one starts when a client needs a shared server`);
    return 0;
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ running: true, ...status })}\n`);
    return 0;
  }
  if (status.stopping) {
    process.stdout.write(`stopping the Lazy MCP owner (pid ${status.pid}) and its servers\n`);
    return 0;
  }
  process.stdout.write(`${ownerStatusLines(status, socketPath, protocol).join('\n')}\n`);
  return 0;
}

/**
 * How this `serve` reaches the owner of shared servers (the default; not with
 * `--isolated`, LAZY_MCP_SHARE_SERVERS=0 unless `--shared`, or on Windows yet),
 * else undefined: every server is spawned by this process.
 */
export function cliOwnerSpec(args: ParsedArgs, ctx: CliContext): OwnerSpec | undefined {
  const wanted = args.shared || process.env.LAZY_MCP_SHARE_SERVERS !== '0';
  if (!wanted || args.isolated || process.platform === 'win32') return undefined;
  return ownerSpecFor(process.argv[1] ?? path.join(__dirname, 'cli.js'), sharedProtocol(ctx), ctx.core);
}
