// Writes coalesced per tick: many messages at once (concurrent calls through the
// owner of shared servers) leave in one system call instead of one each.
import type { Writable } from 'node:stream';

/** Streams corked in this tick: uncorked together once the current event's work is done. */
const corked = new Set<Writable>();
function uncorkAll(): void {
  for (const stream of corked) stream.uncork();
  corked.clear();
}

/**
 * Write `bytes`; everything written to `stream` in the same tick goes out in one
 * system call (many calls at once: one write instead of one each). The tick ends
 * before any I/O is polled, so a lone message waits for nothing.
 */
export function writeBatched(stream: Writable, bytes: Uint8Array): void {
  if (!corked.has(stream)) {
    if (corked.size === 0) process.nextTick(uncorkAll);
    corked.add(stream);
    stream.cork();
  }
  stream.write(bytes);
}
