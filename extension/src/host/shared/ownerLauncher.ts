// A client's way to the owner of shared servers: connect to its socket, or
// start it on demand (detached, so it outlives the client that started it).
// A start lock makes ten clients starting at once start one owner; a socket
// nobody listens on (a crashed owner) is replaced by the new owner itself.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { WasmCore } from '../../core/wasmCore';
import { lookUntilDone, nextTryOf, type NextTry } from '../coreWaits';
import { defaultSocketDir, ensureSocketDir, ownerSocketPath } from './socketDir';

/** How to reach or start the owner: where it listens and how to run `lazy-mcp daemon`. */
export interface OwnerSpec {
  dir: string;
  /** The wire version (WASM `sharedProtocol()`): in the socket's name. */
  protocol: number;
  /** The program and arguments that run the CLI bundle (`node dist/cli.js`); `daemon run …` is appended. */
  command: string;
  args: string[];
  /** The owner's environment (under Electron, `ELECTRON_RUN_AS_NODE=1` is added). */
  env?: NodeJS.ProcessEnv;
  /** How long an owner holding nothing waits before it exits (else the core's `sharedOwner.lingerMs`). */
  lingerMs?: number;
  /** How long a used server waits for a next client after its last one left (else the core's grace). */
  graceMs?: number;
  /**
   * The core's decision on waiting (host_waits.rs, WASM `nextTry`): how long a start (or a
   * full listen queue) is waited for, how often it is looked at, the pause after a full queue.
   */
  nextTry: NextTry;
  /** The largest frame on the owner's socket: the core's `sharedOwner.maxFrameBytes`. */
  maxFrameBytes: number;
}

/**
 * The owner of a client whose CLI bundle is `cliEntry` (`dist/cli.js`, which
 * also runs `lazy-mcp daemon`): the same for the CLI and every VS Code window,
 * so all of them share one owner per protocol version.
 * `LAZY_MCP_OWNER_LINGER_MS` shortens how long an idle owner stays (tests);
 * `LAZY_MCP_HANDOVER_GRACE_MS` sets the handover grace (a benchmark that compresses time; the tests, whose checks for nothing left running need not wait 5 s).
 */
export function ownerSpecFor(cliEntry: string, protocol: number, core: Pick<WasmCore, 'call' | 'limits'>, env: NodeJS.ProcessEnv = process.env): OwnerSpec {
  const linger = Number(env.LAZY_MCP_OWNER_LINGER_MS);
  const grace = Number(env.LAZY_MCP_HANDOVER_GRACE_MS);
  return {
    dir: defaultSocketDir(env),
    protocol,
    command: process.execPath,
    args: [cliEntry],
    nextTry: nextTryOf(core),
    maxFrameBytes: core.limits().sharedOwner.maxFrameBytes,
    ...(env.LAZY_MCP_OWNER_LINGER_MS && Number.isInteger(linger) && linger >= 0 ? { lingerMs: linger } : {}),
    ...(env.LAZY_MCP_HANDOVER_GRACE_MS && Number.isInteger(grace) && grace >= 0 ? { graceMs: grace } : {}),
  };
}

export function connectSocket(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => reject(err));
  });
}

/**
 * No owner listens on the socket: no socket file (ENOENT), or a stale one (ECONNREFUSED). What
 * the OS answers about Lazy MCP's own local socket, not a rule about an MCP server: what follows
 * (start an owner) and how long to wait are the core's (host_waits.rs `nextTry`).
 */
function absent(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

/** The owner's listen queue is full for a moment (many attachments at once): try again shortly. */
function busy(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EAGAIN';
}

const starting = new Map<string, Promise<void>>();

/** A socket to the owner, starting one when none listens. Throws `SocketDirRefused` for an unsafe directory. */
export async function connectOwner(spec: OwnerSpec): Promise<net.Socket> {
  ensureSocketDir(spec.dir);
  const socketPath = ownerSocketPath(spec.dir, spec.protocol);
  return lookUntilDone<net.Socket>(
    spec.nextTry,
    async () => {
      try {
        return { done: await connectSocket(socketPath) };
      } catch (err) {
        // Not a fault that passes: the caller fails the call with it. Past the core's wait, these too.
        if (busy(err)) return { wait: 'ownerBusy', error: err as Error };
        if (!absent(err)) throw err;
        // None listens (never started, or it was just exiting): start one. One start per
        // process at a time; across processes, the start lock.
        let start = starting.get(socketPath);
        if (start === undefined) {
          start = startOwner(spec, socketPath).finally(() => starting.delete(socketPath));
          starting.set(socketPath, start);
        }
        await start;
        return { wait: 'ownerStarted', error: err as Error };
      }
    },
  );
}

async function startOwner(spec: OwnerSpec, socketPath: string): Promise<void> {
  const lock = path.join(spec.dir, `owner-v${spec.protocol}.start-lock`);
  const since = Date.now();
  const tooLate = (elapsedMs: number, see: string): Error => new Error(`the Lazy MCP owner did not start within ${Math.round(elapsedMs / 1000)} s (${see})`);
  // Another process's start: wait for its owner, or for its lock to go.
  const started = await lookUntilDone<boolean>(
    spec.nextTry,
    async () => ((await listening(socketPath)) ? { done: true } : takeLock(lock) ? { done: false } : { wait: 'ownerStarting' }),
    {
      since,
      gaveUp: (elapsed) => {
        throw tooLate(elapsed, `lock ${lock}`);
      },
    },
  );
  if (started) return;
  try {
    if (await listening(socketPath)) return;
    const args = [...spec.args, 'daemon', 'run', '--socket-dir', spec.dir, ...(spec.lingerMs !== undefined ? ['--linger-ms', String(spec.lingerMs)] : []), ...(spec.graceMs !== undefined ? ['--grace-ms', String(spec.graceMs)] : [])];
    const child = spawn(spec.command, args, {
      detached: true,
      stdio: 'ignore',
      cwd: spec.dir,
      // From VS Code, process.execPath is Electron: run it as Node (servers see what a CLI owner's would).
      env: { ...(spec.env ?? process.env), ...(process.versions.electron !== undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {}) },
      windowsHide: true,
    });
    child.on('error', () => undefined);
    child.unref();
    let exited: number | null | undefined;
    child.once('exit', (code) => (exited = code));
    const logFile = path.join(spec.dir, `owner-v${spec.protocol}.log`);
    // A spawned daemon has no ready event: its socket is looked for.
    await lookUntilDone<void>(
      spec.nextTry,
      async () => {
        if (await listening(socketPath)) return { done: undefined };
        if (exited !== undefined && exited !== 0) throw new Error(`the Lazy MCP owner exited with code ${exited} while starting (see ${logFile})`);
        return { wait: 'ownerStarting' };
      },
      {
        since,
        gaveUp: (elapsed) => {
          throw tooLate(elapsed, `see ${logFile}`);
        },
      },
    );
  } finally {
    try {
      fs.unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}

/** Take the start lock; a lock whose process is gone is broken. */
function takeLock(lock: string): boolean {
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let holder = NaN;
  try {
    holder = Number(fs.readFileSync(lock, 'utf8'));
  } catch {
    return false; // just released, or not written yet: try again
  }
  if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
    // Renamed away first, so two clients breaking the same stale lock do not delete each other's fresh one.
    const aside = `${lock}.${process.pid}`;
    try {
      fs.renameSync(lock, aside);
      const moved = Number(fs.readFileSync(aside, 'utf8'));
      fs.unlinkSync(aside);
      if (moved !== holder) return false;
    } catch {
      return false;
    }
  }
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function listening(socketPath: string): Promise<boolean> {
  try {
    const socket = await connectSocket(socketPath);
    socket.destroy();
    return true;
  } catch {
    return false;
  }
}
