// Writes batched per event-loop turn (host/connections/batchedWrite.ts): what
// several callbacks of one turn write to one stream (eight HTTP clients' calls to
// one stdio server, a burst of answers on serve's stdout) leaves in one system
// call, and a lone message still leaves before the loop waits for more input.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { loadConnections } from './connections.helper.mjs';

const { writeBatched, flushBatched } = loadConnections();

/** A stream that records each system-call-like write: one entry per `_write`/`_writev`. */
function recorder() {
  const writes = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => c.chunk.toString()));
      done();
    },
  });
  return { stream, writes };
}

test('messages written by different callbacks of one loop turn leave in one write', async () => {
  const { stream, writes } = recorder();
  const other = recorder();
  // Two timers due together run in the same turn, one after the other (as two sockets' reads of one poll do).
  await new Promise((resolve) => {
    setTimeout(() => {
      writeBatched(stream, 'a\n');
      writeBatched(other.stream, 'x\n');
    }, 1);
    setTimeout(() => {
      writeBatched(stream, Buffer.from('b\n'));
      setImmediate(resolve);
    }, 1);
  });
  assert.deepEqual(writes, [['a\n', 'b\n']]);
  assert.deepEqual(other.writes, [['x\n']]);
});

test('a lone message leaves in the same turn, before the loop polls for input again', async () => {
  const { stream, writes } = recorder();
  writeBatched(stream, 'only\n');
  assert.deepEqual(writes, []);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, [['only\n']]);
});

test('flushBatched writes out what waits (before a process exits)', () => {
  const { stream, writes } = recorder();
  writeBatched(stream, 'last\n');
  flushBatched();
  assert.deepEqual(writes, [['last\n']]);
});
