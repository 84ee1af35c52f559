// The host's hot path against the real built core and a real stdio server
// (tests/fixtures/servers/tiny-server.mjs) through the loopback gateway: the
// engine says when a client listed tools (the host no longer sniffs messages for
// "tools/list"), and large payloads pass intact in both directions.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-hot-path-'));
const home = path.join(root, 'home');
const ws = path.join(root, 'ws');
fs.mkdirSync(home, { recursive: true });
fs.mkdirSync(ws, { recursive: true });
const tiny = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { tiny: { command: process.execPath, args: [tiny, 'tiny'] } } }));

const core = new WasmCore(builtCoreModule, () => {});
// Every crossing into the core goes through `call` (it turns a trap into a fresh instance).
let crossings = 0;
// And every timer effect the engine answered with: `wakeAt` (its one timer moved
// earlier), or the per-timer `setTimer`/`cancelTimer` it had before issue 25.
let wakeAts = 0;
const timerEffect = /"type":"(wakeAt|setTimer|cancelTimer)"/g;
const call = core.call.bind(core);
core.call = (fn) => {
  crossings += 1;
  const out = call(fn);
  // The effects' JSON is the first part ([clientBody, effects, ...] for clientPost); clientPost
  // and messageReceived return their parts joined by U+001E into one string.
  const parts = Array.isArray(out) ? out : typeof out === 'string' ? out.split('\u001e') : [];
  for (const part of parts.slice(0, 2)) wakeAts += part.match(timerEffect)?.length ?? 0;
  return out;
};
const host = new LazyHost({
  core,
  discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home, PATH: process.env.PATH ?? '' } },
  // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
  policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  store: new BlobFile(path.join(root, 'catalogue.json')),
  log: () => {},
  gateway: {},
});
after(() => host.stop());
await host.start();

/** One POST to an endpoint; the answer whether it comes as JSON or as SSE. */
async function post(endpoint, message, sessionId) {
  const res = await fetch(host.endpointUrl(endpoint), {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${host.gatewayToken}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'Mcp-Session-Id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  const session = res.headers.get('mcp-session-id') ?? sessionId;
  if (res.status === 202) return { session };
  const body = res.headers.get('content-type')?.includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5))).find((m) => m.id === message.id)
    : JSON.parse(text);
  return { session, body, contentType: res.headers.get('content-type') };
}

async function session(endpoint) {
  const init = await post(endpoint, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await post(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
  return init.session;
}

/** When the engine says a client was last answered `tools/list` on a server's endpoint (the snapshot's `listedAtMs`). */
const listedAt = (server) => host.snapshot().servers.find((s) => s.name === server)?.listedAtMs ?? undefined;

test('only an answered tools/list marks an endpoint listed, not a message that mentions it', { timeout: 60_000 }, async () => {
  const sid = await session('tiny');
  // A call whose text contains "tools/list": the old host-side sniffing counted this as a listing.
  const call = await post('tiny', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'tools/list' } } }, sid);
  assert.equal(call.body.result.content[0].text, 'Echo: tools/list');
  assert.equal(listedAt('tiny'), undefined, 'a call is not a listing');
  // A listing on another endpoint (the aggregate) is not this one's.
  const agg = await session('');
  await post('', { jsonrpc: '2.0', id: 3, method: 'tools/list' }, agg);
  assert.equal(listedAt('tiny'), undefined, 'only that endpoint');
  const before = Date.now();
  const list = await post('tiny', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sid);
  assert.deepEqual(list.body.result.tools.map((t) => t.name), ['echo', 'add', 'now']);
  assert.ok((listedAt('tiny') ?? 0) >= before, 'the engine reported the listing');
});

test('large payloads pass intact both ways, on a server endpoint and the aggregate one', { timeout: 120_000 }, async () => {
  const sid = await session('tiny');
  const small = await post('tiny', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, sid);
  assert.equal(small.body.id, 'a');
  assert.equal(small.body.result.content[0].text, '5');
  const message = `"quoted" \\ é 😀 ${'x'.repeat(3_000_000)}`;
  const big = await post('tiny', { jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'echo', arguments: { message } } }, sid);
  assert.equal(big.body.id, 'big');
  assert.equal(big.body.result.content[0].text, `Echo: ${message}`);
  // Through the aggregate endpoint the tool's name is rewritten, the arguments are not.
  const agg = await session('');
  const viaAgg = await post('', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'tiny__echo', arguments: { message } } }, agg);
  assert.equal(viaAgg.body.result.content[0].text, `Echo: ${message}`);
});

test('control characters and non-ASCII text pass intact, one call or a batch of them (parts joined by U+001E cross as one string)', { timeout: 60_000 }, async () => {
  const sid = await session('tiny');
  // JSON escapes them (\u001e, the separator of the crossing's parts, among them): the text keeps them.
  const message = 'a\u001eb\u0000c\u001fd é 😀 "q" \\';
  const one = await post('tiny', { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'echo', arguments: { message } } }, sid);
  assert.equal(one.body.result.content[0].text, `Echo: ${message}`);
  // A batch: two requests to the server leave one crossing (two messages among its parts).
  const res = await fetch(host.endpointUrl('tiny'), {
    method: 'POST',
    headers: { Authorization: `Bearer ${host.gatewayToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid },
    body: JSON.stringify([
      { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'echo', arguments: { message: `1 ${message}` } } },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'echo', arguments: { message: `2 ${message}` } } },
    ]),
  });
  const text = await res.text();
  const answers = res.headers.get('content-type')?.includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).flatMap((l) => JSON.parse(l.slice(5)))
    : JSON.parse(text);
  const byId = Object.fromEntries([answers].flat().map((m) => [m.id, m.result.content[0].text]));
  assert.deepEqual(byId, { b1: `Echo: 1 ${message}`, b2: `Echo: 2 ${message}` });
});

test('a warm call crosses into the core twice: the client message in, the server answer in (issue 25)', { timeout: 60_000 }, async () => {
  const sid = await session('tiny');
  const warm = await post('tiny', { jsonrpc: '2.0', id: 'w0', method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }, sid);
  assert.equal(warm.body.result.content[0].text, '2', 'the server is connected');
  for (const id of ['w1', 'w2', 'w3']) {
    const [before, wakesBefore] = [crossings, wakeAts];
    const answer = await post('tiny', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, sid);
    assert.equal(answer.body.result.content[0].text, '5');
    assert.equal(crossings - before, 2, `crossings for warm call ${id}`);
    // The call's request timer is armed and cancelled inside the engine's timer table.
    assert.equal(wakeAts - wakesBefore, 0, `timer effects for warm call ${id}`);
  }
  assert.ok(wakeAts > 0, 'the count sees the timer effects there were (handshakes, idle timers)');
});
