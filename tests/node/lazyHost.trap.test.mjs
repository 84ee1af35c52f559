// After the WASM core traps (the instance aborted: the engine in it is gone), the host starts
// over with a fresh engine, and its HTTP gateway ends every session that engine knew: a
// client listening on its GET stream sees the stream end, a call in flight is answered with
// an error that says what happened, and a later POST of the old session gets 404 naming the
// restart (the MCP spec's signal to start a new session), which then works. Spoken to with
// fetch, a real HTTP client; the call in flight is server-everything's long-running tool.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';
import { initialize, initialized } from './helpers/rawMcp.mjs';
import { countedServer, killSpawnedGroups, waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-host-trap-'));
const home = path.join(root, 'home');
const ws = path.join(root, 'ws');
fs.mkdirSync(home, { recursive: true });
fs.mkdirSync(ws, { recursive: true });
const spawnLog = path.join(root, 'spawns.log');
fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { everything: countedServer(spawnLog, 'server-everything', ['stdio']) } }));

const logs = [];
const core = new WasmCore(builtCoreModule, (level, message) => logs.push(`${level} ${message}`));
const host = new LazyHost({
  core,
  discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home, PATH: process.env.PATH ?? '' } },
  policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  store: new BlobFile(path.join(root, 'catalogue.json')),
  log: (level, message, server) => logs.push(`${level} ${server ?? ''} ${message}`),
  gateway: {},
});
after(async () => {
  await host.stop();
  killSpawnedGroups(spawnLog);
  fs.rmSync(root, { recursive: true, force: true });
});

/** Resolves with `value`, or with 'timeout' after `ms`. */
const within = (promise, ms) => Promise.race([promise, new Promise((r) => setTimeout(() => r('timeout'), ms).unref())]);

/**
 * A real trap of the production module (it exports nothing that traps on purpose; as in
 * wasmCore.test.mjs): an engine handle past the end of linear memory, read by the module.
 */
function trapTheCore() {
  assert.throws(() =>
    core.call((c) => {
      const engine = new c.Engine('{}');
      engine.__wbg_ptr = 0xfffffff0;
      engine.snapshot();
    }),
  );
}

/** An open response body read as it comes: its text so far, and whether (and when) it ended. */
function streamOf(res) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const s = { text: '', ended: false };
  s.done = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true }));
      if (done) break;
      s.text += decoder.decode(value, { stream: true });
    }
    s.ended = true;
  })();
  s.events = () => s.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return s;
}

test('a core trap ends the gateway sessions: the GET stream ends, the call in flight and later POSTs get a clear error', { timeout: 120_000 }, async () => {
  await host.start();
  await waitFor('everything catalogued', () => host.snapshot().servers.some((s) => s.name === 'everything' && s.state.kind === 'CATALOGUED'), 60_000);
  const url = host.endpointUrl();
  const request = (method, body, session) =>
    fetch(url, {
      method,
      headers: {
        Accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
        Authorization: `Bearer ${host.gatewayToken}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(session ? { 'Mcp-Session-Id': session } : {}),
      },
      body,
    });
  const init = await request('POST', initialize(1));
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'a session');
  await init.text();
  assert.equal((await request('POST', initialized, session)).status, 202);
  const get = await request('GET', undefined, session);
  assert.equal(get.status, 200);
  const listening = streamOf(get);

  const call = await request(
    'POST',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'everything__trigger-long-running-operation', arguments: { duration: 100, steps: 100 }, _meta: { progressToken: 'slow' } },
    }),
    session,
  );
  assert.match(call.headers.get('content-type') ?? '', /text\/event-stream/, call.headers.get('content-type') === 'application/json' ? await call.text() : '');
  const inFlight = streamOf(call);
  await waitFor('the call to run upstream (its first progress)', () => inFlight.events().some((m) => m.method === 'notifications/progress'), 60_000);

  trapTheCore();

  assert.notEqual(await within(listening.done, 5_000), 'timeout', 'the GET stream of a session the dead engine knew is still open 5 s after the trap');
  assert.notEqual(await within(inFlight.done, 5_000), 'timeout', 'the POST stream of the call in flight is still open 5 s after the trap');
  const answer = inFlight.events().find((m) => m.id === 2);
  assert.ok(answer?.error, `the call in flight is answered with an error: ${inFlight.text}`);
  assert.match(answer.error.message, /core failed and was restarted/);

  const later = await request('POST', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), session);
  assert.equal(later.status, 404, 'the old session is gone: the client starts a new one (MCP spec)');
  const refusal = await later.json();
  assert.match(refusal.error.message, /core failed and was restarted/);

  // A new session is served by the fresh engine.
  const again = await request('POST', initialize(4));
  assert.equal(again.status, 200);
  const fresh = again.headers.get('mcp-session-id');
  await again.text();
  assert.equal((await request('POST', initialized, fresh)).status, 202);
  const list = await request('POST', JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }), fresh);
  const listed = await list.json();
  assert.ok(Array.isArray(listed.result?.tools), `tools/list answered by the fresh engine: ${JSON.stringify(listed)}`);
  assert.equal(core.trapCount, 1);
});
