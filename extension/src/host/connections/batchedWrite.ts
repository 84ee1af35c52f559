// Writes coalesced per event-loop turn: many messages at once (concurrent calls
// through the owner of shared servers, several HTTP clients' POSTs to one stdio
// server, a stdio client's burst of answers) leave in one system call instead of
// one each.
import type { Writable } from 'node:stream';

/** Streams corked in this turn: uncorked together once this turn's I/O callbacks are done. */
const corked = new Set<Writable>();
function uncorkAll(): void {
  for (const stream of corked) stream.uncork();
  corked.clear();
}

/**
 * Write `bytes`; everything written to `stream` in the same event-loop turn goes
 * out in one system call. The flush runs right after the turn's I/O callbacks
 * (`setImmediate`, before the loop polls again), so a lone message waits for
 * nothing, and messages read by different callbacks of one poll (eight HTTP
 * clients' requests to one server) still leave together.
 */
export function writeBatched(stream: Writable, bytes: Uint8Array | string): void {
  if (!corked.has(stream)) {
    if (corked.size === 0) setImmediate(uncorkAll);
    corked.add(stream);
    stream.cork();
  }
  stream.write(bytes);
}

/** Write out now whatever waits for the end of this turn (before `process.exit`). */
export function flushBatched(): void {
  uncorkAll();
}
