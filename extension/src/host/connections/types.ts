// The contract between the upstream connection layer and the rest of the host.
//
// A connection carries bytes between the host and one MCP server and reports
// what happened. It makes no decisions: no retries, no timers, no state
// machine, no protocol logic beyond what the transport itself requires
// (framing, HTTP session headers). The Rust core decides what to do with the
// events: over HTTP, which transport to speak (`httpTransport`) and how long
// the first exchange may take.

import type { Effect, HttpExchange, HttpMode, HttpVerdict, LogLevel, SharedHolder, StdioLimits, Transport } from '../../core/contract.generated';

/** How to reach a server: the core's `Transport` (generated from config/model.rs). */
export type { Transport };
export type StdioTransport = Extract<Transport, { type: 'stdio' }>;
/** Streamable HTTP, falling back to legacy HTTP+SSE when the core says so (`httpTransport`). */
export type HttpTransport = Extract<Transport, { type: 'http' }>;
/** Legacy HTTP+SSE (protocol 2024-11-05), when the config says so explicitly. */
export type SseTransport = Extract<Transport, { type: 'sse' }>;

export interface ClosedInfo {
  /** Human-readable cause, naming the command or URL. Never contains header or env values. */
  reason: string;
  /** stdio: the process exit code (null when killed by a signal or never started). */
  exitCode?: number | null;
  /** stdio: the signal that ended the process, if any. */
  signal?: string | null;
  /** stdio: the last lines of stderr (bounded); '' for HTTP. */
  stderrTail: string;
  /** HTTP: the status that ended the connection (auth refused, session expired, ...; the core reads it). */
  httpStatus?: number;
  /** True when the host asked for the close (`Connection.close()`). */
  byHost?: boolean;
}

export interface ConnectionEvents {
  /**
   * Messages can be sent. stdio: the process was spawned (with its pid). Streamable HTTP:
   * at once (nothing is connected before the first POST). Legacy SSE: once the `endpoint`
   * event arrived. `send()` before this is fine: messages are queued or buffered.
   */
  onOpened(info: { pid?: number }): void;
  /**
   * What the server sent: one stdio line (its UTF-8 bytes as read, never decoded
   * here), one HTTP reply body, one SSE event's data (text) — a single message or a
   * batch: the core splits and reads it.
   */
  onMessage(json: string | Uint8Array): void;
  /**
   * HTTP: what the server sent on the reply to request `requestId`'s POST (its body, one
   * event of its stream), as `onMessage` (it crosses with the id). Returns whether the core says that request still
   * awaits its answer: only then does the reply's end matter (`onReplyEnded`). Absent:
   * `onMessage`, and the end is always reported.
   */
  onReplyMessage?(requestId: number, json: string): boolean;
  /**
   * HTTP: the reply to request `requestId`'s POST ended (body or stream ended, cut off, over
   * the size limit, the POST failed, or an error status: `httpStatus`) while the core still
   * awaited its answer (the last `onReplyMessage` said so, or none came). The core owns the
   * requests in flight: it fails one still unanswered with `reason`.
   */
  onReplyEnded?(requestId: number, reason: string, httpStatus?: number): void;
  /**
   * HTTP: the connection's first exchange started: a POST while the transport is probed, or
   * the legacy SSE stream. The core bounds it (its `connectStarted`).
   */
  onConnectStarted?(): void;
  /**
   * HTTP: that exchange was answered with `status` (the POST's response headers, or the legacy
   * stream's `endpoint` event). A probing POST's reply waits, unread, for the core's
   * `httpTransport` (`Connection.setTransport`).
   */
  onConnectAnswered?(status: number): void;
  /** A shared server's process is held by `clients` windows and CLI sessions, named in `holders` (the owner says; host/shared). */
  onShared?(clients: number, holders: SharedHolder[]): void;
  /** Called exactly once per connection, including after `close()`. No event follows it. */
  onClosed(info: ClosedInfo): void;
  /** stdio: one stderr line (without the newline). */
  onStderr?(line: string): void;
}

/**
 * What the core says about a message it sends (its `send` effect), so the connection
 * never reads the message: `headers` (MCP 2026-07-28 requests over HTTP carry their
 * version, method and target), `requestId` (a request: its answer is due), and
 * `openEventStream` (Streamable HTTP: once accepted, open the server's GET stream).
 * stdio ignores all of it.
 */
export type SendMeta = Partial<Pick<Extract<Effect, { type: 'send' }>, 'headers' | 'requestId' | 'openEventStream'>>;

export interface Connection {
  /** Queue one JSON-RPC message (without a trailing newline), with what the core says about it. */
  send(json: string, meta?: SendMeta): void;
  /**
   * stdio: one message's UTF-8 bytes ending in its newline, written as they are (the
   * owner of shared servers passes the multiplexer's bytes on without decoding them).
   */
  sendLine?(line: Uint8Array): void;
  /**
   * Shut down gracefully, then forcefully; resolves when the process / streams are gone.
   * `idle`: the engine's idle stop (the `close` effect's; a shared connection tells the owner).
   */
  close(idle?: boolean): Promise<void>;
  /** The engine's `abortRequest` effect: HTTP aborts the POST carrying request `id` (stdio: absent). */
  abort?(id: number): void;
  /** The engine's `httpTransport` effect: HTTP speaks `mode` from now on (stdio: absent). */
  setTransport?(mode: HttpMode): void;
  readonly pid?: number;
}

export type { LogLevel };
export type LogSink = (level: LogLevel, msg: string) => void;

export interface ConnectionOptions {
  /** Working directory when the transport has none (and base for a relative `cwd`/`envFile`). */
  cwdFallback?: string;
  /** The environment the server's `env` is merged over (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  log?: LogSink;
  /**
   * stdio: the core's limits (`WasmCore.limits().stdio`): how long each shutdown step waits
   * (stdin EOF, then SIGTERM, then SIGKILL), how often the group is looked at, and the wait
   * for the last output; required for `stdio` transports.
   */
  stdio?: StdioLimits;
  /** HTTP: the core's rules and limits; required for `http` and `sse` transports. */
  http?: HttpPolicy;
  /** HTTP with the engine's `oauth` binding: the bearer token and where challenges go. */
  auth?: ConnectionAuth;
  /**
   * HTTP: the largest reply body (bytes) or SSE event (characters) taken from the server, from
   * the core's `open` effect (`maxMessageBytes`); a bigger one is cut off and its request fails
   * naming the limit. Absent: no limit.
   */
  maxMessageBytes?: number;
  /** The server's name, for the errors a user sees. */
  server?: string;
}

/**
 * What an HTTP connection runs by, from the core: what each answer's status means
 * (`WasmCore.httpStatusVerdict`, http_status.rs), what a request that got no answer means
 * (`WasmCore.httpRequestErrorEndsConnection`, http_request_error.rs) and its timeouts (`hostLimits`).
 * The transport (a first POST's fallback) and the first exchange's deadline are the engine's.
 */
export interface HttpPolicy {
  verdict(answer: { exchange: HttpExchange; status: number; oauth: boolean; session: boolean }): HttpVerdict;
  /** A request failed with network error `code` (`first`: the connection's first exchange): true ends the connection, false fails that request only. */
  endsConnection(code: string, first: boolean): boolean;
  /** Bound on the DELETE that ends a session when the connection closes. */
  sessionEndTimeoutMs: number;
  /** An error answer's body is read for the message a user sees, at most this many characters. */
  errorBodyMaxChars: number;
}

/**
 * OAuth on one HTTP connection: the token is sent to this server's URL only; a
 * 401/403 does not end the connection: the refused message goes back to the core
 * (`onChallenge`), which holds it, with what it sends meanwhile, and sends them
 * again once signed in. The connection holds nothing.
 */
export interface ConnectionAuth {
  /** The current access token (read for every request). */
  token(): string | undefined;
  /**
   * A message was refused; `challenge` is its `WWW-Authenticate` header, `refused` the
   * message (the core's `authRequired` carries it back; the core reads its headers again).
   */
  onChallenge(status: number, challenge: string | undefined, hadToken: boolean, refused: RefusedSend): void;
}

/** A message refused with a challenge (the core reads again what its `send` said). */
export interface RefusedSend {
  message: string;
}

/**
 * JSON-RPC error code of a request its transport failed (HTTP error status without a
 * JSON-RPC body, reply stream cut before the response): the core answers the request
 * with it on `onReplyEnded` (upstream.rs), so no call ever hangs.
 */
export const TRANSPORT_ERROR_CODE = -32000;
