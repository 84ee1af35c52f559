// The built WASM core, loaded through the host's WasmCore wrapper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';

const { WasmCore, CoreLoadError, CoreTrapError } = await loadHostModule('core/wasmCore');
const cargoVersion = fs.readFileSync(path.join(repoRoot, 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)[1];

function quietCore(modulePath, onRecreated) {
  const logs = [];
  const core = new WasmCore(modulePath, (level, message) => logs.push({ level, message }), onRecreated);
  return { core, logs };
}

test('loads the built core and reports its version', () => {
  const { core } = quietCore(builtCoreModule);
  core.load();
  assert.equal(core.call((c) => c.coreVersion()), cargoVersion);
});

test('the diagnostics report comes from the core', () => {
  const { core } = quietCore(builtCoreModule);
  // Rendered by an engine (with no servers), as hosts do: the production core has no engine-less export.
  const report = core.call((c) => {
    const engine = new c.Engine('{}');
    try {
      return engine.report(JSON.stringify({ host: 'node test', workspaceFolders: [] }));
    } finally {
      engine.free();
    }
  });
  assert.match(report, /^# MCP Diagnostics$/m);
  assert.match(report, new RegExp(`Core version: ${cargoVersion.replaceAll('.', '\\.')}`));
  assert.match(report, /Host: node test/);
  assert.match(report, /0 servers configured/);
});

test('a trap is reported once and the instance is recreated', () => {
  const recreated = [];
  const { core, logs } = quietCore(builtCoreModule, (err, n) => recreated.push([err.message, n]));
  core.load();
  // A real trap of the production module (it has no export that traps on purpose):
  // an engine handle pointing past the end of linear memory, so the module's own
  // load from it is out of bounds. `__wbg_ptr` is wasm-bindgen's handle field.
  const trap = (c) => {
    const engine = new c.Engine('{}');
    assert.equal(typeof engine.__wbg_ptr, 'number', "wasm-bindgen's handle field moved: update this test");
    engine.__wbg_ptr = 0xfffffff0;
    engine.snapshot();
  };
  assert.throws(() => core.call(trap), CoreTrapError);
  assert.equal(recreated.length, 1, 'onRecreated called exactly once');
  assert.equal(core.trapCount, 1);
  assert.equal(logs.filter((l) => l.level === 'error').length, 1, 'one error log line');
  // The fresh instance answers; a dead one would trap again.
  assert.equal(core.call((c) => c.coreVersion()), cargoVersion);
});

test('a missing module gives one clear CoreLoadError naming the path', () => {
  const missing = path.join(os.tmpdir(), 'lazy-mcp-no-such-dir', 'lazy_mcp_wasm.js');
  const { core } = quietCore(missing);
  assert.throws(() => core.load(), (err) => err instanceof CoreLoadError && err.message.includes(missing));
  assert.equal(core.loaded, false);
});

test('a corrupt .wasm gives a CoreLoadError, not a crash', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-corrupt-'));
  try {
    fs.copyFileSync(builtCoreModule, path.join(dir, 'lazy_mcp_wasm.js'));
    fs.writeFileSync(path.join(dir, 'lazy_mcp_wasm_bg.wasm'), Buffer.from('not a wasm module'));
    const { core } = quietCore(path.join(dir, 'lazy_mcp_wasm.js'));
    assert.throws(() => core.load(), (err) => err instanceof CoreLoadError && /could not load its WASM core/.test(err.message));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
