// The owner of shared servers (`lazy-mcp daemon run`): one per user and wire
// version. It holds the socket and the server processes and moves bytes; the
// core's multiplexer (WASM `SharedOwner`, core shared/mux.rs) decides where
// each message goes. Servers are spawned with today's stdio code (process
// group + supervisor), so a SIGKILL of the owner still ends them.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import type { SharedHolder } from '../../core/contract.generated';
import type { WasmCore } from '../../core/wasmCore';
import { openConnection, type Connection, type StdioTransport } from '../connections';
import { connectSocket } from './ownerLauncher';
import { ensureSocketDir, ownerSocketPath } from './socketDir';
import { FRAME, frame, frameReader, writeBatched } from './wire';

/**
 * WASM `SharedOwner`: every step returns where its effects lie in `memory()` (shared_owner.rs `effects_out`);
 * `nowMs` is the clock the core counts a process's calls and idle time by.
 */
interface SharedOwnerHandle {
  handle(eventJson: string, nowMs: number): number;
  clientMessage(attach: number, message: Uint8Array, nowMs: number): number;
  serverMessage(process: number, message: Uint8Array, nowMs: number): number;
  memory(): { readonly buffer: ArrayBuffer };
  ownerExitIn(nowMs: number, hostHolds: number): number;
  status(nowMs: number): string;
}

/** A message effect's message is `bytes[at..end]`, framed in place: `[at-1..end+1]` is the `M` frame, `[at..end+1]` the stdio line. */
/** A message effect's kind in the binary table of a step that gives only messages (shared_owner.rs). */
const TO_SERVER = 1;

type MuxEffect =
  | { type: 'spawn'; process: number; server: string; transport: StdioTransport; cwd: string | null; env: NodeJS.ProcessEnv | null }
  | { type: 'toServer'; process: number; at: number; end: number }
  | { type: 'toClient'; attach: number; at: number; end: number }
  | { type: 'opened'; attach: number; pid: number | null }
  | { type: 'sharing'; attach: number; clients: number; holders: SharedHolder[] }
  | { type: 'closeClient'; attach: number; reason: string; exitCode: number | null; stderrTail: string }
  | { type: 'stopProcess'; process: number }
  | { type: 'linger'; process: number; ms: number };

export interface OwnerOptions {
  core: WasmCore;
  dir: string;
  protocol: number;
  /** Exit after holding no process and no client this long (else the core's `sharedOwner.lingerMs`). */
  lingerMs?: number;
  /** A used server's wait for a next client after its last one left (else the core's). */
  graceMs?: number;
  /** `server`: the line is about that server's process (the owner's log throttles per server and kind). */
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, server?: string): void;
}

export class SharedServerOwner {
  private readonly mux: SharedOwnerHandle;
  private readonly memory: { readonly buffer: ArrayBuffer };
  /** A view of the WASM memory (renewed when it grows: the old one is detached, length 0). */
  private heap: Buffer;
  private readonly socketPath: string;
  private server: net.Server | undefined;
  private readonly clients = new Map<number, net.Socket>();
  private readonly processes = new Map<number, Connection>();
  private nextAttach = 1;
  /** Sockets accepted and not closed yet (attached or about to be): the owner never exits under them. */
  private openSockets = 0;
  private lingerTimer: NodeJS.Timeout | undefined;
  /** Per process, the timer of its latest `linger` effect (a newer one replaces it: the core keeps only the latest deadline). */
  private readonly processLingers = new Map<number, NodeJS.Timeout>();
  private stopping: Promise<void> | undefined;
  private resolveDone!: () => void;
  /** Resolves when the owner stopped (idle, `daemon stop`, a signal). */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  /** This owner's Lazy MCP version (clients of other versions with the same wire version attach too: docs/shared-servers.md). */
  private readonly version: string;

  constructor(private readonly opts: OwnerOptions) {
    // The CLI's `--grace-ms` and `--linger-ms`, else (undefined) the core's own.
    this.mux = opts.core.call((c) => new (c as unknown as { SharedOwner: new (graceMs?: number, lingerMs?: number) => SharedOwnerHandle }).SharedOwner(opts.graceMs, opts.lingerMs));
    this.memory = this.mux.memory();
    this.heap = Buffer.from(this.memory.buffer);
    this.version = opts.core.call((c) => c.coreVersion());
    this.socketPath = ownerSocketPath(opts.dir, opts.protocol);
  }

  /** Listen; `false` when another owner already listens (this one should exit). */
  async start(): Promise<boolean> {
    ensureSocketDir(this.opts.dir);
    // How often a stale socket is replaced and how deep the listen queue is: the core's (host_limits.rs `sharedOwner`).
    const { listenAttempts, listenBacklog } = this.opts.core.limits().sharedOwner;
    for (let attempt = 0; attempt < listenAttempts; attempt++) {
      const server = net.createServer((socket) => this.accept(socket));
      const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        server.once('error', resolve);
        server.listen({ path: this.socketPath, backlog: listenBacklog }, () => resolve(undefined));
      });
      if (error === undefined) {
        fs.chmodSync(this.socketPath, 0o600);
        this.server = server;
        this.opts.log('info', `owner ${process.pid} listening on ${this.socketPath} (Lazy MCP ${this.version})`);
        this.armLinger();
        return true;
      }
      if (error.code !== 'EADDRINUSE') throw error;
      try {
        (await connectSocket(this.socketPath)).destroy();
        this.opts.log('info', `another owner listens on ${this.socketPath}; exiting`);
        return false;
      } catch {
        // Nobody listens: a crashed owner's socket. Replace it.
        this.opts.log('warn', `replacing the stale socket ${this.socketPath} (its owner is gone)`);
        try {
          fs.unlinkSync(this.socketPath);
        } catch {
          // another starter removed it first
        }
      }
    }
    return false;
  }

  /** End every process and client, stop listening. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.lingerTimer);
      for (const timer of this.processLingers.values()) clearTimeout(timer);
      this.processLingers.clear();
      this.server?.close();
      // Only our own socket file: another owner may have replaced it.
      try {
        if (this.server !== undefined) fs.unlinkSync(this.socketPath);
      } catch {
        // gone
      }
      for (const socket of this.clients.values()) socket.destroy();
      await Promise.all([...this.processes.values()].map((c) => c.close()));
      this.resolveDone();
    })();
    return this.stopping;
  }

  private accept(socket: net.Socket): void {
    this.openSockets++;
    this.armLinger();
    let attach: number | undefined;
    // The client said its engine's idle stop let go (else it ended): carried to the core's detach.
    let idle = false;
    const reader = frameReader(
      (kind, body) => {
        if (kind === FRAME.idle) {
          idle = true;
        } else if (kind === FRAME.message && attach !== undefined) {
          const from = attach;
          this.run(() => this.mux.clientMessage(from, body, Date.now()), false);
        } else if (kind === FRAME.attach && attach === undefined) {
          attach = this.nextAttach++;
          this.clients.set(attach, socket);
          const request = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
          this.handle({ type: 'attach', attach, ...request, nowMs: Date.now() });
        } else if (kind === FRAME.status) {
          socket.end(frame(FRAME.status, JSON.stringify({ pid: process.pid, version: this.version, protocol: this.opts.protocol, socket: this.socketPath, processes: JSON.parse(this.mux.status(Date.now())) as unknown })));
        } else if (kind === FRAME.stop) {
          socket.end(frame(FRAME.status, JSON.stringify({ pid: process.pid, stopping: true })));
          void this.stop();
        }
      },
      (bytes) => this.opts.log('error', `dropped a ${bytes}-byte message from a client`),
      this.opts.core.limits().sharedOwner.maxFrameBytes,
    );
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (err) {
        this.opts.log('error', `a client's frame: ${err instanceof Error ? err.message : String(err)}`);
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.openSockets--;
      if (attach === undefined) return this.armLinger();
      this.clients.delete(attach);
      this.handle({ type: 'detach', attach, idle });
    });
  }

  private handle(event: Record<string, unknown>): void {
    this.run(() => this.mux.handle(JSON.stringify(event), Date.now()), true);
  }

  /**
   * One step of the multiplexer and its effects. `mayIdle`: the step may leave
   * the owner holding nothing (a message never does: the hot path skips the check).
   */
  private run(step: () => number, mayIdle: boolean): void {
    if (this.stopping) return;
    let bytes: Buffer;
    let effects: MuxEffect[] | undefined;
    try {
      const start = this.opts.core.call(step);
      if (this.heap.length === 0) this.heap = Buffer.from(this.memory.buffer);
      // One copy out of the WASM memory (the next step reuses it); small steps land in Node's buffer pool.
      bytes = Buffer.allocUnsafe(this.heap.readUInt32LE(start));
      this.heap.copy(bytes, 0, start, start + bytes.length);
      // After the messages, the table: JSON (its length last) when a step gives more than messages.
      const jsonEnd = bytes.length - 4;
      const jsonLength = bytes.readUInt32LE(jsonEnd);
      if (jsonLength > 0) effects = JSON.parse(bytes.toString('utf8', jsonEnd - jsonLength, jsonEnd)) as MuxEffect[];
    } catch (err) {
      // The multiplexer's state is gone with a trapped instance: end everything; clients start a new owner.
      this.opts.log('error', `the multiplexer failed (${err instanceof Error ? err.message : String(err)}): stopping`);
      void this.stop();
      return;
    }
    if (effects !== undefined) {
      for (const effect of effects) this.apply(effect, bytes);
    } else {
      // Only messages: rows of 4 × u32 (kind, process or attachment, at, end), then their count.
      const tableEnd = bytes.length - 8;
      for (let row = tableEnd - 16 * bytes.readUInt32LE(tableEnd); row < tableEnd; row += 16) {
        const who = bytes.readUInt32LE(row + 4);
        const at = bytes.readUInt32LE(row + 8);
        const end = bytes.readUInt32LE(row + 12);
        if (bytes.readUInt32LE(row) === TO_SERVER) this.toServer(who, bytes, at, end);
        else this.toClient(who, bytes, at, end);
      }
    }
    if (mayIdle) this.armLinger();
  }

  private toServer(process: number, bytes: Buffer, at: number, end: number): void {
    const connection = this.processes.get(process);
    if (connection?.sendLine) connection.sendLine(bytes.subarray(at, end + 1));
    else connection?.send(bytes.toString('utf8', at, end));
  }

  private toClient(attach: number, bytes: Buffer, at: number, end: number): void {
    const socket = this.clients.get(attach);
    if (socket !== undefined) writeBatched(socket, bytes.subarray(at - 1, end + 1));
  }

  private apply(effect: MuxEffect, bytes: Buffer): void {
    switch (effect.type) {
      case 'spawn':
        return this.spawn(effect.process, effect.server, effect.transport, effect.cwd, effect.env);
      case 'toServer':
        return this.toServer(effect.process, bytes, effect.at, effect.end);
      case 'toClient':
        return this.toClient(effect.attach, bytes, effect.at, effect.end);
      case 'opened':
        return void this.clients.get(effect.attach)?.write(frame(FRAME.opened, JSON.stringify({ pid: effect.pid })));
      case 'sharing':
        return void this.clients.get(effect.attach)?.write(frame(FRAME.sharing, JSON.stringify({ clients: effect.clients, holders: effect.holders })));
      case 'closeClient': {
        const socket = this.clients.get(effect.attach);
        this.clients.delete(effect.attach);
        socket?.end(frame(FRAME.ended, JSON.stringify({ reason: effect.reason, exitCode: effect.exitCode, stderrTail: effect.stderrTail })));
        return;
      }
      case 'stopProcess':
        return void this.processes.get(effect.process)?.close();
      case 'linger': {
        // The core's wait: the process's idle time after its last use (at least the handover grace).
        // One timer per process: the core answers only its latest deadline, and a stop ends them all
        // (a timer left behind would keep the owner's process alive for an idle time).
        clearTimeout(this.processLingers.get(effect.process));
        const timer = setTimeout(() => {
          this.processLingers.delete(effect.process);
          this.handle({ type: 'lingerEnded', process: effect.process });
        }, effect.ms);
        this.processLingers.set(effect.process, timer);
        return;
      }
    }
  }

  /** `env`: the attaching client's environment (the key says it is the same for every client of this process). */
  private spawn(process: number, server: string, transport: StdioTransport, cwd: string | null, env: NodeJS.ProcessEnv | null): void {
    this.opts.log('info', `starting ${server} (process ${process})`);
    const connection = openConnection(
      transport,
      {
        onOpened: ({ pid }) => this.handle({ type: 'processOpened', process, pid: pid ?? null }),
        onMessage: (message) => this.run(() => this.mux.serverMessage(process, typeof message === 'string' ? Buffer.from(message, 'utf8') : message, Date.now()), false),
        onClosed: (info) => {
          this.processes.delete(process);
          clearTimeout(this.processLingers.get(process));
          this.processLingers.delete(process);
          this.opts.log('info', `${server} (process ${process}) ended: ${info.reason}`);
          this.handle({ type: 'processClosed', process, reason: info.reason, exitCode: info.exitCode ?? null, stderrTail: info.stderrTail });
        },
        onStderr: (line) => this.opts.log('debug', `${server}: ${line}`),
      },
      { cwdFallback: cwd ?? os.homedir(), ...(env !== null ? { env } : {}), stdio: this.opts.core.limits().stdio, log: (level, message) => this.opts.log(level === 'debug' ? 'debug' : level, message, server), server },
    );
    this.processes.set(process, connection);
  }

  /**
   * The multiplexer decides when the owner exits (mux.rs `owner_exit_in`: after holding nothing
   * for its linger); this arms the timer it gives and asks again when it fires. `fired`: only
   * the timer's own question may stop the owner, never a step in the middle of its work.
   */
  private armLinger(fired = false): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    if (this.stopping) return;
    const exitIn = this.mux.ownerExitIn(Date.now(), this.processes.size + this.openSockets);
    if (exitIn < 0) return;
    if (fired && exitIn === 0) {
      this.opts.log('info', 'held nothing for its linger: exiting');
      void this.stop();
      return;
    }
    this.lingerTimer = setTimeout(() => this.armLinger(true), exitIn);
  }
}
