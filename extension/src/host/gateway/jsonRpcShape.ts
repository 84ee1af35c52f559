// The routing the gateway needs, as the core computed it: the gateway never
// parses a message to route it. Types come from the core (contract.generated.ts).
import type { ClientBody, ClientEnvelope, Effect, RequestHeaders } from '../../core/contract.generated';

export type { ClientBody, ClientEnvelope, RequestHeaders };

export type JsonRpcId = string | number;

type Reply = Extract<Effect, { type: 'reply' }>;
type Notify = Extract<Effect, { type: 'notifyClient' }>;

/**
 * How a client-bound message is routed, as the engine read it (effects `reply` and
 * `notifyClient`), so the gateway never parses it: a reply to request `id` (`null`:
 * an error whose request id could not be read; `httpStatus`: the status of a JSON
 * answer when not 200), or a message the gateway initiates, with the progress token
 * of the request it belongs to for `notifications/progress`, or the open request it
 * belongs to (`request`: a `subscriptions/listen`).
 */
export type ClientRoute =
  | ({ reply: true } & Pick<Reply, 'id'> & Partial<Pick<Reply, 'httpStatus'>>)
  | ({ reply: false } & Partial<Pick<Notify, 'progressToken' | 'request'>>);

/** A JSON-RPC error response for transport-level failures. */
export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
}
