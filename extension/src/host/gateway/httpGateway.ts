// The loopback MCP gateway (Streamable HTTP, server side). Clients (VS Code's MCP
// client, any MCP client of `lazy-mcp serve --http`) talk to it; it hands every
// message to the handler (the core's driver) and routes what comes back.
// `/mcp` is the aggregate endpoint; `/mcp/<server>` is one upstream server.
import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import { admit } from './loopbackGuard';
import { type ClientBody, type ClientRoute, type JsonRpcId, type RequestHeaders, errorResponse } from './jsonRpcShape';
import { SseStream } from './sseStream';
import type { GatewayLimits, LogLevel } from '../../core/contract.generated';

export interface GatewaySession {
  readonly id: string;
  /** '' for the aggregate endpoint, else the server name. */
  readonly endpoint: string;
}

export interface GatewayHandler {
  hasEndpoint(endpoint: string): boolean;
  /**
   * A POST body (its bytes, never decoded here) read and served by the core in
   * one crossing: its messages with their routing (depth checked first: the
   * gateway never parses or re-serializes a client's JSON), and `deliver()`,
   * which hands on what the engine answered (answers come back through the
   * gateway's `deliver`). The core serves the messages only when the gateway
   * takes the body: not refused with a status, and in `session` (`inSession`),
   * opening it (`opensSession`) or `sessionless`; `session` is the one the body
   * came with or the one the gateway will open for it.
   */
  takeBody(session: GatewaySession, inSession: boolean, body: Uint8Array, headers: RequestHeaders): { body: ClientBody; deliver: () => void };
  onSessionClosed(session: GatewaySession): void;
  /** The session's GET stream opened or closed (the core's `clientStreamOpened`/`Closed`: a session listening is in use). */
  onStreamChanged?(session: GatewaySession, open: boolean): void;
}

export interface GatewayOptions {
  token: string;
  /** false: accept requests without the token (CLI `--no-auth`, testing only). Default true. */
  requireToken?: boolean;
  port?: number;
  log: (level: Exclude<LogLevel, 'debug'>, message: string) => void;
  /**
   * Its I/O bounds, the core's (host_limits.rs: `WasmCore.limits().gateway`). Sessions are
   * the gateway's (an HTTP transport object: `Mcp-Session-Id`, its streams), their policy the
   * engine's (engine/clients/gateway_sessions.rs: idle timeout, cap): it hears of each body
   * (`takeBody`), stream (`onStreamChanged`) and end (`onSessionClosed`) and says which
   * session to end (`closeSession`). A client of an ended session gets 404 and starts a new
   * one, as the MCP spec says.
   */
  limits: GatewayLimits;
}

interface PostExchange {
  /**
   * Request ids still waiting for their response on this exchange. The gateway alone
   * keeps them: an answer (`reply`) or the client's cancellation (the body's routing
   * names what a `notifications/cancelled` cancels; the engine answers no cancelled
   * request) ends the wait.
   */
  pending: Set<JsonRpcId>;
  /** Error answers with `id: null` still due (messages whose id could not be read). */
  anonymous: number;
  /** Progress tokens of its requests (undefined: none, the usual call). */
  progressTokens: Set<JsonRpcId> | undefined;
  /** The HTTP status the engine gave an answer (a modern-era error); a single JSON reply carries it. */
  httpStatus?: number;
  /** Messages produced while the handler ran synchronously (may become a JSON reply). */
  buffered: string[] | undefined;
  stream: SseStream | undefined;
  res: http.ServerResponse;
}

interface SessionState extends GatewaySession {
  /**
   * Its POSTs still answering, oldest first. An array, not a `Set`: a session lives long
   * and gains and loses an exchange per call, and V8's `Set` replaces its table every few
   * of those while the old table keeps pointing to the new one (for its iterators). Once
   * one table is in the old generation, that chain keeps every later table, and the
   * exchanges (requests, responses, streams) in them, alive through two scavenges:
   * about 3 KB promoted per call at concurrency 8, and a mark-compact every ~10 scavenges
   * (bench/results/gateway-profile.md).
   */
  exchanges: PostExchange[];
  getStream: SseStream | undefined;
  /** Messages with no open stream yet, delivered when the client opens its GET stream. */
  backlog: string[];
  /** Serves one sessionless (modern-era) body and ends with it; never named to the client. */
  oneShot?: boolean;
  /** Its reply headers, made on first use (`replyHeaders`). */
  headers?: ReplyHeaders;
}

export class HttpGateway {
  private server: http.Server | undefined;
  private port = 0;
  private readonly sessions = new Map<string, SessionState>();
  /** The bearer secret's bytes, made once (undefined: no bearer check). */
  private readonly tokenBytes: Buffer | undefined;
  /** The sessions the last core trap ended (`endSessions`), and why: their 404 says so. */
  private ended: { ids: Set<string>; why: string } | undefined;

  constructor(
    private readonly handler: GatewayHandler,
    private readonly options: GatewayOptions,
  ) {
    this.tokenBytes = options.requireToken === false ? undefined : Buffer.from(options.token);
  }

  async start(): Promise<number> {
    const server = http.createServer((req, res) => this.guarded(res, undefined, () => this.onRequest(req, res)));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Loopback only, always: nothing else on the network may reach upstream servers.
      server.listen(this.options.port ?? 0, '127.0.0.1', () => resolve());
    });
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this.port;
  }

  url(endpoint = ''): string {
    return `http://127.0.0.1:${this.port}/mcp${endpoint ? `/${encodeURIComponent(endpoint)}` : ''}`;
  }

  /**
   * Deliver one message from the core to a client session, routed as the engine
   * said (`how`): the message is never parsed.
   */
  deliver(sessionId: string, message: string, how: ClientRoute): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const anonymous = how.reply && how.id === null;
    for (const ex of session.exchanges) {
      const mine = how.reply
        ? how.id === null
          ? ex.anonymous > 0
          : ex.pending.has(how.id)
        : (how.progressToken != null && ex.progressTokens?.has(how.progressToken) === true) || (how.request != null && ex.pending.has(how.request));
      if (!mine) continue;
      if (how.reply && how.httpStatus != null) ex.httpStatus = how.httpStatus;
      if (anonymous) ex.anonymous -= 1;
      else if (how.reply && how.id !== null) ex.pending.delete(how.id);
      // The last answer ends the stream in the same write.
      if (how.reply && settled(ex) && ex.buffered === undefined) this.finish(session, ex, message);
      else this.writeTo(session, ex, message);
      return;
    }
    // Unrelated to an open request: the GET stream, else any open exchange, else the backlog.
    if (session.getStream?.isOpen) return session.getStream.send(message);
    const anyStream = session.exchanges.find((ex) => ex.stream?.isOpen);
    if (anyStream?.stream) return anyStream.stream.send(message);
    if (session.backlog.length < this.options.limits.maxBacklog) session.backlog.push(message);
    else this.options.log('warn', `gateway: session ${sessionId} backlog full; dropped a message`);
  }

  /** Whether a client of the endpoint is waiting for an answer now. */
  isAnswering(endpoint: string): boolean {
    return [...this.sessions.values()].some((s) => s.endpoint === endpoint && s.exchanges.length > 0);
  }

  sessionsOf(endpoint: string): string[] {
    return [...this.sessions.values()].filter((s) => s.endpoint === endpoint).map((s) => s.id);
  }

  /** End a session, as the engine said (`closeClient`: idle, or beyond the cap). */
  closeSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session) this.dropSession(session);
  }

  /** End every session of an endpoint (server removed or disabled). */
  closeEndpoint(endpoint: string): void {
    for (const s of [...this.sessions.values()]) if (s.endpoint === endpoint) this.dropSession(s);
  }

  /**
   * The engine that knew every session is gone (the core trapped): each session ends, every
   * request still waiting is answered with `why`, and nobody is told (the fresh engine never knew
   * them). A later request of one of them gets 404 with `why`: its client starts a new session.
   */
  endSessions(why: string): void {
    this.ended = { ids: new Set(this.sessions.keys()), why };
    for (const s of [...this.sessions.values()]) this.dropSession(s, why);
  }

  async stop(): Promise<void> {
    for (const s of [...this.sessions.values()]) this.dropSession(s);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Runs one request's work: an exception there (a bug, or input that got past the
   * checks) answers that request with -32603 and is logged; the process serves on.
   */
  private guarded(res: http.ServerResponse, ex: PostExchange | undefined, work: () => void): void {
    try {
      work();
    } catch (err) {
      this.options.log('error', `gateway: internal error while serving a request: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      this.failPending(res, ex, 'Internal error in Lazy MCP while serving this request (details in its log)');
    }
  }

  /** Answers every request `ex` still waits for with -32603 `why` (no `ex`: one error, id null), and ends `res`. */
  private failPending(res: http.ServerResponse, ex: PostExchange | undefined, why: string): void {
    const answers = ex ? [...ex.pending].map((id) => errorResponse(id, -32603, why)) : [];
    for (let i = 0; ex && i < ex.anonymous; i++) answers.push(errorResponse(null, -32603, why));
    if (ex) {
      ex.pending.clear();
      ex.anonymous = 0;
    }
    try {
      if (!res.headersSent) {
        const body = answers.length > 1 ? `[${answers.join(',')}]` : (answers[0] ?? errorResponse(null, -32603, why));
        res.writeHead(500, { 'Content-Type': 'application/json' }).end(body);
      } else {
        for (const a of answers) ex?.stream?.send(a);
        res.end();
      }
    } catch {
      res.destroy();
    }
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const admission = admit(req.headers, this.port, this.tokenBytes);
    if (!admission.ok) {
      this.options.log('warn', `gateway: rejected ${req.method} ${req.url} with ${admission.status}: ${admission.reason}`);
      res.writeHead(admission.status, admission.headers).end(admission.body);
      return;
    }
    const endpoint = this.endpointOf(req.url ?? '');
    if (endpoint === undefined || !this.handler.hasEndpoint(endpoint)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('No such MCP endpoint\n');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && (!session || session.endpoint !== endpoint)) {
      // 404 tells the client to start a new session (spec).
      const why = this.ended?.ids.has(sessionId) === true ? this.ended.why : 'Session not found';
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(errorResponse(null, -32001, why));
      return;
    }
    switch (req.method) {
      case 'POST':
        return this.onPost(req, res, endpoint, session);
      case 'GET':
        return this.onGet(res, session);
      case 'DELETE':
        if (session) this.dropSession(session);
        res.writeHead(session ? 200 : 400).end();
        return;
      default:
        res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();
    }
  }

  private endpointOf(url: string): string | undefined {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (path === '/mcp' || path === '/mcp/') return '';
    if (!path.startsWith('/mcp/')) return undefined;
    try {
      return decodeURIComponent(path.slice(5));
    } catch {
      return undefined;
    }
  }

  private onGet(res: http.ServerResponse, session: SessionState | undefined): void {
    if (!session) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('Mcp-Session-Id required\n');
      return;
    }
    session.getStream?.end();
    const stream = new SseStream(res, sseHeaders, this.options.limits, true);
    res.on('close', () => {
      stream.closed();
      if (session.getStream !== stream) return;
      session.getStream = undefined;
      // Not for a session that ended (the engine forgot it): only a listener leaving one still open.
      if (this.sessions.get(session.id) === session) this.handler.onStreamChanged?.(session, false);
    });
    session.getStream = stream;
    this.handler.onStreamChanged?.(session, true);
    for (const m of session.backlog.splice(0)) stream.send(m);
  }

  private onPost(req: http.IncomingMessage, res: http.ServerResponse, endpoint: string, existing: SessionState | undefined): void {
    const limit = this.options.limits.maxBodyBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (res.headersSent) return;
      size += c.length;
      if (size > limit) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (res.writableEnded || res.headersSent) return;
      const headers: RequestHeaders = { protocolVersion: headerText(req, 'mcp-protocol-version'), method: headerText(req, 'mcp-method'), name: headerText(req, 'mcp-name') };
      // One chunk (the usual small body) is the body: no copy.
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      this.guarded(res, undefined, () => this.onBody(res, endpoint, existing, bytes, headers));
    });
  }

  private onBody(res: http.ServerResponse, endpoint: string, existing: SessionState | undefined, bytes: Buffer, headers: RequestHeaders): void {
    // A body without a session gets this id if the gateway opens one for it.
    const sessionId = existing?.id ?? randomUUID();
    const { body, deliver } = this.handler.takeBody({ id: sessionId, endpoint: existing?.endpoint ?? endpoint }, existing !== undefined, bytes, headers);
    const messages = body.messages;
    const refused = body.batch ? undefined : messages[0]?.error;
    if (refused?.status !== undefined) {
      // The core answered it with an HTTP status (a modern-era request's envelope or headers).
      res.writeHead(refused.status, { 'Content-Type': 'application/json' }).end(errorResponse(messages[0]?.id ?? null, refused.code, refused.message, refused.data));
      return;
    }
    let session = existing;
    if (!session && body.sessionless) {
      // The modern era has no sessions: a session of our own for this body only,
      // so answers and progress route as usual; ended when the body is answered.
      session = { id: sessionId, endpoint, exchanges: [], getStream: undefined, backlog: [], oneShot: true };
      this.sessions.set(session.id, session);
    }
    if (!session) {
      if (!body.opensSession) {
        const only = body.batch ? undefined : messages[0];
        const error = only?.error
          ? errorResponse(only.id, only.error.code, only.error.message)
          : errorResponse(null, -32600, 'Mcp-Session-Id header required (send initialize first)');
        res.writeHead(400, { 'Content-Type': 'application/json' }).end(error);
        return;
      }
      session = { id: sessionId, endpoint, exchanges: [], getStream: undefined, backlog: [] };
      this.sessions.set(session.id, session);
    }
    // The requests' ids, unreadable ids and progress tokens, in one pass (no arrays made per call).
    let requests = 0;
    let anonymous = 0;
    let pending: Set<JsonRpcId> | undefined;
    let progressTokens: Set<JsonRpcId> | undefined;
    for (const m of messages) {
      if (m.cancels !== undefined) {
        // A request of this very body, cancelled in it, is not waited for either.
        if (pending?.delete(m.cancels) !== true) this.cancelled(session, m.cancels);
      }
      if (!m.expectsReply) continue;
      requests += 1;
      if (m.id === null) anonymous += 1;
      else (pending ??= new Set()).add(m.id);
      if (m.progressToken !== undefined) (progressTokens ??= new Set()).add(m.progressToken);
    }
    if (requests === 0) {
      res.writeHead(202, replyHeaders(session).id).end();
      deliver();
      if (session.oneShot) this.dropSession(session);
      return;
    }
    const ex: PostExchange = { pending: pending ?? new Set(), anonymous, progressTokens, buffered: [], stream: undefined, res };
    const open = session;
    open.exchanges.push(ex);
    // The exchange's one 'close' listener (its stream, if any, has none of its own).
    res.on('close', () => {
      ex.stream?.closed();
      removeExchange(open, ex);
      // A one-shot session whose client went away: its calls are cancelled.
      if (open.oneShot && this.sessions.get(open.id) === open) this.dropSession(open);
    });
    this.guarded(res, ex, () => {
      deliver();
      // Answered synchronously (lists from the catalogue): one plain JSON reply.
      const buffered = ex.buffered ?? [];
      ex.buffered = undefined;
      // Only the responses were produced (no progress or server requests): reply as JSON.
      if (settled(ex) && buffered.length === requests) {
        const payload = body.batch ? `[${buffered.join(',')}]` : (buffered[0] ?? '');
        removeExchange(open, ex);
        // A batch has one status; a single answer the status the engine gave it.
        const status = body.batch ? 200 : (ex.httpStatus ?? 200);
        res.writeHead(status, replyHeaders(open).json).end(payload);
        if (open.oneShot) this.dropSession(open);
        return;
      }
      // A modern-era request still waiting, with nothing to stream yet: the
      // headers wait too (as the SDK v2 server's default), so an answer the core
      // gives a status (404, 400) gets it, whoever answered; anything streamed
      // first opens the stream (`writeTo`), and so does a long wait, before a
      // client's header timeout (the core's `deferredHeadersMs`).
      if (open.oneShot && !body.batch && buffered.length === 0 && !settled(ex)) {
        const later = setTimeout(() => {
          if (!ex.stream && !ex.res.headersSent && open.exchanges.includes(ex)) this.openStream(open, ex, true);
        }, this.options.limits.deferredHeadersMs);
        later.unref();
        ex.res.on('close', () => clearTimeout(later));
        return;
      }
      this.openStream(open, ex);
      for (const m of buffered) ex.stream?.send(m);
      if (settled(ex)) this.finish(open, ex);
    });
  }

  /**
   * The client cancelled its request `id`: the engine will not answer it, so its exchange
   * stops waiting for it, and ends its stream, sending nothing more, once no other answer
   * is due on it.
   */
  private cancelled(session: SessionState, id: JsonRpcId): void {
    for (const ex of session.exchanges) {
      if (!ex.pending.delete(id)) continue;
      if (settled(ex)) this.finish(session, ex);
      return;
    }
  }

  private openStream(session: SessionState, ex: PostExchange, flushNow = false): void {
    ex.stream = new SseStream(ex.res, replyHeaders(session).sse, this.options.limits, flushNow);
  }

  private writeTo(session: SessionState, ex: PostExchange, message: string): void {
    if (ex.buffered) return void ex.buffered.push(message);
    // A deferred exchange streams from its first message that is not the answer.
    if (!ex.stream && !ex.res.headersSent) this.openStream(session, ex);
    ex.stream?.send(message);
  }

  /** The exchange is answered: its stream ends, with `last` as its final event. */
  private finish(session: SessionState, ex: PostExchange, last?: string): void {
    removeExchange(session, ex);
    if (!ex.stream && !ex.res.headersSent) {
      // Deferred, and the answer is all there is: plain JSON with the core's status.
      if (last !== undefined) ex.res.writeHead(ex.httpStatus ?? 200, replyHeaders(session).json).end(last);
      // Nothing at all (its request cancelled): an empty 202, not a response left open.
      else ex.res.writeHead(202, replyHeaders(session).id).end();
    } else ex.stream?.end(last);
    if (session.oneShot && this.sessions.get(session.id) === session) this.dropSession(session);
  }

  /** `failWith`: the engine is gone (`endSessions`): requests waiting are answered with it, and nobody is told. */
  private dropSession(session: SessionState, failWith?: string): void {
    this.sessions.delete(session.id);
    const exchanges = session.exchanges;
    session.exchanges = [];
    for (const ex of exchanges) {
      if (failWith !== undefined) this.failPending(ex.res, ex, failWith);
      else if (ex.stream) ex.stream.end();
      else if (!ex.res.headersSent) ex.res.writeHead(404).end();
    }
    session.getStream?.end();
    if (failWith === undefined) this.handler.onSessionClosed(session);
  }
}

/** One header's value as text (the first of repeated ones). */
function headerText(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The headers of an event stream (a GET stream's; a POST's add the session's). */
const sseHeaders: Readonly<Record<string, string>> = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' };

/**
 * The header objects of a session's replies, made once per session (Node's
 * `writeHead` only reads them): its `Mcp-Session-Id` alone (none for a one-shot
 * session), with a JSON body, and of an event stream.
 */
function replyHeaders(session: SessionState): ReplyHeaders {
  if (session.headers === undefined) {
    const id: Record<string, string> = session.oneShot ? {} : { 'Mcp-Session-Id': session.id };
    session.headers = { id, json: { 'Content-Type': 'application/json', ...id }, sse: { ...sseHeaders, ...id } };
  }
  return session.headers;
}

interface ReplyHeaders {
  readonly id: Readonly<Record<string, string>>;
  readonly json: Readonly<Record<string, string>>;
  readonly sse: Readonly<Record<string, string>>;
}

/** The exchange no longer answers (its order among the others kept: the oldest open stream gets unrelated messages). */
function removeExchange(session: SessionState, ex: PostExchange): void {
  const at = session.exchanges.indexOf(ex);
  if (at !== -1) session.exchanges.splice(at, 1);
}

/** Every request of the exchange has its answer. */
function settled(ex: PostExchange): boolean {
  return ex.pending.size === 0 && ex.anonymous === 0;
}
