// A core trap in the middle of a config load (`lazy-mcp config`, `lazy-mcp trust`): the
// engine of the config session lived in the dead WASM instance. The load under way fails
// with an error that says what happened (never a hang), and the next load works on a
// fresh engine instead of trapping again on the dead one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { ConfigSession } = await loadHostModule('host/config/configSession');

/** Resolves with the outcome of `promise`, or 'timeout' after `ms`. */
const settle = (promise, ms) =>
  Promise.race([
    promise.then(
      (value) => ({ value }),
      (error) => ({ error }),
    ),
    new Promise((r) => setTimeout(() => r('timeout'), ms).unref()),
  ]);

test('a trap during a config load fails that load clearly, and the next load works on a fresh engine', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-config-trap-'));
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } }));
  const core = new WasmCore(builtCoreModule, () => {});
  const session = new ConfigSession(core, {
    discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home } },
    explicitFiles: [],
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  });
  try {
    // A real trap of the production module inside the session's own engine, when the files it
    // asked for arrive: its handle points past the end of linear memory, read by the module (as
    // in wasmCore.test.mjs). The handle stays unusable, as an engine that panicked mid-event is.
    const { Engine } = core.call((c) => c);
    const handleSplit = Engine.prototype.handleSplit;
    let tripped = false;
    Engine.prototype.handleSplit = function (now, json) {
      if (!tripped && json.includes('"filesRead"')) {
        tripped = true;
        this.__wbg_ptr = 0xfffffff0;
      }
      return handleSplit.call(this, now, json);
    };

    const first = await settle(session.load(), 10_000);
    assert.notEqual(first, 'timeout', 'the load that trapped still waits 10 s later');
    assert.ok(tripped, 'the trap was provoked during the load');
    assert.ok(first.error, `the load that trapped fails: ${JSON.stringify(first.value)}`);
    assert.match(first.error.message, /core failed and was restarted/);
    assert.equal(core.trapCount, 1);

    const second = await settle(session.load(), 10_000);
    assert.notEqual(second, 'timeout', 'the next load still waits 10 s later');
    assert.ifError(second.error);
    assert.deepEqual(
      second.value.servers.map((s) => s.name),
      ['memory'],
      'the next load reads the config on a fresh engine',
    );
    assert.equal(core.trapCount, 1, 'no second trap: the dead engine is not used again');
  } finally {
    session.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
