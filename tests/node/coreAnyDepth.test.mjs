// The built WASM core (dist/core) under JSON of any depth: no trap, no stack
// overflow, an answer with the request's id. A trap here would kill the
// instance that the VS Code extension and the CLI run on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';
import { handled } from './helpers/splitEffects.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');

const nested = (depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const call = (id, depth) =>
  `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"x__y","arguments":{"a":${nested(depth)}}}}`;

test('the WASM engine answers client messages nested 10 to 100,000 levels with their own id, without a trap', () => {
  const logs = [];
  const core = new WasmCore(builtCoreModule, (level, message) => logs.push({ level, message }));
  core.load();
  const engine = core.call((c) => new c.Engine('{}'));
  for (const depth of [10, 124, 125, 1000, 5000, 100_000]) {
    const event = JSON.stringify({ type: 'clientMessage', client: 'c', endpoint: { kind: 'aggregate' }, message: call(`d${depth}`, depth) });
    const effects = core.call(() => handled(engine, Date.now(), event));
    const replies = effects.filter((e) => e.type === 'reply').map((e) => JSON.parse(e.message));
    assert.equal(replies.length, 1, `depth ${depth}: ${JSON.stringify(effects).slice(0, 300)}`);
    assert.equal(replies[0].id, `d${depth}`);
    // 3 envelope levels + depth: at most 127 are read.
    if (depth + 3 > 127) assert.equal(replies[0].error.code, -32600, `depth ${depth}`);
    else assert.notEqual(replies[0].error?.code, -32600, `depth ${depth}`);
  }
  // Upstream replies of any depth go through the same parser (no server here: just no trap).
  const upstream = JSON.stringify({ type: 'messageReceived', conn: 1, message: `{"jsonrpc":"2.0","id":1,"result":${nested(100_000)}}` });
  core.call(() => handled(engine, Date.now(), upstream));
  assert.deepEqual(logs, [], 'no trap was reported');
});

test('clientBodyBytes splits a batch and routes each message, at any depth, without a trap', () => {
  const core = new WasmCore(builtCoreModule, () => undefined);
  core.load();
  for (const depth of [1000, 100_000]) {
    const body = `[${call('a', 2)},${call('b', depth)},{"jsonrpc":"2.0","method":"notifications/initialized"}]`;
    const routed = JSON.parse(core.call((c) => c.clientBodyBytes(Buffer.from(body, 'utf8'))));
    assert.equal(routed.batch, true);
    assert.deepEqual(
      routed.messages.map((m) => [m.expectsReply, m.id, m.error?.code ?? null]),
      [
        [true, 'a', null],
        [true, 'b', -32600],
        [false, null, null],
      ],
    );
  }
});
