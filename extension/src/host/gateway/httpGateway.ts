// The loopback MCP gateway (Streamable HTTP, server side). Clients (VS Code's MCP
// client, any MCP client of `lazy-mcp serve --http`) talk to it; it hands every
// message to the handler (the core's driver) and routes what comes back.
// `/mcp` is the aggregate endpoint; `/mcp/<server>` is one upstream server.
import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import { admit } from './loopbackGuard';
import { type JsonRpcId, errorResponse, shapeOf } from './jsonRpcShape';
import { SseStream } from './sseStream';

export interface GatewaySession {
  readonly id: string;
  /** '' for the aggregate endpoint, else the server name. */
  readonly endpoint: string;
}

export interface GatewayHandler {
  hasEndpoint(endpoint: string): boolean;
  /** One JSON-RPC message from a client; answers come back through `deliver`. */
  onClientMessage(session: GatewaySession, message: string): void;
  onSessionClosed(session: GatewaySession): void;
}

export interface GatewayOptions {
  token: string;
  /** false: accept requests without the token (CLI `--no-auth`, testing only). Default true. */
  requireToken?: boolean;
  port?: number;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  maxBodyBytes?: number;
}

interface PostExchange {
  /** Request ids still waiting for their response on this exchange. */
  pending: Set<JsonRpcId>;
  progressTokens: Set<JsonRpcId>;
  /** Messages produced while the handler ran synchronously (may become a JSON reply). */
  buffered: string[] | undefined;
  stream: SseStream | undefined;
  res: http.ServerResponse;
}

interface SessionState extends GatewaySession {
  exchanges: Set<PostExchange>;
  getStream: SseStream | undefined;
  /** Messages with no open stream yet, delivered when the client opens its GET stream. */
  backlog: string[];
}

const backlogLimit = 256;

export class HttpGateway {
  private server: http.Server | undefined;
  private port = 0;
  private readonly sessions = new Map<string, SessionState>();

  constructor(
    private readonly handler: GatewayHandler,
    private readonly options: GatewayOptions,
  ) {}

  async start(): Promise<number> {
    const server = http.createServer((req, res) => this.onRequest(req, res));
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

  /** Deliver one message from the core to a client session. */
  deliver(sessionId: string, message: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      this.options.log('error', `gateway: dropped a non-JSON message for session ${sessionId}`);
      return;
    }
    const shape = shapeOf(parsed);
    for (const ex of session.exchanges) {
      const mine =
        (shape.isResponse && shape.id !== undefined && ex.pending.has(shape.id)) ||
        (shape.method === 'notifications/progress' && shape.progressToken !== undefined && ex.progressTokens.has(shape.progressToken));
      if (!mine) continue;
      this.writeTo(ex, message);
      if (shape.isResponse && shape.id !== undefined) {
        ex.pending.delete(shape.id);
        if (ex.pending.size === 0 && ex.buffered === undefined) this.finish(session, ex);
      }
      return;
    }
    // Unrelated to an open request: the GET stream, else any open exchange, else the backlog.
    if (session.getStream?.isOpen) return session.getStream.send(message);
    const anyStream = [...session.exchanges].find((ex) => ex.stream?.isOpen);
    if (anyStream?.stream) return anyStream.stream.send(message);
    if (session.backlog.length < backlogLimit) session.backlog.push(message);
    else this.options.log('warn', `gateway: session ${sessionId} backlog full; dropped a message`);
  }

  /** Send a message to every session of an endpoint (e.g. list_changed). */
  broadcast(endpoint: string, message: string): void {
    for (const s of this.sessions.values()) if (s.endpoint === endpoint) this.deliver(s.id, message);
  }

  sessionsOf(endpoint: string): string[] {
    return [...this.sessions.values()].filter((s) => s.endpoint === endpoint).map((s) => s.id);
  }

  /** End every session of an endpoint (server removed or disabled). */
  closeEndpoint(endpoint: string): void {
    for (const s of [...this.sessions.values()]) if (s.endpoint === endpoint) this.dropSession(s);
  }

  async stop(): Promise<void> {
    for (const s of [...this.sessions.values()]) this.dropSession(s);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const admission = admit(req, this.port, this.options.requireToken === false ? undefined : this.options.token);
    if (!admission.ok) {
      this.options.log('warn', `gateway: rejected ${req.method} ${req.url} with ${admission.status}: ${admission.reason}`);
      const headers: Record<string, string> = { 'Content-Type': 'text/plain' };
      if (admission.status === 401) headers['WWW-Authenticate'] = 'Bearer';
      res.writeHead(admission.status, headers).end(admission.status === 401 ? 'Unauthorized\n' : 'Forbidden\n');
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
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(errorResponse(null, -32001, 'Session not found'));
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
    const path = url.split('?')[0] ?? '';
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
    const stream = new SseStream(res, {}, () => {
      if (session.getStream === stream) session.getStream = undefined;
    });
    session.getStream = stream;
    for (const m of session.backlog.splice(0)) stream.send(m);
  }

  private onPost(req: http.IncomingMessage, res: http.ServerResponse, endpoint: string, existing: SessionState | undefined): void {
    const limit = this.options.maxBodyBytes ?? 16 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'Content-Type': 'application/json' }).end(errorResponse(null, -32700, 'Parse error: body is not JSON'));
        return;
      }
      const messages = Array.isArray(body) ? (body as unknown[]) : [body];
      const shapes = messages.map(shapeOf);
      const isInit = shapes.some((s) => s.method === 'initialize');
      let session = existing;
      if (!session) {
        if (!isInit) {
          res.writeHead(400, { 'Content-Type': 'application/json' }).end(errorResponse(null, -32600, 'Mcp-Session-Id header required (send initialize first)'));
          return;
        }
        session = { id: randomUUID(), endpoint, exchanges: new Set(), getStream: undefined, backlog: [] };
        this.sessions.set(session.id, session);
      }
      const requests = shapes.filter((s) => s.method !== undefined && s.id !== undefined);
      if (requests.length === 0) {
        res.writeHead(202, { 'Mcp-Session-Id': session.id }).end();
        for (const m of messages) this.handler.onClientMessage(session, JSON.stringify(m));
        return;
      }
      const ex: PostExchange = {
        pending: new Set(requests.map((s) => s.id as JsonRpcId)),
        progressTokens: new Set(requests.flatMap((s) => (s.progressToken !== undefined ? [s.progressToken] : []))),
        buffered: [],
        stream: undefined,
        res,
      };
      session.exchanges.add(ex);
      res.on('close', () => session.exchanges.delete(ex));
      for (const m of messages) this.handler.onClientMessage(session, JSON.stringify(m));
      // Answered synchronously (lists from the catalogue): one plain JSON reply.
      const buffered = ex.buffered ?? [];
      ex.buffered = undefined;
      // Only the responses were produced (no progress or server requests): reply as JSON.
      if (ex.pending.size === 0 && buffered.length === requests.length) {
        const payload = Array.isArray(body) ? `[${buffered.join(',')}]` : (buffered[0] ?? '');
        session.exchanges.delete(ex);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': session.id }).end(payload);
        return;
      }
      this.openStream(session, ex);
      for (const m of buffered) ex.stream?.send(m);
      if (ex.pending.size === 0) this.finish(session, ex);
    });
  }

  private openStream(session: SessionState, ex: PostExchange): void {
    ex.stream = new SseStream(ex.res, { 'Mcp-Session-Id': session.id }, () => session.exchanges.delete(ex));
  }

  private writeTo(ex: PostExchange, message: string): void {
    if (ex.buffered) ex.buffered.push(message);
    else ex.stream?.send(message);
  }

  private finish(session: SessionState, ex: PostExchange): void {
    session.exchanges.delete(ex);
    ex.stream?.end();
  }

  private dropSession(session: SessionState): void {
    this.sessions.delete(session.id);
    for (const ex of session.exchanges) {
      if (ex.stream) ex.stream.end();
      else if (!ex.res.headersSent) ex.res.writeHead(404).end();
    }
    session.exchanges.clear();
    session.getStream?.end();
    this.handler.onSessionClosed(session);
  }
}
