// The upstream connection layer: carries bytes to and from one MCP server and
// reports what happened. Decisions (retries, timeouts per request, state) are
// the core's.

import { openHttpConnection } from './httpConnection';
import { openStdioConnection } from './stdioConnection';
import type { Connection, ConnectionEvents, ConnectionOptions, LogSink, Transport } from './types';

export type {
  ClosedInfo,
  Connection,
  ConnectionAuth,
  ConnectionEvents,
  ConnectionOptions,
  HttpPolicy,
  HttpTransport,
  LogLevel,
  LogSink,
  RefusedSend,
  SendMeta,
  SseTransport,
  StdioTransport,
  Transport,
} from './types';
export { TRANSPORT_ERROR_CODE } from './types';
export { parseEnvFile } from './envFile';
export { redactUrl } from './httpConnection';

/**
 * Open a connection to one server. Events are delivered asynchronously, never
 * from inside this call: `onOpened` (maybe), any number of `onMessage` /
 * `onReplyMessage` / `onReplyEnded` / `onStderr`, then exactly one `onClosed`.
 */
export function openConnection(transport: Transport, events: ConnectionEvents, opts: ConnectionOptions = {}): Connection {
  const guarded = guardEvents(events, opts.log ?? (() => undefined));
  switch (transport.type) {
    case 'stdio':
      return openStdioConnection(transport, guarded, opts);
    case 'http':
    case 'sse':
      return openHttpConnection(transport, guarded, opts);
  }
}

/**
 * A handler that throws must not break the stream it was called from (the rest
 * of a chunk, the close sequence): the error is logged and delivery goes on.
 */
function guardEvents(events: ConnectionEvents, log: LogSink): ConnectionEvents {
  const call = (name: string, fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      log('error', `connection ${name} handler threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const guarded: ConnectionEvents = {
    onOpened: (info) => call('onOpened', () => events.onOpened(info)),
    onMessage: (json) => call('onMessage', () => events.onMessage(json)),
    onClosed: (info) => call('onClosed', () => events.onClosed(info)),
  };
  if (events.onConnectStarted !== undefined) guarded.onConnectStarted = () => call('onConnectStarted', () => events.onConnectStarted?.());
  if (events.onConnectAnswered !== undefined) guarded.onConnectAnswered = (status) => call('onConnectAnswered', () => events.onConnectAnswered?.(status));
  if (events.onStderr !== undefined) guarded.onStderr = (line) => call('onStderr', () => events.onStderr?.(line));
  if (events.onReplyMessage !== undefined) {
    // A handler that threw said nothing: the reply's end is reported.
    guarded.onReplyMessage = (id, json) => {
      let awaited = true;
      call('onReplyMessage', () => (awaited = events.onReplyMessage?.(id, json) ?? true));
      return awaited;
    };
  }
  if (events.onReplyEnded !== undefined) {
    guarded.onReplyEnded = (id, reason, status) => call('onReplyEnded', () => events.onReplyEnded?.(id, reason, status));
  }
  return guarded;
}
