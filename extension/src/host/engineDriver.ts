// Drives the core's lifecycle engine: turns I/O into engine events and carries
// out the effects it answers with. Every decision is the engine's; this file
// only moves bytes, arms the engine's one timer and stores blobs.
import { openConnection, type StdioTransport } from './connections';
import { openSharedConnection } from './shared/sharedConnection';
import type { OwnerSpec } from './shared/ownerLauncher';
import type { Connection, RefusedSend, Transport } from './connections';
import type { CoreExports, WasmCore } from '../core/wasmCore';
import type { ClientBody, ClientRoute, RequestHeaders } from './gateway/jsonRpcShape';
import type { ConfigReport, ConfigSources, DefinitionsReview, Effect, Endpoint, EndpointInfo, Event, LogLevel, OAuthBinding, ReportContext, Settings, SharedLaunch } from '../core/contract.generated';
import { answerReadFiles } from './config/configFiles';
import { effectsOf, routingOf } from './hotParts';
import type { AuthHost } from './auth/authHost';
import { BlobFile } from './storage/blobFile';
import type { SharedCatalogueStore } from './storage/sharedCatalogueDir';

/**
 * What the host tells the engine (generated from engine/events.rs). Settings may be
 * partial: the engine fills every missing field with its default.
 */
export type EngineEvent =
  | Exclude<Event, { type: 'settingsChanged' | 'messageReceived' | 'clientMessage' }>
  | { type: 'settingsChanged'; settings: Partial<Settings> }
  | WithBytes<Extract<Event, { type: 'messageReceived' | 'clientMessage' }>>;
/** A message may also be its UTF-8 bytes as read from the wire: they cross into the core as they are. */
type WithBytes<E> = E extends { message: string } ? Omit<E, 'message'> & { message: string | Uint8Array } : never;
export type { EndpointInfo };
/** Something the engine decided to tell the user (engine/announce.rs). */
export type Announcement = Omit<Extract<Effect, { type: 'announce' }>, 'type' | 'server'> & { server?: string };

export type { ClientRoute };

/**
 * The engine object the WASM facade exports (crates/lazy-mcp-wasm), typed from
 * wasm-bindgen's declarations. The `*Split` forms return `[effectsJson,
 * ...payloads]`: the `message` of every `send`, `reply` and `notifyClient`
 * effect crosses as a string of its own, in order.
 */
export type EngineHandle = InstanceType<CoreExports['Engine']>;

/** The effects of a crossing already made (`clientPost`: its joined parts from `at` on), queued to be applied in order. */
interface Crossed {
  type: 'crossed';
  joined: string;
  at: number;
}

/**
 * What a crossing returns: its parts (the effects' JSON, then one message per `send`,
 * `reply` and `notifyClient`), as an array, or, from the hot path's `clientPost`,
 * `clientMessage` and `messageReceived`, as one string with the parts joined by U+001E
 * (which no JSON text holds raw: crates/lazy-mcp-wasm `joined`): one string out of WASM,
 * not one per part, the effects compact for a warm call (`hotParts.ts`).
 */
type Parts = string[] | string;
const SEPARATOR = '\u001e';

/** The engine's `readEmbeddingTable`, carried out in turn after the effects before it. */
interface ReadTable {
  type: 'readEmbeddingTable';
}

/**
 * HTTP: a message on the reply to request `requestId`'s POST (WASM `messageReceived`
 * with `reply_of`). `awaited`: what the core said of that request once it crossed
 * (true until then).
 */
interface ReplyMessage {
  type: 'replyMessage';
  conn: number;
  requestId: number;
  message: string;
  awaited: boolean;
}

export interface DriverDeps {
  core: WasmCore;
  settingsJson: string;
  /** Where client-bound messages go (the gateway's `deliver`, or stdout for `serve --stdio`). */
  deliverToClient(client: string, message: string, route: ClientRoute): void;
  /** End a gateway client's session (the engine's `closeClient`: idle, or beyond the cap); it answers `clientDisconnected`. */
  closeClient?(client: string): void;
  /** After `clientInputEnded`: every request read from `client` is answered or dropped (`serve --stdio` may stop). */
  onClientSettled?(client: string): void;
  /**
   * The MCP client's definitions of the gateway's endpoints (VS Code's commands): `start`
   * settles when the client's start ends, rejecting when it failed (logged by the front end);
   * `stop` closes its session.
   * The engine decides when (clients/definition_starts.rs); without them nothing is started.
   */
  definitions?: { start(endpoint: Endpoint): PromiseLike<unknown>; stop(endpoint: Endpoint): PromiseLike<unknown> };
  store: { read(): Promise<string | undefined>; write(blob: string): Promise<void> };
  /** The user's shared catalogue (host/storage/sharedCatalogueDir.ts); without it every lookup finds nothing. */
  sharedCatalogue?: SharedCatalogueStore;
  log(level: LogLevel, message: string, server?: string): void;
  /** `aggregate`: version of the aggregate endpoint when it has something to offer. */
  onEndpointsChanged?(endpoints: EndpointInfo[], aggregate: string | undefined): void;
  onStateChanged?(): void;
  /** No server is busy any more, after some was (the core's `catalogueSettled`). */
  onCatalogueSettled?(): void;
  /** Watch exactly these config paths (the core's watch set). */
  onWatchFiles?(paths: string[]): void;
  /** A config load finished and was applied. */
  onConfigLoaded?(report: ConfigReport): void;
  /** Show an announcement to the user; without a UI (CLI) it is logged. */
  onAnnounce?(announcement: Announcement): void;
  /** Resolve connect-time variables (VS Code `${input:...}`); may reject to refuse the connect. */
  resolveTransport?(server: string, transport: Transport, interactive: boolean): Promise<Transport>;
  /** Memory of a process tree, for Diagnostics (bytes), when the host can measure it. */
  measureRss?(pid: number): number | undefined;
  cwdFallback?: string;
  /** How to reach the owner of shared servers; without it every server is spawned here. */
  sharedOwner?: OwnerSpec;
  now?: () => number;
  /** Runs OAuth for the engine's sign-in effects; without it, servers that need sign-in stay NEEDS AUTH. */
  auth?: AuthHost;
  /** An event could not be handled (the core trapped or threw); it is logged as well. */
  onEngineFailed?(message: string): void;
}

export class EngineDriver {
  private engine: EngineHandle;
  private readonly connections = new Map<number, Connection>();
  /** Connections the engine asked to close that are still shutting down (awaited by `shutdown`). */
  private readonly closing = new Set<Promise<void>>();
  private readonly pids = new Map<string, number>();
  /** The engine's one timer: armed at its deadline (`wakeAt`), it answers `timeout`. */
  private wake: NodeJS.Timeout | undefined;
  /** Events to cross, or effects of a crossing already made (`clientPost`) still to apply. */
  private readonly queue: (EngineEvent | Crossed | ReplyMessage | ReadTable)[] = [];
  private draining = false;
  private persisting: Promise<void> = Promise.resolve();
  /** Writes of the approved-definitions file, in order (awaited by `shutdown`). */
  private writingApprovals: Promise<void> = Promise.resolve();
  private lastBlob: string | undefined;
  private lastConfig: EngineEvent | undefined;
  private stopped = false;
  private tokenWatch: { dispose(): void } | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: DriverDeps) {
    this.now = deps.now ?? Date.now;
    this.engine = this.newEngine();
  }

  /** Load the persisted catalogue; call once before the first `configure`. */
  async start(): Promise<void> {
    // Tokens another window or process stores: the engine decides which servers use them.
    this.tokenWatch = this.deps.auth?.watchStored((url) => this.handle({ type: 'tokensAvailable', url }));
    this.offerEmbeddingTable();
    const blob = await this.deps.store.read();
    if (blob !== undefined) {
      this.lastBlob = blob;
      this.handle({ type: 'catalogueLoaded', blob });
    }
  }

  /** Where config comes from and the host's policy: the engine asks for the files it wants. */
  configure(sources: Omit<ConfigSources, 'policy'> & { policy?: ConfigSources['policy'] }): void {
    this.lastConfig = { type: 'configSources', sources: sources as ConfigSources };
    this.handle(this.lastConfig);
  }

  /** Queue one event; effects are applied in order, never re-entrantly. */
  handle(event: EngineEvent): void {
    this.enqueue(event);
  }

  /**
   * A gateway client's POST body, read and served by the core in one crossing
   * (WASM `clientPost`): its routing now, and `deliver()` applies what the
   * engine answered (call it once the gateway is ready to route the answers).
   * Nothing was served when the routing says the body is refused. `client`:
   * the body's session, existing (`inSession`) or about to be opened for it.
   */
  clientPost(client: string, endpoint: string | undefined, body: Uint8Array, headers: RequestHeaders, inSession: boolean): { body: ClientBody; deliver: () => void } {
    // The MCP headers as values of their own: no JSON written here and read in the core per call.
    const { protocolVersion, method, name } = headers;
    const joined = this.deps.core.call(() => this.engine.clientPost(this.now(), client, endpoint, body, protocolVersion, method, name, inSession));
    // The routing, then the effects and their messages.
    const end = joined.indexOf(SEPARATOR);
    const routing = routingOf(end === -1 ? joined : joined.slice(0, end));
    return { body: routing, deliver: () => (end === -1 ? undefined : this.enqueue({ type: 'crossed', joined, at: end + 1 })) };
  }

  private enqueue(item: EngineEvent | Crossed | ReplyMessage | ReadTable): void {
    if (this.stopped) return;
    this.queue.push(item);
    if (this.draining) return;
    this.draining = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) this.step(next);
    } finally {
      this.draining = false;
    }
  }

  /** The engine's snapshot; `withMemory` measures connected servers' memory first (a /proc scan). */
  snapshotJson({ withMemory = true } = {}): string {
    if (withMemory) this.measureMemory();
    return this.deps.core.call(() => this.engine.snapshot());
  }

  /** The Diagnostics Markdown rendered by the core from its state and last config load, with the host's facts (refreshes process memory first). */
  reportMarkdown(context: Omit<ReportContext, 'nowMs'>): string {
    this.measureMemory();
    // The clock now, for relative times ("next retry in 12 s").
    const withNow: ReportContext = { ...context, nowMs: this.now() };
    return this.deps.core.call(() => this.engine.report(JSON.stringify(withNow)));
  }

  /** What is held of `server` (or only `item`), with diffs and warnings (`DefinitionsReview`). */
  definitionsReview(server: string, item?: string): DefinitionsReview {
    return JSON.parse(this.deps.core.call(() => this.engine.definitionsReview(server, item))) as DefinitionsReview;
  }

  /** Resolves when every approved-definitions write asked for so far is on disk. */
  approvalsWritten(): Promise<void> {
    return this.writingApprovals;
  }

  private measureMemory(): void {
    for (const [server, pid] of this.pids) {
      const rss = this.deps.measureRss?.(pid);
      if (rss !== undefined) this.handle({ type: 'processStats', server, rssBytes: rss });
    }
  }

  /** Stop everything this driver started: every process tree, every timer. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    this.tokenWatch?.dispose();
    clearTimeout(this.wake);
    this.wake = undefined;
    const closing = [...this.connections.values()].map((c) => c.close());
    this.connections.clear();
    // Including those closed on the engine's request a moment ago: the host may exit right after.
    await Promise.allSettled([...closing, ...this.closing]);
    await this.persisting;
    await this.writingApprovals;
  }

  private newEngine(): EngineHandle {
    const { settingsJson } = this.deps;
    return this.deps.core.call((c) => new c.Engine(settingsJson));
  }

  /** After a trap the instance (and the engine in it) is gone: start over from the last known inputs. */
  recoverFromTrap(): void {
    clearTimeout(this.wake);
    this.wake = undefined;
    for (const c of this.connections.values()) this.track(c.close());
    this.connections.clear();
    this.pids.clear();
    this.queue.length = 0;
    this.engine = this.newEngine();
    this.offerEmbeddingTable();
    if (this.lastBlob !== undefined) this.handle({ type: 'catalogueLoaded', blob: this.lastBlob });
    if (this.lastConfig) this.handle(this.lastConfig);
  }

  /** Tells the engine this host ships a tool-search table; it asks for the bytes when a search needs them. */
  private offerEmbeddingTable(): void {
    if (!this.deps.core.embeddingTable) return;
    this.applyParts(this.deps.core.call(() => this.engine.offerEmbeddingModel(this.now())));
  }

  /** Hands the engine the tool-search embedding table (the core logs whether it could use it). */
  private loadEmbeddingTable(): void {
    const table = this.deps.core.embeddingTable?.();
    if (!table) return;
    let parts: string[];
    try {
      parts = this.deps.core.call(() => this.engine.loadEmbeddingModel(this.now(), table.source, table.bytes));
    } catch (err) {
      this.deps.log('error', `engine failed loading the embedding table: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.applyParts(parts);
  }

  private step(event: EngineEvent | Crossed | ReplyMessage | ReadTable): void {
    if (event.type === 'crossed') return this.applyJoined(event.joined, event.at);
    if (event.type === 'readEmbeddingTable') return this.loadEmbeddingTable();
    let parts: Parts;
    try {
      parts = this.deps.core.call(() => (event.type === 'replyMessage' ? this.crossReply(event) : this.cross(event)));
    } catch (err) {
      const message = `engine failed on ${event.type}: ${err instanceof Error ? err.message : String(err)}`;
      this.deps.log('error', message);
      this.deps.onEngineFailed?.(message);
      return;
    }
    if (event.type !== 'replyMessage' || typeof parts !== 'string') return this.applyParts(parts);
    // Part 0 says whether its request still awaits the answer ("1" or "").
    const end = parts.indexOf(SEPARATOR);
    event.awaited = end === 1 && parts.charCodeAt(0) === 0x31;
    if (end !== -1) this.applyJoined(parts, end + 1);
  }

  /** A reply's message (joined parts): part 0 says whether its request still awaits the answer. */
  private crossReply(event: ReplyMessage): string {
    return this.engine.messageReceived(this.now(), event.conn, utf8(event.message), event.requestId);
  }

  /** `parts[0]` is the effects' JSON; the payloads follow it, one per send/reply/notifyClient, in order. */
  private applyParts(parts: Parts): void {
    if (typeof parts === 'string') return this.applyJoined(parts, 0);
    let next = 1;
    const payload = (): string => parts[next++] ?? '';
    for (const effect of JSON.parse(parts[0] ?? '[]') as Effect[]) this.apply(effect, payload);
  }

  /**
   * Joined parts from `at` on: the effects (JSON, or a warm call's compact form:
   * `hotParts.ts`), then their payloads, each after a separator. The last payload is
   * taken as the rest of the string (a 4 MB answer is never searched for a separator).
   */
  private applyJoined(joined: string, at: number): void {
    const end = joined.indexOf(SEPARATOR, at);
    const effects = effectsOf(end === -1 ? joined.slice(at) : joined.slice(at, end));
    let left = 0;
    for (const effect of effects) if (effect.type === 'send' || effect.type === 'reply' || effect.type === 'notifyClient') left += 1;
    let next = end;
    const payload = (): string => {
      if (next === -1) return '';
      const start = next + 1;
      left -= 1;
      next = left > 0 ? joined.indexOf(SEPARATOR, start) : -1;
      return next === -1 ? joined.slice(start) : joined.slice(start, next);
    };
    for (const effect of effects) this.apply(effect, payload);
  }

  /**
   * One event into the engine. Messages cross on their own, never escaped inside
   * JSON, as UTF-8 bytes (Buffer.from encodes natively; wasm-bindgen would copy a
   * string's ASCII part character by character).
   */
  private cross(event: EngineEvent): Parts {
    const now = this.now();
    switch (event.type) {
      case 'messageReceived':
        return this.engine.messageReceived(now, event.conn, utf8(event.message));
      case 'clientMessage': {
        const endpoint = event.endpoint.kind === 'server' ? event.endpoint.name : undefined;
        return this.engine.clientMessage(now, event.client, endpoint, utf8(event.message));
      }
      case 'catalogueLoaded':
        return this.engine.catalogueLoaded(now, utf8(event.blob));
      default:
        return this.engine.handleSplit(now, JSON.stringify(event));
    }
  }

  private apply(effect: Effect, payload: () => string): void {
    switch (effect.type) {
      case 'open':
        return this.open(effect.conn, effect.server, effect.transport, effect.interactive, effect.oauth ?? undefined, effect.maxMessageBytes, effect.shared ?? undefined);
      case 'startSignIn':
        return this.startSignIn(effect);
      case 'cancelSignIn':
        return this.deps.auth?.cancel(effect.oauth.url);
      case 'refreshTokens':
        return this.refreshTokens(effect.server, effect.oauth);
      case 'requireScopes':
        return void this.authWork(effect.server, this.deps.auth?.requireScopes(effect.oauth, effect.scope));
      case 'deleteTokens':
        return void this.authWork(effect.server, this.deps.auth?.deleteTokens(effect.oauth, effect.forgetClient));
      case 'abortRequest':
        return this.connections.get(effect.conn)?.abort?.(effect.id);
      case 'httpTransport':
        return this.connections.get(effect.conn)?.setTransport?.(effect.mode);
      case 'send': {
        const message = payload();
        // The effect says what the connection needs (headers, request id, when to open its stream).
        return this.connections.get(effect.conn)?.send(message, effect);
      }
      case 'close': {
        const c = this.connections.get(effect.conn);
        this.connections.delete(effect.conn);
        if (c?.pid !== undefined) this.forgetPid(c.pid);
        if (c) this.track(c.close(effect.idle === true));
        return;
      }
      case 'wakeAt': {
        clearTimeout(this.wake);
        // Node fires a longer delay at once: wake earlier instead, the engine names its deadline again.
        this.wake = setTimeout(
          () => {
            this.wake = undefined;
            this.handle({ type: 'timeout' });
          },
          Math.min(Math.max(0, effect.atMs - this.now()), MAX_TIMEOUT_MS),
        );
        this.wake.unref();
        return;
      }
      case 'reply':
        return this.deps.deliverToClient(effect.client, payload(), { reply: true, id: effect.id, httpStatus: effect.httpStatus });
      case 'notifyClient':
        return this.deps.deliverToClient(effect.client, payload(), { reply: false, progressToken: effect.progressToken, request: effect.request });
      case 'clientSettled':
        return this.deps.onClientSettled?.(effect.client);
      case 'readEmbeddingTable':
        return this.enqueue({ type: 'readEmbeddingTable' });
      case 'closeClient':
        return this.deps.closeClient?.(effect.client);
      case 'startDefinition': {
        const { endpoint, version } = effect;
        const started = this.deps.definitions?.start(endpoint) ?? Promise.reject(new Error('this host offers no definitions'));
        started.then(
          () => this.handle({ type: 'definitionStarted', endpoint, version, failed: false }),
          () => this.handle({ type: 'definitionStarted', endpoint, version, failed: true }),
        );
        return;
      }
      case 'stopDefinition':
        this.deps.definitions?.stop(effect.endpoint).then(undefined, (err: unknown) => this.deps.log('debug', `could not close the client's session of a definition: ${String(err)}`));
        return;
      case 'persistCatalogue': {
        this.lastBlob = effect.blob;
        const blob = effect.blob;
        this.persisting = this.persisting
          .then(() => this.deps.store.write(blob))
          .catch((err: unknown) => this.deps.log('error', `could not store the catalogue: ${String(err)}`));
        return;
      }
      case 'readSharedCatalogue':
        return this.readSharedCatalogue(effect.server, effect.keys);
      case 'writeSharedCatalogue': {
        const { key, blob } = effect;
        const store = this.deps.sharedCatalogue;
        if (!store) return;
        this.persisting = this.persisting
          .then(() => store.write(key, blob))
          .catch((err: unknown) => this.deps.log('warn', `could not store the shared catalogue entry ${key}: ${String(err)}`));
        return;
      }
      case 'writeApprovedDefinitions': {
        // Atomic (temp file + rename): another process reading it never sees half a file.
        const { path: file, content } = effect;
        this.writingApprovals = this.writingApprovals
          .then(() => new BlobFile(file).write(content))
          .catch((err: unknown) => this.deps.log('error', `could not write ${file}: ${String(err)}`));
        return;
      }
      case 'log':
        return this.deps.log(effect.level, effect.message, effect.server ?? undefined);
      case 'stateChanged':
      case 'serverRemoved':
        return this.deps.onStateChanged?.();
      case 'catalogueSettled':
        return this.deps.onCatalogueSettled?.();
      case 'endpointsChanged':
        return this.deps.onEndpointsChanged?.(effect.endpoints, effect.aggregate ?? undefined);
      case 'readFiles':
        return void answerReadFiles(effect, this.deps.core.limits().configFileMaxBytes).then((answer) => this.handle(answer));
      case 'watchFiles':
        return this.deps.onWatchFiles?.(effect.paths);
      case 'configLoaded':
        return this.deps.onConfigLoaded?.(effect.report);
      case 'announce':
        if (this.deps.onAnnounce)
          return this.deps.onAnnounce({ level: effect.level, server: effect.server ?? undefined, message: effect.message, actions: effect.actions, servers: effect.servers ?? undefined });
        return this.deps.log(effect.level, effect.message, effect.server ?? undefined);
    }
  }

  /** The first of `keys` whose file exists (else none) is the answer; the server waits for it. */
  private readSharedCatalogue(server: string, keys: string[]): void {
    const store = this.deps.sharedCatalogue;
    const first = keys[0] ?? '';
    const answer = async (): Promise<Extract<EngineEvent, { type: 'sharedCatalogueRead' }>> => {
      for (const key of keys) {
        const found = await store?.read(key);
        if (found?.blob !== undefined) return { type: 'sharedCatalogueRead', server, key, file: found.file, blob: found.blob };
      }
      return { type: 'sharedCatalogueRead', server, key: first, file: first, blob: null };
    };
    void answer()
      .catch((err: unknown) => {
        this.deps.log('warn', `could not read the shared catalogue: ${String(err)}`);
        return { type: 'sharedCatalogueRead' as const, server, key: first, file: first, blob: null };
      })
      .then((event) => this.handle(event));
  }

  private startSignIn({ server, oauth, reason, toolName, scope, attempt }: Extract<Effect, { type: 'startSignIn' }>): void {
    const auth = this.deps.auth;
    const flow = auth
      ? auth.signIn(oauth, { server, reason, ...(toolName != null ? { toolName } : {}) }, scope ?? undefined)
      : Promise.resolve({ outcome: 'failed' as const, message: 'this host cannot sign in' });
    this.authWork(
      server,
      flow.then((r) => this.handle({ type: 'signInFinished', server, outcome: r.outcome, message: r.message, attempt })),
    );
  }

  private refreshTokens(server: string, oauth: OAuthBinding): void {
    const auth = this.deps.auth;
    const flow = auth ? auth.refresh(oauth) : Promise.resolve({ outcome: 'failed' as const, message: 'this host cannot refresh a sign-in' });
    this.authWork(
      server,
      flow.then((r) => this.handle({ type: 'refreshFinished', server, outcome: r.outcome, message: r.message })),
    );
  }

  /** Sign-in I/O in the background: a failure is logged (masked), never thrown into the engine loop. */
  private authWork(server: string, work: Promise<void> | undefined): void {
    if (work === undefined) return;
    this.track(
      work.catch((err: unknown) => this.deps.log('error', this.masked(server, `sign-in storage failed: ${err instanceof Error ? err.message : String(err)}`), server)),
    );
  }

  private track(closing: Promise<void>): void {
    const settled = closing.catch(() => undefined).finally(() => this.closing.delete(settled));
    this.closing.add(settled);
  }

  private forgetPid(pid: number): void {
    for (const [server, p] of this.pids) if (p === pid) this.pids.delete(server);
  }

  private open(
    conn: number,
    server: string,
    transport: Transport,
    interactive: boolean,
    oauth: OAuthBinding | undefined,
    maxMessageBytes: number,
    shared: SharedLaunch | undefined,
  ): void {
    const resolved = this.deps.resolveTransport ? this.deps.resolveTransport(server, transport, interactive) : Promise.resolve(transport);
    // The stored access token is read before the connection opens (the store may be a file another process wrote).
    const tokenLoaded = oauth !== undefined && this.deps.auth ? this.deps.auth.load(oauth) : Promise.resolve();
    Promise.all([resolved, tokenLoaded]).then(
      ([t]) => {
        // What connect-time variables became is secret: the engine masks it in text about the server.
        if (t !== transport) this.handle({ type: 'transportResolved', server, original: transport, resolved: t });
        this.connect(conn, server, t, oauth, maxMessageBytes, shared);
      },
      (err: unknown) =>
        this.handle({ type: 'connectionClosed', conn, reason: err instanceof Error ? err.message : String(err), exitCode: null, stderrTail: null }),
    );
  }

  /** A connection's own line about `server`, its secret values masked by the core. */
  private masked(server: string, text: string): string {
    try {
      return this.deps.core.call(() => this.engine.maskText(server, text));
    } catch {
      return `(a line about ${server} withheld: the core could not mask it)`;
    }
  }

  private connect(conn: number, server: string, transport: Transport, oauth: OAuthBinding | undefined, maxMessageBytes: number, shared?: SharedLaunch): void {
    if (this.stopped) return;
    const auth = this.deps.auth;
    const connectionAuth =
      oauth !== undefined && auth !== undefined
        ? {
            token: () => auth.accessToken(oauth.url),
            // The refused message goes back to the engine, which holds it until signed in.
            onChallenge: (status: number, challenge: string | undefined, hadToken: boolean, refused: RefusedSend) =>
              this.handle({ type: 'authRequired', conn, status, challenge: challenge ?? null, hadToken, ...refused }),
          }
        : undefined;
    // The core's `shared`: attach to the per-user owner's process instead of spawning (docs/shared-servers.md).
    const owner = this.deps.sharedOwner;
    const open: typeof openConnection =
      shared !== undefined && owner !== undefined && transport.type === 'stdio'
        ? (t, events, opts) => openSharedConnection(owner, shared, t as StdioTransport, events, opts ?? {})
        : openConnection;
    const connection = open(
      transport,
      {
        onOpened: ({ pid }) => {
          if (pid !== undefined) this.pids.set(server, pid);
          this.handle({ type: 'connectionOpened', conn, pid: pid ?? null });
        },
        onShared: (clients, holders) => this.handle({ type: 'connectionShared', conn, clients, holders }),
        // HTTP: the engine bounds the first exchange and answers it with `httpTransport`.
        onConnectStarted: () => this.handle({ type: 'connectStarted', conn }),
        onConnectAnswered: (status) => this.handle({ type: 'connectAnswered', conn, status }),
        onMessage: (message) => this.handle({ type: 'messageReceived', conn, message }),
        // Crosses at once (unless the engine is busy, then the end is reported anyway): the answer
        // tells the connection whether the reply's end still matters, so a warm call crosses twice.
        onReplyMessage: (requestId, message) => {
          const reply: ReplyMessage = { type: 'replyMessage', conn, requestId, message, awaited: true };
          this.enqueue(reply);
          return reply.awaited;
        },
        onReplyEnded: (requestId, reason, httpStatus) => this.handle({ type: 'replyEnded', conn, requestId, reason, httpStatus: httpStatus ?? null }),
        onClosed: (info) => {
          if (!this.connections.has(conn)) return; // closed on the engine's request
          this.connections.delete(conn);
          this.pids.delete(server);
          // The engine decides which statuses matter (401/403 ⇒ NEEDS AUTH).
          if (info.httpStatus !== undefined) this.handle({ type: 'httpStatus', conn, status: info.httpStatus });
          this.handle({ type: 'connectionClosed', conn, reason: info.reason, exitCode: info.exitCode ?? null, stderrTail: info.stderrTail || null });
        },
        onStderr: (line) => this.deps.log('debug', this.masked(server, line), server),
      },
      {
        cwdFallback: this.deps.cwdFallback,
        log: (level, msg) => this.deps.log(level, this.masked(server, msg), server),
        ...(connectionAuth !== undefined ? { auth: connectionAuth } : {}),
        http: this.deps.core.httpPolicy(),
        stdio: this.deps.core.limits().stdio,
        maxMessageBytes,
        server,
      },
    );
    this.connections.set(conn, connection);
  }
}

/** The longest delay `setTimeout` keeps (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** A message's UTF-8 bytes: as read from the wire, or encoded from text. */
function utf8(message: string | Uint8Array): Uint8Array {
  return typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
}
