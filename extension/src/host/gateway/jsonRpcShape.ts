// Just enough JSON-RPC inspection for routing bytes; the core interprets messages.

export type JsonRpcId = string | number;

export interface MessageShape {
  /** Request or notification method, if any. */
  method?: string;
  /** Present on requests and responses. */
  id?: JsonRpcId;
  /** A response (has result or error, no method). */
  isResponse: boolean;
  /** `params._meta.progressToken` of a request, or `params.progressToken` of a progress notification. */
  progressToken?: JsonRpcId;
  /** `error.code` of an error response. */
  errorCode?: number;
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || typeof v === 'number';
}

export function shapeOf(message: unknown): MessageShape {
  if (typeof message !== 'object' || message === null) return { isResponse: false };
  const m = message as Record<string, unknown>;
  const method = typeof m.method === 'string' ? m.method : undefined;
  const id = isId(m.id) ? m.id : undefined;
  const params = typeof m.params === 'object' && m.params !== null ? (m.params as Record<string, unknown>) : undefined;
  let progressToken: JsonRpcId | undefined;
  if (method === 'notifications/progress' && params && isId(params.progressToken)) {
    progressToken = params.progressToken;
  } else if (params && typeof params._meta === 'object' && params._meta !== null) {
    const token = (params._meta as Record<string, unknown>).progressToken;
    if (isId(token)) progressToken = token;
  }
  const error = typeof m.error === 'object' && m.error !== null ? (m.error as Record<string, unknown>) : undefined;
  const errorCode = typeof error?.code === 'number' ? error.code : undefined;
  return { method, id, isResponse: method === undefined && id !== undefined && ('result' in m || 'error' in m), progressToken, errorCode };
}

/**
 * How a client-bound message is routed, as the engine read it (effects `reply` and
 * `notifyClient`), so the gateway never parses it: a reply to request `id` (`null`:
 * an error whose request id could not be read), or a message the gateway initiates,
 * with the progress token of the request it belongs to for `notifications/progress`,
 * or the open request it belongs to (`request`: a `subscriptions/listen`).
 */
export type ClientRoute = { reply: true; id: JsonRpcId | null } | { reply: false; progressToken?: JsonRpcId | null; request?: JsonRpcId | null };

/** The route of a message that came without one: read from the message itself. */
export function routeOf(message: string): ClientRoute | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  const shape = shapeOf(parsed);
  if (shape.isResponse && shape.id !== undefined) return { reply: true, id: shape.id };
  if (isAnonymousError(parsed)) return { reply: true, id: null };
  return { reply: false, progressToken: shape.method === 'notifications/progress' ? shape.progressToken : undefined };
}

/** An error answer whose id could not be known (`"id": null`). */
function isAnonymousError(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.id === null && m.method === undefined && 'error' in m;
}

/** A JSON-RPC error response for transport-level failures. */
export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
}

/** One message of a client's body as the core read it (crates/lazy-mcp-core protocol/client_message.rs). */
export interface ClientEnvelope {
  /** The message's own text when the body is a batch (else the whole body). */
  text?: string;
  /** The engine will answer it: a request, or an error for an unreadable message. */
  expectsReply: boolean;
  /** The id of that answer (null when the message's id could not be read). */
  id: JsonRpcId | null;
  method?: string;
  progressToken?: JsonRpcId;
  /**
   * Set when the message cannot be served: the engine answers with this error.
   * With `status` (a modern-era request): the gateway answers it at once, with that HTTP status.
   */
  error?: { code: number; message: string; data?: unknown; status?: number };
  /** A modern-era (2026-07-28) request or `server/discover`: needs no session. */
  sessionless?: boolean;
}

export interface ClientBody {
  batch: boolean;
  messages: ClientEnvelope[];
  /** The core says: serve this body without a session, and start none. */
  sessionless: boolean;
  /** HTTP status of a JSON answer carrying this error code (sessionless bodies). */
  errorStatus?: Record<string, number>;
}

/** The POST headers the core checks a modern-era request against. */
export interface RequestHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}
