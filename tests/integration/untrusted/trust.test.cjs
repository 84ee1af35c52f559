// Restricted Mode (the runner's `untrusted` phase): workspace trust on, this folder (no MCP
// config of its own) not trusted, only `memory` configured, in the user's
// ~/.copilot/mcp-config.json. VS Code asks for workspace trust before it starts any extension-provided MCP
// definition, so Lazy MCP must not ask it to start one: the runner fails the phase if VS Code
// was asked to show any dialog (0.1.0 caused about 2 per second). Last, the runner clicks
// "Trust" in the Workspace Trust editor, as a user would, and the tools arrive.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const { api, stateOf, testDir, waitFor } = require('../suite/helpers.cjs');

const spawnLog = path.join(testDir, 'spawns.log');
const spawnCount = () => (fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).length : 0);
/** Has the runner click the first element matching `selector` in the workbench; its outcome. */
async function click(selector) {
  const done = path.join(testDir, 'click.done');
  fs.rmSync(done, { force: true });
  fs.writeFileSync(path.join(testDir, 'click.request'), selector);
  await waitFor(`the runner to click ${selector}`, () => fs.existsSync(done), 10_000);
  return fs.readFileSync(done, 'utf8');
}

const ourTools = () => vscode.lm.tools.filter((t) => t.name.startsWith('mcp_memory'));

suite('Restricted Mode (untrusted workspace)', () => {
  test('the folder is untrusted and the extension under development runs', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner should open the folder in Restricted Mode');
    const ext = vscode.extensions.getExtension('lazy-mcp.lazy-mcp');
    assert.ok(ext, 'the extension under development is not loaded in Restricted Mode');
    await api();
    assert.equal(ext.isActive, true);
  });

  test('the user-level server is catalogued, and Diagnostics says why its tools wait', async () => {
    const lazy = await api();
    await waitFor('memory CATALOGUED', () => stateOf(lazy, 'memory') === 'CATALOGUED');
    assert.equal(spawnCount(), 1, 'one spawn: cataloguing memory');
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.match(report, /> \*\*Note:\*\* Restricted Mode: this workspace is not trusted\./);
    assert.match(report, /\| memory \| \*\*CATALOGUED ONLY\*\*/);
  });

  test('with lazyMcp.shareServers on, the untrusted window started no owner of shared servers', () => {
    const dir = process.env.LAZY_MCP_SOCKET_DIR;
    assert.ok(dir, 'the runner gives this phase a socket directory of its own');
    assert.equal(vscode.workspace.getConfiguration('lazyMcp').get('shareServers'), true);
    assert.deepEqual(fs.readdirSync(dir), [], 'cataloguing memory ran in this window, not through the owner');
  });

  test('Lazy MCP offers its definitions to VS Code but never asks VS Code to start one', async () => {
    const lazy = await api();
    await waitFor('the memory definition offered to VS Code', () => lazy.definitionLabels().includes('memory'));
    // An absence needs an observation window: 0.1.0 asked VS Code to start the definition
    // within 0.1 s of offering it, and again about every 0.5 s for 20 s (one dialog each).
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(ourTools().map((t) => t.name), [], 'VS Code never connected, so it lists none of the tools');
    assert.equal(spawnCount(), 1, 'nothing was spawned for VS Code');
  });

  test('once the user trusts the folder, Lazy MCP starts its definitions without a dialog and the tools arrive', async () => {
    const lazy = await api();
    await vscode.commands.executeCommand('workbench.trust.manage');
    const trustButton = '.workspace-trust-limitations.trusted .workspace-trust-buttons-row .monaco-button';
    const outcomes = [];
    await waitFor('the folder trusted', async () => vscode.workspace.isTrusted || (outcomes.push(await click(trustButton)), vscode.workspace.isTrusted), 20_000).catch((err) => {
      throw new Error(`${err.message}; click outcomes: ${outcomes.join('; ')}`);
    });
    await waitFor('memory tools in vscode.lm.tools', () => ourTools().length >= 9, 30_000);
    assert.equal(stateOf(lazy, 'memory'), 'CATALOGUED', 'listing the tools started nothing upstream');
    assert.equal(spawnCount(), 1);
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.doesNotMatch(report, /Restricted Mode/);
  });
});
