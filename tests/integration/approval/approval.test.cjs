// Issue 24 #1 in the real VS Code (the runner's `approval` phase): workspace trust on, the folder
// trusted by the user, `lazyMcp.trustProjectServers` off. The folder's .copilot/mcp-config.json
// defines two servers; neither runs before the user's answer, one notification lists both, Allow
// catalogues it, and an approval given with the CLI while the window is open applies there
// (the approvals file is shared and watched). The runner fails the phase on any dialog request.
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vscode = require('vscode');

const { api, stateOf, testDir, waitFor } = require('../suite/helpers.cjs');

const pids = (log) => {
  const file = path.join(testDir, log);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).length : 0;
};
const waiting = (lazy) => (lazy.snapshot().needsApproval ?? []).map((r) => r.name).sort();
const approvalNotices = (lazy) => lazy.notifications().filter((n) => /This folder defines/.test(n.message));

/** Has the runner click the first element matching `selector` in the workbench; its outcome. */
async function click(selector) {
  const done = path.join(testDir, 'click.done');
  fs.rmSync(done, { force: true });
  fs.writeFileSync(path.join(testDir, 'click.request'), selector);
  await waitFor(`the runner to click ${selector}`, () => fs.existsSync(done), 10_000);
  return fs.readFileSync(done, 'utf8');
}

suite('Project servers wait for approval (trusted folder)', () => {
  test('the user trusts the folder', async () => {
    await api();
    if (vscode.workspace.isTrusted) return;
    await vscode.commands.executeCommand('workbench.trust.manage');
    const trustButton = '.workspace-trust-limitations.trusted .workspace-trust-buttons-row .monaco-button';
    const outcomes = [];
    await waitFor('the folder trusted', async () => vscode.workspace.isTrusted || (outcomes.push(await click(trustButton)), vscode.workspace.isTrusted), 20_000).catch((err) => {
      throw new Error(`${err.message}; click outcomes: ${outcomes.join('; ')}`);
    });
  });

  test('nothing runs before the answer: NEEDS APPROVAL in the snapshot, the view and Diagnostics; one notification lists both servers', async () => {
    const lazy = await api();
    await waitFor('both project servers waiting for approval', () => waiting(lazy).length === 2, 30_000);
    assert.deepEqual(waiting(lazy), ['clitrusted', 'projmem']);
    assert.equal(lazy.snapshot().servers.length, 0, 'neither is managed');
    await waitFor('the approval notification', () => approvalNotices(lazy).length > 0, 10_000);
    // An absence needs an observation window: no storm, nothing spawned.
    await new Promise((r) => setTimeout(r, 2000));
    const shown = approvalNotices(lazy);
    assert.equal(shown.length, 1, JSON.stringify(lazy.notifications()));
    assert.match(shown[0].message, /This folder defines 2 MCP servers: clitrusted, projmem/);
    assert.deepEqual(shown[0].buttons, ['Allow', 'Review', 'Not now']);
    assert.equal(pids('spawns.log') + pids('cli-spawns.log'), 0, 'no project command ran');
    assert.match(lazy.ui().treeMessage, /2 need approval/);
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.match(report, /\| projmem \| \*\*NEEDS APPROVAL\*\*/);
    assert.match(report, /choose Allow in the notification, or Approve in the Lazy MCP view or MCP Diagnostics/);
  });

  test('an approval given with the CLI while the window is open applies here', async () => {
    const lazy = await api();
    const cli = path.join(vscode.extensions.getExtension('lazy-mcp.lazy-mcp').extensionPath, 'dist', 'cli.js');
    const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
    execFileSync(process.execPath, [cli, 'trust', '--cwd', folder, 'clitrusted'], { env: process.env, stdio: 'pipe' });
    await waitFor('clitrusted catalogued after the CLI approved it', () => stateOf(lazy, 'clitrusted') === 'CATALOGUED', 30_000);
    assert.deepEqual(waiting(lazy), ['projmem']);
    assert.equal(pids('spawns.log'), 0, 'projmem still waits');
  });

  test('Allow in the notification approves it: catalogued, kept in the shared approvals file, no second notification', async () => {
    const lazy = await api();
    const index = lazy.notifications().findIndex((n) => /This folder defines/.test(n.message));
    assert.ok(lazy.chooseNotification(index, 'Allow'));
    await waitFor('projmem catalogued', () => stateOf(lazy, 'projmem') === 'CATALOGUED', 30_000);
    assert.equal(pids('spawns.log'), 1, 'cataloguing spawned it once');
    assert.deepEqual(waiting(lazy), []);
    const config = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
    const approvals = JSON.parse(fs.readFileSync(path.join(config, 'lazy-mcp', 'approvals.json'), 'utf8'));
    const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
    assert.deepEqual(Object.keys(approvals.projects[folder].servers).sort(), ['clitrusted', 'projmem']);
    assert.equal(approvalNotices(lazy).length, 1, 'asked once');
  });
});
