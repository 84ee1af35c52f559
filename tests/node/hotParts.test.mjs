// The hot path's compact parts (host/hotParts.ts) read back to what their JSON says:
// the strings as the core writes them (engine/effects_json.rs `compact_effects`,
// engine/wire.rs `compact_routing`; the Rust side is held to its JSON by
// crates/lazy-mcp-core/tests/engine_wire_properties.rs). Any other part is JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

const { effectsOf, routingOf } = await loadHostModule('host/hotParts');
const core = createRequire(import.meta.url)(builtCoreModule);
const F = '\u001f';

test('a warm call\'s effects: sends with and without a request id, replies with every kind of id', () => {
  assert.deepEqual(effectsOf(`#s2${F}5004`), [{ type: 'send', conn: 2, message: '', requestId: 5004 }]);
  assert.deepEqual(effectsOf(`#s18${F}`), [{ type: 'send', conn: 18, message: '' }]);
  const client = '3f0c9a4e-3f7b-4a52-9f2e-0f3c1b9d2a77';
  assert.deepEqual(effectsOf(`#r${client}${F}n7`), [{ type: 'reply', client, id: 7, message: '' }]);
  assert.deepEqual(effectsOf(`#rc${F}s`), [{ type: 'reply', client: 'c', id: '', message: '' }]);
  assert.deepEqual(effectsOf(`#rc${F}sa b,é😀#`), [{ type: 'reply', client: 'c', id: 'a b,é😀#', message: '' }]);
  assert.deepEqual(effectsOf(`#rc${F}z`), [{ type: 'reply', client: 'c', id: null, message: '' }]);
  // As JSON.parse reads an integer beyond 2^53: the same nearest double.
  assert.deepEqual(effectsOf(`#rc${F}n18446744073709551615`), JSON.parse('[{"type":"reply","client":"c","id":18446744073709551615,"message":""}]'));
  assert.deepEqual(effectsOf(`#s1${F}${F}rc${F}n3${F}s4${F}9`), [
    { type: 'send', conn: 1, message: '' },
    { type: 'reply', client: 'c', id: 3, message: '' },
    { type: 'send', conn: 4, message: '', requestId: 9 },
  ]);
});

test('effects without a compact form are JSON', () => {
  const json = '[{"type":"wakeAt","atMs":5},{"type":"reply","client":"c","id":"q\\"","message":""}]';
  assert.deepEqual(effectsOf(json), JSON.parse(json));
  assert.deepEqual(effectsOf('[]'), []);
});

test('a POST\'s routing: the usual body in its compact form, every flag', () => {
  assert.deepEqual(routingOf('#An12'), { batch: false, messages: [{ expectsReply: true, id: 12 }], opensSession: false, sessionless: false });
  assert.deepEqual(routingOf('#Ez'), { batch: false, messages: [{ expectsReply: true, id: null }], opensSession: true, sessionless: false });
  assert.deepEqual(routingOf('#Ksx y'), { batch: false, messages: [{ expectsReply: true, id: 'x y', sessionless: true }], opensSession: false, sessionless: true });
  assert.deepEqual(routingOf('#@z'), { batch: false, messages: [{ expectsReply: false, id: null }], opensSession: false, sessionless: false });
  // A progress token after the id (as VS Code's calls carry one), a number or a string.
  assert.deepEqual(routingOf(`#Qn5${F}n9`), { batch: false, messages: [{ expectsReply: true, id: 5, progressToken: 9 }], opensSession: false, sessionless: false });
  assert.deepEqual(routingOf(`#Qsa${F}sp-1`), { batch: false, messages: [{ expectsReply: true, id: 'a', progressToken: 'p-1' }], opensSession: false, sessionless: false });
  const json = '{"batch":true,"messages":[],"opensSession":false,"sessionless":false}';
  assert.deepEqual(routingOf(json), JSON.parse(json));
});

test('a `serve --stdio` line through the built core (`clientMessage`) reads back to what the JSON event gives', () => {
  // Twin engines: one takes each line as `serve --stdio` hands it over (bytes in, parts joined by
  // U+001E out, a warm answer compact), the other as a JSON event (`handleSplit`: JSON effects).
  const lines = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 'a b,é😀#', method: 'tools/list' },
    { jsonrpc: '2.0', id: 'q"', method: 'ping' },
    { jsonrpc: '2.0', id: null, method: 'ping' },
    [{ jsonrpc: '2.0', id: 2, method: 'ping' }],
    { jsonrpc: '2.0', id: 3, method: 'no/such' },
  ].map((m) => JSON.stringify(m));
  const [bytes, json] = [new core.Engine('{}'), new core.Engine('{}')];
  const forms = [];
  for (const line of [...lines, '{"jsonrpc":"2.0","id":4,"method":"ping"', 'x\u001ey']) {
    const joined = bytes.clientMessage(1_000, 'stdio', undefined, Buffer.from(line));
    assert.equal(typeof joined, 'string', 'one string out of WASM');
    const parts = joined.split('\u001e');
    const expected = json.handleSplit(1_000, JSON.stringify({ type: 'clientMessage', client: 'stdio', endpoint: { kind: 'aggregate' }, message: line }));
    assert.deepEqual(effectsOf(parts[0]), JSON.parse(expected[0]), line);
    assert.deepEqual(parts.slice(1), expected.slice(1), line);
    forms.push(parts[0].startsWith('#') ? 'compact' : 'json');
  }
  // The engine's own answers to a plain id cross compact; a quoted id, no effects at all, JSON.
  assert.deepEqual(forms, ['compact', 'json', 'compact', 'compact', 'json', 'compact', 'compact', 'compact', 'compact', 'compact']);
  bytes.free();
  json.free();
});
