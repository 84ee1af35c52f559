// A connection to a shared stdio server: instead of spawning, attach to the
// owner's process by the core's sharing key (docs/shared-servers.md). To the
// engine it is an ordinary connection: opened (with the shared pid), messages,
// closed exactly once. The owner going away closes it at once, so calls in
// flight fail instead of hanging; the engine's next attempt starts a new owner.
import type * as net from 'node:net';
import type { SharedHolder, SharedLaunch } from '../../core/contract.generated';
import { openConnection } from '../connections';
import type { ClosedInfo, Connection, ConnectionEvents, ConnectionOptions, StdioTransport } from '../connections/types';
import { connectOwner, type OwnerSpec } from './ownerLauncher';
import { SocketDirRefused } from './socketDir';
import { FRAME, frame, frameReader, writeBatched } from './wire';

export function openSharedConnection(
  owner: OwnerSpec,
  launch: SharedLaunch,
  transport: StdioTransport,
  events: ConnectionEvents,
  opts: ConnectionOptions,
): Connection {
  return new SharedConnection(owner, launch, transport, events, opts);
}

class SharedConnection implements Connection {
  private socket: net.Socket | undefined;
  /** The socket directory was refused: this server runs in our own process, as without sharing. */
  private local: Connection | undefined;
  private readonly queued: string[] = [];
  private ended: ClosedInfo | undefined;
  private closedByHost = false;
  private finished = false;
  private sharedPid: number | undefined;
  private readonly whenFinished: Promise<void>;
  private resolveFinished!: () => void;

  constructor(
    owner: OwnerSpec,
    launch: SharedLaunch,
    private readonly transport: StdioTransport,
    private readonly events: ConnectionEvents,
    private readonly opts: ConnectionOptions,
  ) {
    this.whenFinished = new Promise((resolve) => (this.resolveFinished = resolve));
    connectOwner(owner).then(
      (socket) => this.attached(socket, launch, owner.maxFrameBytes),
      (err: unknown) => {
        if (err instanceof SocketDirRefused) {
          this.opts.log?.('warn', `${err.message}; starting "${transport.command}" in this process instead`);
          this.local = openConnection(transport, this.events, this.opts);
          for (const message of this.queued.splice(0)) this.local.send(message);
          if (this.closedByHost) void this.local.close().then(() => this.resolveFinished());
          return;
        }
        const reason = err instanceof Error ? err.message : String(err);
        this.finish({ reason: `cannot reach the Lazy MCP owner of shared servers: ${reason}`, exitCode: null, stderrTail: '' });
      },
    );
  }

  get pid(): number | undefined {
    return this.local?.pid ?? this.sharedPid;
  }

  send(json: string): void {
    if (this.local) return this.local.send(json);
    if (this.finished) return;
    if (this.socket === undefined) this.queued.push(json);
    else writeBatched(this.socket, frame(FRAME.message, json));
  }

  close(idle = false): Promise<void> {
    if (this.local) return this.local.close();
    this.closedByHost = true;
    // The owner keeps the process for its idle time only after an idle stop; else the grace.
    if (this.socket && idle) this.socket.end(frame(FRAME.idle));
    else if (this.socket) this.socket.end();
    else if (this.finished) this.resolveFinished();
    return this.whenFinished;
  }

  private attached(socket: net.Socket, launch: SharedLaunch, maxFrameBytes: number): void {
    if (this.closedByHost) {
      socket.destroy();
      this.finish({ reason: 'closed by host before the shared server was attached', exitCode: null, stderrTail: '' });
      return;
    }
    this.socket = socket;
    const reader = frameReader(
      (kind, body) => {
        try {
          this.onFrame(kind, body);
        } catch (err) {
          this.opts.log?.('error', `shared "${this.transport.command}": ${err instanceof Error ? err.message : String(err)}`);
        }
      },
      (bytes) => this.opts.log?.('error', `shared "${this.transport.command}": dropped a ${bytes}-byte message from the owner`),
      maxFrameBytes,
    );
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', (err) => this.opts.log?.('debug', `shared "${this.transport.command}": socket ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    socket.on('close', () => {
      reader.end();
      this.finish(
        this.ended ?? {
          reason: this.closedByHost
            ? `closed by host: detached from the shared "${this.transport.command}"`
            : 'the Lazy MCP owner of shared servers ended (its servers with it); the next call starts a new one',
          exitCode: null,
          stderrTail: '',
        },
      );
    });
    const cwd = launch.workspaceCwd ? (this.opts.cwdFallback ?? null) : null;
    // The core's omitEnv: per-window variables that are not in the key must not reach a server others share.
    const env: NodeJS.ProcessEnv = { ...(this.opts.env ?? process.env) };
    for (const name of launch.omitEnv) delete env[name];
    socket.write(frame(FRAME.attach, JSON.stringify({ server: this.opts.server ?? this.transport.command, launch, transport: this.transport, cwd, env })));
    for (const message of this.queued.splice(0)) socket.write(frame(FRAME.message, message));
  }

  private onFrame(kind: number, body: Buffer): void {
    if (this.finished) return;
    switch (kind) {
      case FRAME.message:
        return this.events.onMessage(body);
      case FRAME.opened: {
        const { pid } = JSON.parse(body.toString('utf8')) as { pid?: number | null };
        this.sharedPid = pid ?? undefined;
        return this.events.onOpened({ ...(pid != null ? { pid } : {}) });
      }
      case FRAME.sharing: {
        const { clients, holders } = JSON.parse(body.toString('utf8')) as { clients?: number; holders?: SharedHolder[] };
        if (typeof clients === 'number') this.events.onShared?.(clients, Array.isArray(holders) ? holders : []);
        return;
      }
      case FRAME.ended: {
        const info = JSON.parse(body.toString('utf8')) as { reason: string; exitCode: number | null; stderrTail: string };
        this.ended = { reason: info.reason, exitCode: info.exitCode, stderrTail: info.stderrTail };
        return;
      }
    }
  }

  private finish(info: ClosedInfo): void {
    if (this.finished) return;
    this.finished = true;
    if (this.closedByHost) info.byHost = true;
    try {
      this.events.onClosed(info);
    } catch (err) {
      this.opts.log?.('error', `connection onClosed handler threw: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.resolveFinished();
    }
  }
}
