// The actions the core allows per server (engine/server_actions.rs) reach the
// VS Code tree as its contextValue (` enable refresh `, …): package.json's menus
// must show exactly those. Real core, real package.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { loadServers } from '../../bench/lib/engineConfig.mjs';
import { handled } from './helpers/splitEffects.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { ConfigSession } = await loadHostModule('host/config/configSession');

/** What serverTree.ts sets as a server item's contextValue. */
const contextValue = (actions) => ` ${actions.join(' ')} `;

/** The inline/context menu commands package.json shows for one tree item. */
function menusFor(value) {
  const menus = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).contributes.menus['view/item/context'];
  return menus
    .filter((m) => {
      const match = /viewItem =~ \/(.*)\//.exec(m.when);
      return !match || new RegExp(match[1]).test(value);
    })
    .map((m) => m.command)
    .sort();
}

test('each server offers in the tree exactly the actions its snapshot allows', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-actions-'));
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { on: { command: 'true' }, off: { command: 'true' } } }));
  const core = new WasmCore(builtCoreModule, () => {});
  // Load through the core's config rounds, then drive an engine of our own with the result.
  const session = new ConfigSession(core, { discovery: { home, workspaceFolders: [root], platform: 'linux', env: { HOME: home } }, explicitFiles: [], policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' } });
  const report = await session.load();
  session.dispose();
  const engine = core.call((c) => new c.Engine('{}'));
  // The same servers into an engine of our own, through the host's config rounds (from memory).
  loadServers((json) => handled(engine, 1, json), { on: { command: 'true' }, off: { command: 'true' } });
  assert.deepEqual(JSON.parse(engine.snapshot()).servers.map((s) => s.name).sort(), report.servers.map((s) => s.name).sort());
  handled(engine, 2, JSON.stringify({ type: 'disable', server: 'off' }));
  const servers = new Map(JSON.parse(engine.snapshot()).servers.map((s) => [s.name, s]));
  engine.free();

  const off = servers.get('off');
  assert.equal(off.state.kind, 'DISABLED');
  // Issue 23: no Refresh on a server that is off (it would do nothing).
  assert.deepEqual(off.actions, ['enable']);
  assert.equal(off.progress, 'off');
  assert.deepEqual(menusFor(contextValue(off.actions)), ['lazyMcp.enableServer']);

  // Being catalogued (its `open` is never carried out here): it can be disabled, not connected twice.
  const on = servers.get('on');
  assert.equal(on.state.kind, 'CATALOGUING');
  assert.deepEqual(on.actions, ['disable', 'refresh']);
  assert.equal(on.progress, 'busy');
  assert.deepEqual(menusFor(contextValue(on.actions)), ['lazyMcp.disableServer', 'lazyMcp.refreshCatalogue']);
  assert.deepEqual(menusFor(contextValue(['connect', 'disable', 'refresh'])), ['lazyMcp.connectNow', 'lazyMcp.disableServer', 'lazyMcp.refreshCatalogue']);
  // `connect` must not match inside `disconnect`, nor `enable` inside another word.
  assert.deepEqual(menusFor(contextValue(['disconnect', 'disable', 'refresh'])), ['lazyMcp.disableServer', 'lazyMcp.disconnect', 'lazyMcp.refreshCatalogue']);
  // An OAuth server: Sign In (inline and in the context menu) while it needs it, else Sign Out.
  assert.deepEqual(menusFor(contextValue(['signIn', 'connect', 'disable', 'refresh'])), ['lazyMcp.connectNow', 'lazyMcp.disableServer', 'lazyMcp.refreshCatalogue', 'lazyMcp.signIn', 'lazyMcp.signIn']);
  assert.deepEqual(menusFor(contextValue(['signOut', 'disconnect', 'disable', 'refresh'])), ['lazyMcp.disableServer', 'lazyMcp.disconnect', 'lazyMcp.refreshCatalogue', 'lazyMcp.signOut']);
  fs.rmSync(root, { recursive: true, force: true });
});
