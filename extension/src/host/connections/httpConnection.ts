// HTTP transports: MCP Streamable HTTP, and the legacy HTTP+SSE transport
// (explicitly, or as the fallback the spec's backward-compatibility section
// describes). Which one to speak, and how long the first exchange may take,
// are the engine's: this connection reports when its first exchange starts
// and what answered it, and speaks what the engine's `httpTransport` says
// (`setTransport`). What each status and each network error means, and the
// timeouts, are the core's too (http_status.rs, http_request_error.rs,
// host_limits.rs: `ConnectionOptions.http`).
//
// Built on node:http/https rather than fetch: fetch (undici) ends a body that
// is silent for 300 s, which would cut the long-lived server→client SSE stream.

import * as http from 'node:http';
import * as https from 'node:https';
import { SseParser, type SseEvent } from './sseParser';
import type { HttpExchange, HttpMode, HttpVerdict } from '../../core/contract.generated';
import {
  type ClosedInfo,
  type Connection,
  type ConnectionAuth,
  type ConnectionEvents,
  type ConnectionOptions,
  type HttpPolicy,
  type HttpTransport,
  type LogSink,
  type SendMeta,
  type SseTransport,
} from './types';

/** One message to send, with what the core said about it (the connection never reads `json`). */
interface Outgoing {
  json: string;
  /** Per-message headers from the core (the protocol version, a modern-era request's method and target). */
  headers?: Record<string, string>;
  /** The request this message is (its answer is due), when it is one. */
  requestId?: number;
  /** Open the GET stream once the server accepted this message. */
  openEventStream: boolean;
}

export function openHttpConnection(
  transport: HttpTransport | SseTransport,
  events: ConnectionEvents,
  opts: ConnectionOptions,
): Connection {
  return new HttpConnection(transport, events, opts);
}

class HttpConnection implements Connection {
  readonly pid = undefined;
  private readonly log: LogSink;
  /** The core's `maxMessageBytes` for this server (a reply body, one SSE event). */
  private readonly maxMessageBytes: number;
  /** Names the server in errors about it. */
  private readonly serverLabel: string;
  private readonly url: URL | undefined;
  private readonly shownUrl: string;
  private readonly agent: http.Agent;
  private readonly policy: HttpPolicy;
  /** What the engine said this connection speaks (`setTransport`); `sse` is legacy from the start. */
  private mode: HttpMode;
  private sessionId: string | undefined;
  /**
   * The headers the core put on the message that opens the event stream: the session's own
   * (its protocol version), carried by the GET stream and the DELETE. Never read here.
   */
  private streamHeaders: Record<string, string> = {};
  /** Messages waiting for the probing POST's answer or for the legacy `endpoint` event. */
  private queue: Outgoing[] = [];
  private firstInFlight = false;
  /** The probing POST's answer, carried out once the engine said what it settled (`setTransport`). */
  private probeAnswered: (() => void) | undefined;
  private legacyEndpoint: URL | undefined;
  private getStreamOpened = false;
  private readonly active = new Set<http.ClientRequest>();
  /** The POST carrying each request still in flight, for `abort`. */
  private readonly postsById = new Map<number, http.ClientRequest>();
  private finished = false;
  private closing: Promise<void> | undefined;
  private readonly whenFinished: Promise<void>;
  private resolveFinished!: () => void;
  private readonly auth: ConnectionAuth | undefined;

  constructor(
    private readonly transport: HttpTransport | SseTransport,
    private readonly events: ConnectionEvents,
    opts: ConnectionOptions,
  ) {
    this.log = opts.log ?? (() => undefined);
    if (opts.http === undefined) throw new Error('an HTTP connection needs the core\'s rules (ConnectionOptions.http: WasmCore.httpPolicy())');
    this.policy = opts.http;
    if (events.onConnectAnswered === undefined) throw new Error("an HTTP connection needs the engine's word on its transport (events.onConnectAnswered, answered by setTransport)");
    this.maxMessageBytes = opts.maxMessageBytes ?? Infinity;
    this.serverLabel = opts.server !== undefined ? `MCP server '${opts.server}'` : 'the server';
    // Given only for servers the engine signs in with OAuth (never with a static Authorization header).
    this.auth = opts.auth;
    this.whenFinished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.mode = transport.type === 'sse' ? 'legacy' : 'probing';

    let url: URL | undefined;
    try {
      url = new URL(transport.url);
    } catch {
      url = undefined;
    }
    this.url = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') ? url : undefined;
    this.shownUrl = this.url !== undefined ? redactUrl(this.url) : '(invalid URL)';
    this.agent = this.url?.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });

    if (this.url === undefined) {
      setImmediate(() => this.finish({ reason: `cannot connect: "${transport.url.split('?')[0]}" is not an http(s) URL` }));
      return;
    }
    const headerKeys = Object.keys(transport.headers ?? {});
    this.log(
      'info',
      `${transport.type} ${this.shownUrl}: opening` + (headerKeys.length > 0 ? ` (headers: ${headerKeys.join(', ')})` : ''),
    );
    if (this.mode === 'legacy') {
      // Events never come from inside the constructor.
      setImmediate(() => {
        if (!this.finished && this.closing === undefined) this.openLegacyStream(false);
      });
    } else {
      setImmediate(() => {
        if (!this.finished) this.events.onOpened({});
      });
    }
  }

  send(json: string, meta: SendMeta = {}): void {
    if (this.finished || this.closing !== undefined) {
      this.log('warn', `${this.transport.type} ${this.shownUrl}: message dropped, the connection is closed`);
      return;
    }
    const msg: Outgoing = { json, requestId: meta.requestId, openEventStream: meta.openEventStream === true };
    if (meta.headers !== undefined && Object.keys(meta.headers).length > 0) msg.headers = meta.headers;
    if (msg.openEventStream && msg.headers !== undefined) this.streamHeaders = msg.headers;
    if (this.mode === 'legacy') {
      if (this.legacyEndpoint === undefined) this.queue.push(msg);
      else this.postLegacy(msg);
      return;
    }
    if (this.mode === 'probing') {
      if (this.firstInFlight) {
        this.queue.push(msg);
        return;
      }
      this.firstInFlight = true;
      this.events.onConnectStarted?.();
    }
    this.postStreamable(msg);
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutDown();
    return this.closing;
  }

  /**
   * OAuth: the core's `holdForSignIn`: the refused message goes back to the core with the
   * challenge (`onChallenge`); the core holds it and sends it again once signed in. With
   * `resendOrHoldForSignIn`, a request sent with a token that has been replaced since
   * (concurrent requests racing a refresh) is only sent again with the current one: its
   * refusal says nothing about the current token.
   */
  private refusedForAuth(verdict: HttpVerdict, status: number, res: http.IncomingMessage, msg: Outgoing, sentToken: string | undefined): boolean {
    const auth = this.auth;
    if (auth === undefined || (verdict !== 'holdForSignIn' && verdict !== 'resendOrHoldForSignIn')) return false;
    res.resume();
    const current = auth.token();
    if (verdict === 'resendOrHoldForSignIn' && current !== undefined && current !== sentToken) {
      this.log('debug', `http ${this.shownUrl}: a request sent with the previous token is sent again`);
      if (this.mode === 'legacy') this.postLegacy(msg);
      else this.send(msg.json, msg);
      return true;
    }
    this.log('info', `http ${this.shownUrl}: HTTP ${status}, the request waits for the sign-in`);
    auth.onChallenge(status, headerValue(res.headers['www-authenticate']), sentToken !== undefined, { message: msg.json });
    return true;
  }

  // --- Streamable HTTP -----------------------------------------------------------------------

  private postStreamable(msg: Outgoing): void {
    const url = this.url;
    if (url === undefined) return;
    const isFirst = this.mode === 'probing';
    const sentToken = this.auth?.token();
    const req = this.request('POST', url, {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...this.sessionIdHeader(),
      ...(msg.headers ?? {}),
    });
    req.on('response', (res) => {
      if (this.finished) return void res.resume();
      const sid = headerValue(res.headers['mcp-session-id']);
      if (sid !== undefined && sid !== this.sessionId) {
        this.sessionId = sid;
        this.log('debug', `http ${this.shownUrl}: session established`);
      }
      const status = res.statusCode ?? 0;
      if (!isFirst) return this.onPostAnswer(res, msg, url, status, sentToken);
      // The engine says what this status settles (`setTransport`); the reply waits unread.
      this.probeAnswered = () => this.onProbeAnswer(res, msg, url, status, sentToken);
      this.events.onConnectAnswered?.(status);
    });
    req.on('error', (err) => this.onRequestError(err, msg, isFirst));
    const id = msg.requestId;
    if (id !== undefined) this.postsById.set(id, req);
    req.on('close', () => {
      if (id !== undefined && this.postsById.get(id) === req) this.postsById.delete(id);
    });
    req.end(msg.json);
  }

  /**
   * The engine's `httpTransport`: what this connection speaks from now on. The answer to the
   * probing POST is carried out now: the reply read (or, for the legacy transport, dropped).
   */
  setTransport(mode: HttpMode): void {
    if (this.finished) return;
    this.mode = mode;
    const answered = this.probeAnswered;
    this.probeAnswered = undefined;
    answered?.();
  }

  /** The probing POST's answer, once the engine said what it settled. */
  private onProbeAnswer(res: http.IncomingMessage, msg: Outgoing, url: URL, status: number, sentToken: string | undefined): void {
    if (this.finished) return void res.resume();
    this.firstInFlight = false;
    if (this.mode === 'legacy') {
      res.resume();
      this.log('info', `http ${this.shownUrl}: POST answered ${status}, falling back to the legacy HTTP+SSE transport`);
      this.sessionId = undefined;
      this.queue.unshift(msg);
      this.openLegacyStream(true);
      return;
    }
    this.onPostAnswer(res, msg, url, status, sentToken);
    // Settled: what queued behind it goes out, with its session id. Held for a sign-in (still
    // probing), it waits for the answer to the POST sent again, which probes.
    if (this.mode !== 'streamable') return;
    const queued = this.queue;
    this.queue = [];
    for (const m of queued) this.postStreamable(m);
  }

  /** A Streamable HTTP POST's answer: its status as the core reads it, then its reply. */
  private onPostAnswer(res: http.IncomingMessage, msg: Outgoing, url: URL, status: number, sentToken: string | undefined): void {
    const verdict = this.verdict('post', status);
    if (this.refusedForAuth(verdict, status, res, msg, sentToken)) return;
    if (this.endsConnection(verdict, status, res)) return;
    if (verdict === 'accept' || verdict === 'noReply') {
      if (msg.openEventStream) this.openGetStream();
      this.readReply(res, msg, url, verdict === 'noReply');
    } else {
      this.readErrorReply(res, msg, status);
    }
  }

  /** The engine's `abortRequest`: the request was cancelled, end its POST (its answer is no longer wanted). */
  abort(id: number): void {
    const req = this.postsById.get(id);
    this.postsById.delete(id);
    if (req === undefined) return;
    this.log('debug', `http ${this.shownUrl}: request ${id} cancelled, its POST aborted`);
    req.destroy();
  }

  /** A POST reply: JSON, an SSE stream of messages, or nothing (the core's `noReply`). */
  private readReply(res: http.IncomingMessage, msg: Outgoing, url: URL, noReply: boolean): void {
    const type = (headerValue(res.headers['content-type']) ?? '').toLowerCase();
    if (noReply) {
      // No reply body: any answer can only come on another stream.
      res.resume();
      return;
    }
    // Whether the core still awaits the request's answer: its reply's end matters only then.
    let awaited = true;
    if (type.startsWith('text/event-stream')) {
      this.readSse(
        res,
        (ev) => {
          if ((ev.event === '' || ev.event === 'message') && !this.deliverReply(msg, ev.data)) awaited = false;
        },
        () => {
          if (awaited) this.failUnanswered(msg, `the reply stream from ${redactUrl(url)} ended before the response`);
        },
        () => {
          if (awaited) this.failUnanswered(msg, this.tooLarge(`an event of the reply stream from ${redactUrl(url)}`));
        },
      );
      return;
    }
    readBody(res, Infinity, this.maxMessageBytes).then(
      (body) => {
        if (body.length > 0) awaited = this.deliverReply(msg, body);
        if (awaited) this.failUnanswered(msg, `${redactUrl(url)} answered HTTP ${res.statusCode} without a response`);
      },
      (err: unknown) =>
        this.failUnanswered(msg, err instanceof BodyTooLarge ? this.tooLarge(`the reply from ${redactUrl(url)}`) : `the reply from ${redactUrl(url)} was cut off`),
    );
  }

  /**
   * An error status: a JSON body goes to the core like any reply (a JSON-RPC error
   * there answers its request: MCP 2026-07-28 gives errors a status); then the reply's
   * end, with the status and the start of the body (the core fails the request if unanswered).
   */
  private readErrorReply(res: http.IncomingMessage, msg: Outgoing, status: number): void {
    const json = (headerValue(res.headers['content-type']) ?? '').toLowerCase().startsWith('application/json');
    readBody(res, this.policy.errorBodyMaxChars, this.maxMessageBytes).then(
      (body) => {
        const text = body.trim();
        const awaited = json && text !== '' ? this.deliverReply(msg, text) : true;
        const detail = text !== '' ? `: ${text.slice(0, 200)}` : '';
        if (awaited) this.failUnanswered(msg, `${this.shownUrl} answered HTTP ${status} ${res.statusMessage ?? ''}`.trimEnd() + detail, status);
      },
      () => this.failUnanswered(msg, `${this.shownUrl} answered HTTP ${status}`, status),
    );
  }

  /** The optional GET stream for server→client messages, opened once the core's `openEventStream` message was accepted. */
  private openGetStream(): void {
    const url = this.url;
    if (this.getStreamOpened || url === undefined || this.finished || this.closing !== undefined) return;
    this.getStreamOpened = true;
    const req = this.request('GET', url, { accept: 'text/event-stream', ...this.sessionHeaders() });
    req.on('response', (res) => {
      if (this.finished) return void res.resume();
      const status = res.statusCode ?? 0;
      const type = (headerValue(res.headers['content-type']) ?? '').toLowerCase();
      const verdict = this.verdict('eventStream', status);
      if (verdict === 'noEventStream') {
        res.resume();
        this.log('debug', `http ${this.shownUrl}: the server offers no GET stream (${status})`);
        return;
      }
      if (verdict === 'eventStreamLater') {
        // The POSTs report the challenge; the optional stream is opened again after the next `openEventStream` message.
        res.resume();
        this.getStreamOpened = false;
        return;
      }
      if (this.endsConnection(verdict, status, res)) return;
      if (verdict !== 'accept' || !type.startsWith('text/event-stream')) {
        res.resume();
        this.log('info', `http ${this.shownUrl}: GET stream not available (HTTP ${status})`);
        return;
      }
      this.log('debug', `http ${this.shownUrl}: GET stream open`);
      this.readSse(
        res,
        (ev) => {
          if (ev.event === '' || ev.event === 'message') this.deliver(ev.data);
        },
        () => {
          if (!this.finished && this.closing === undefined) this.log('info', `http ${this.shownUrl}: the GET stream ended`);
        },
        () => this.log('warn', `http ${this.shownUrl}: ${this.tooLarge('an event of the GET stream')}; that stream is closed`),
      );
    });
    req.on('error', (err) => {
      if (!this.finished && this.closing === undefined) this.log('info', `http ${this.shownUrl}: GET stream failed (${errorCode(err)})`);
    });
    req.end();
  }

  // --- legacy HTTP+SSE -----------------------------------------------------------------------

  private openLegacyStream(afterFallback: boolean): void {
    const url = this.url;
    if (url === undefined) return;
    this.events.onConnectStarted?.();
    const req = this.request('GET', url, { accept: 'text/event-stream' });
    req.on('response', (res) => {
      if (this.finished) return void res.resume();
      const status = res.statusCode ?? 0;
      const type = (headerValue(res.headers['content-type']) ?? '').toLowerCase();
      const verdict = this.verdict('legacyStream', status);
      if (this.endsConnection(verdict, status, res)) return;
      if (verdict !== 'accept' || !type.startsWith('text/event-stream')) {
        res.resume();
        const tried = afterFallback
          ? `neither Streamable HTTP (POST answered 4xx) nor legacy SSE (GET answered HTTP ${status}) works at ${this.shownUrl}`
          : `the legacy SSE endpoint ${this.shownUrl} answered HTTP ${status}` + (verdict === 'accept' ? ` with ${type || 'no content type'}` : '');
        this.closeWith({ reason: tried, httpStatus: status });
        return;
      }
      this.readSse(
        res,
        (ev) => this.onLegacyEvent(ev, url, status),
        () => this.closeWith({ reason: `the SSE stream from ${this.shownUrl} ended` }),
        () => this.closeWith({ reason: this.tooLarge(`an event of the SSE stream from ${this.shownUrl}`) }),
      );
    });
    req.on('error', (err) => {
      if (this.finished || this.closing !== undefined) return;
      this.closeWith({ reason: `cannot connect to ${this.shownUrl}: ${errorCode(err)}` });
    });
    req.end();
  }

  private onLegacyEvent(ev: SseEvent, base: URL, status: number): void {
    if (ev.event === 'endpoint') {
      let endpoint: URL;
      try {
        endpoint = new URL(ev.data.trim(), base);
      } catch {
        this.closeWith({ reason: `${this.shownUrl} sent an invalid endpoint` });
        return;
      }
      if (endpoint.origin !== base.origin) {
        // Configured headers (credentials) must never go to another origin.
        this.closeWith({ reason: `${this.shownUrl} sent an endpoint on another origin (${endpoint.origin})` });
        return;
      }
      const first = this.legacyEndpoint === undefined;
      this.legacyEndpoint = endpoint;
      if (first) {
        this.events.onConnectAnswered?.(status);
        this.log('info', `${this.transport.type} ${this.shownUrl}: legacy SSE endpoint received`);
        if (this.transport.type === 'sse') this.events.onOpened({});
        const queued = this.queue;
        this.queue = [];
        for (const m of queued) this.postLegacy(m);
      }
      return;
    }
    if (ev.event === '' || ev.event === 'message') this.deliver(ev.data);
  }

  private postLegacy(msg: Outgoing): void {
    const endpoint = this.legacyEndpoint;
    if (endpoint === undefined) return;
    const sentToken = this.auth?.token();
    const req = this.request('POST', endpoint, { 'content-type': 'application/json' });
    req.on('response', (res) => {
      if (this.finished) return void res.resume();
      const status = res.statusCode ?? 0;
      const verdict = this.verdict('legacyPost', status);
      if (this.refusedForAuth(verdict, status, res, msg, sentToken)) return;
      if (this.endsConnection(verdict, status, res)) return;
      if (verdict === 'accept' || verdict === 'noReply') {
        res.resume();
        return;
      }
      this.readErrorReply(res, msg, status);
    });
    req.on('error', (err) => this.onRequestError(err, msg, false));
    req.end(msg.json);
  }

  // --- shared --------------------------------------------------------------------------------

  /** What the core says an answer's status means (http_status.rs), with what this connection knows. */
  private verdict(exchange: HttpExchange, status: number): HttpVerdict {
    return this.policy.verdict({ exchange, status, oauth: this.auth !== undefined, session: this.sessionId !== undefined });
  }

  /** Verdicts after which the connection is unusable: auth refused, session gone. */
  private endsConnection(verdict: HttpVerdict, status: number, res: http.IncomingMessage): boolean {
    if (verdict === 'requiresAuthentication' || verdict === 'refusedAccess') {
      res.resume();
      const what = verdict === 'requiresAuthentication' ? 'requires authentication' : 'refused access';
      this.closeWith({ reason: `${this.shownUrl} ${what} (HTTP ${status})`, httpStatus: status });
      return true;
    }
    if (verdict === 'sessionExpired') {
      res.resume();
      this.closeWith({ reason: 'session expired', httpStatus: status });
      return true;
    }
    return false;
  }

  private onRequestError(err: Error, msg: Outgoing, isFirst: boolean): void {
    if (this.finished || this.closing !== undefined) return;
    const code = errorCode(err);
    // Whether the server is unreachable (the connection ends) or only this request was cut: the core's rule.
    if (this.policy.endsConnection(code, isFirst)) {
      this.closeWith({ reason: `cannot connect to ${this.shownUrl}: ${code}` });
      return;
    }
    this.failUnanswered(msg, `request to ${this.shownUrl} failed: ${code}`);
  }

  /** The error for a message over the core's limit: names the server, what was too large and the limit. */
  private tooLarge(what: string): string {
    return `${this.serverLabel} sent ${what} larger than ${formatBytes(this.maxMessageBytes)}, the most Lazy MCP takes in one message from a server; it was not read`;
  }

  private readSse(res: http.IncomingMessage, onEvent: (ev: SseEvent) => void, onEnd: () => void, onTooLarge: () => void): void {
    let ended = false;
    const parser = new SseParser(
      (ev) => {
        if (!this.finished) onEvent(ev);
      },
      this.maxMessageBytes,
      () => {
        // Over the limit: stop reading (and holding) this stream; the request (or stream) fails.
        ended = true;
        res.destroy();
        if (!this.finished) onTooLarge();
      },
    );
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.push(chunk));
    const end = (): void => {
      if (ended) return;
      ended = true;
      // An event without its closing blank line is incomplete and not dispatched (per the SSE spec).
      onEnd();
    };
    res.on('end', end);
    res.on('close', end);
    res.on('error', end);
  }

  /**
   * What the server sent (a reply body, an SSE event's data), passed on unread: the
   * core splits a batch and reads each message.
   */
  private deliver(text: string): void {
    if (this.finished) return;
    this.events.onMessage(text);
  }

  /**
   * What the server sent on the reply to `msg`'s POST, passed on unread. Returns whether the
   * core still awaits `msg`'s answer (true when it cannot say: the end is then reported).
   */
  private deliverReply(msg: Outgoing, text: string): boolean {
    if (this.finished) return false;
    const id = msg.requestId;
    if (id === undefined || this.events.onReplyMessage === undefined) {
      this.events.onMessage(text);
      return true;
    }
    return this.events.onReplyMessage(id, text);
  }

  /**
   * The reply to `msg`'s POST ended (its body or stream ended, was cut off, the POST failed, an
   * error status) while the core still awaited its answer, as far as its last message said.
   * The core owns the requests in flight: it fails this one with `why` only if it is still unanswered.
   */
  private failUnanswered(msg: Outgoing, why: string, httpStatus?: number): void {
    if (this.finished || msg.requestId === undefined) return;
    this.events.onReplyEnded?.(msg.requestId, why, httpStatus);
  }

  private sessionIdHeader(): Record<string, string> {
    return this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {};
  }

  /** The session's own exchanges (GET stream, DELETE): its id and the headers the core gave for it. */
  private sessionHeaders(): Record<string, string> {
    return { ...this.streamHeaders, ...this.sessionIdHeader() };
  }

  private request(method: string, url: URL, extra: Record<string, string>): http.ClientRequest {
    const headers: Record<string, string> = { ...(this.transport.headers ?? {}), ...extra };
    // The token goes to the configured URL's origin only (a legacy endpoint is checked to be same-origin).
    const token = this.auth?.token();
    if (token !== undefined && this.url !== undefined && url.origin === this.url.origin) headers['authorization'] = `Bearer ${token}`;
    const send = url.protocol === 'https:' ? https.request : http.request;
    const req = send(url, { method, headers, agent: this.agent });
    this.active.add(req);
    req.on('close', () => this.active.delete(req));
    return req;
  }

  private async shutDown(): Promise<void> {
    if (this.finished) return;
    const url = this.url;
    if (this.mode === 'streamable' && this.sessionId !== undefined && url !== undefined) {
      // End the session on the server. Its answer does not matter (a server that keeps no sessions refuses it).
      // Its bound is the core's number but this timer's: the engine forgot the connection at `close`,
      // and at shutdown or after a trap no engine runs; nothing is decided when it fires.
      await new Promise<void>((resolve) => {
        const req = this.request('DELETE', url, this.sessionHeaders());
        const timer = setTimeout(() => {
          req.destroy();
          resolve();
        }, this.policy.sessionEndTimeoutMs);
        req.on('response', (res) => {
          this.log('debug', `http ${this.shownUrl}: DELETE answered ${res.statusCode}`);
          res.resume();
          clearTimeout(timer);
          resolve();
        });
        req.on('error', () => {
          clearTimeout(timer);
          resolve();
        });
        req.end();
      });
    }
    this.closeWith({ reason: 'closed by host', byHost: true });
    await this.whenFinished;
  }

  private closeWith(info: Omit<ClosedInfo, 'stderrTail'>): void {
    if (this.finished) return;
    for (const req of this.active) req.destroy();
    this.active.clear();
    this.agent.destroy();
    this.finish(info);
  }

  private finish(info: Omit<ClosedInfo, 'stderrTail'>): void {
    if (this.finished) return;
    this.finished = true;
    this.queue = [];
    this.log(info.byHost === true ? 'info' : 'warn', `${this.transport.type} ${this.shownUrl}: ${info.reason}`);
    try {
      this.events.onClosed({ ...info, stderrTail: '' });
    } finally {
      this.resolveFinished();
    }
  }
}

/** A reply body grew beyond the connection's `maxMessageBytes`. */
class BodyTooLarge extends Error {}

/**
 * The body of `res`: its first `maxChars` bytes kept (the rest read and dropped), or, beyond
 * `maxBytes`, a rejection with BodyTooLarge and the response destroyed (nothing more is read).
 */
function readBody(res: http.IncomingMessage, maxChars: number, maxBytes = Infinity): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (size < maxChars) parts.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        parts.length = 0;
        reject(new BodyTooLarge());
        res.destroy();
      }
    });
    res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(new Error('aborted'));
    });
  });
}

/** 67108864 → "64 MiB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return 'no limit';
  const mib = n / (1024 * 1024);
  if (mib >= 1) return `${Math.round(mib * 10) / 10} MiB`;
  const kib = n / 1024;
  return kib >= 1 ? `${Math.round(kib * 10) / 10} KiB` : `${n} bytes`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function errorCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  return e?.code ?? (e instanceof Error ? e.message : String(err));
}

/** The URL without credentials or query values (they may hold API keys). */
export function redactUrl(url: URL): string {
  const keys = [...url.searchParams.keys()];
  const query = keys.length > 0 ? `?${keys.map((k) => `${k}=••••`).join('&')}` : '';
  return `${url.protocol}//${url.host}${url.pathname}${query}`;
}
