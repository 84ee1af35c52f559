// The `shared` phase's first window (issue 26): with lazyMcp.shareServers on, a server both
// windows use runs once; a project server still runs once per project.
'use strict';

const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, waitFor } = require('../suite/helpers.cjs');
const { callTool, heard, runningSpawns, tell, tellFailure } = require('./exchange.cjs');

const pidOf = (lazy, name) => lazy.snapshot().servers.find((s) => s.name === name)?.pid;

suite('Shared servers: the first of two windows', () => {
  teardown(tellFailure);

  test('a call to the user-level memory server and to the project server starts each here', async function () {
    this.timeout(240_000);
    const lazy = await api();
    // Read-only tools: VS Code asks no confirmation for them.
    assert.match(await callTool('memory', '_read_graph', {}), /entities/);
    assert.match(await callTool('everything', '_echo', { message: 'from the first window' }), /from the first window/);
    const pids = await waitFor('both servers connected with a pid', () => pidOf(lazy, 'memory') && pidOf(lazy, 'everything') && { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') });
    tell('first-window', pids);
  });

  test('the second window reused the memory process and started its own project server', async function () {
    this.timeout(240_000);
    const lazy = await api();
    const mine = { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') };
    const theirs = await heard('second-window');
    assert.equal(theirs.memory, mine.memory, 'one memory process serves both windows');
    assert.notEqual(theirs.everything, mine.everything, "a project server never runs with another project's folder");
    // Cataloguing processes may still be exiting (a server that ignores stdin's end gets SIGTERM after 2 s).
    let running = [];
    await waitFor('running servers: memory once, everything once per project', () => (running = runningSpawns()).length === 3, 15_000).catch((err) => {
      throw new Error(`${err.message}; running: ${running.join(', ')}`);
    });
    // MCP Diagnostics says the memory process is shared, and by both windows.
    const shared = new RegExp(`\\| ${mine.memory} \\(shared by 2 clients\\) \\|`);
    await waitFor('MCP Diagnostics to show memory shared by 2 clients', async () => shared.test(await vscode.commands.executeCommand('lazyMcp.showDiagnostics')), 15_000);
    // ...and names who holds it: this window first (its folder), then the other one.
    const folder = require('node:path').basename(vscode.workspace.workspaceFolders[0].uri.fsPath);
    const holders = new RegExp(`\\n- memory \\(pid ${mine.memory}\\): VS Code window · ${folder} \\(for [^)]+\\), VS Code window · (?!${folder} )\\S+ \\(for `);
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.match(report, holders);
    tell('first-window-done', {});
  });
});
