// The upstream connection layer: carries bytes to and from one MCP server and
// reports what happened. Decisions (retries, timeouts per request, state) are
// the core's.

import { openHttpConnection } from './httpConnection';
import { openStdioConnection } from './stdioConnection';
import type { Connection, ConnectionEvents, ConnectionOptions, Transport } from './types';

export type {
  ClosedInfo,
  Connection,
  ConnectionEvents,
  ConnectionOptions,
  HttpTransport,
  LogLevel,
  LogSink,
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
 * `onStderr`, then exactly one `onClosed`.
 */
export function openConnection(transport: Transport, events: ConnectionEvents, opts: ConnectionOptions = {}): Connection {
  switch (transport.type) {
    case 'stdio':
      return openStdioConnection(transport, events, opts);
    case 'http':
    case 'sse':
      return openHttpConnection(transport, events, opts);
  }
}
