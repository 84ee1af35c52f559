// The `isolated` phase's first window (issue 26 #7): with lazyMcp.shareServers off, a server
// both windows use runs once per window, each window's own process, and no owner is started.
'use strict';

const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, waitFor } = require('../suite/helpers.cjs');
const { callTool, heard, runningSpawns, tell, tellFailure } = require('../shared/exchange.cjs');
const { ownerTraces, spawnedByThisWindow } = require('./ownProcess.cjs');

const pidOf = (lazy, name) => lazy.snapshot().servers.find((s) => s.name === name)?.pid;

suite('Sharing off: the first of two windows', () => {
  teardown(tellFailure);

  test('a call to the user-level memory server and to the project server starts each in this window', async function () {
    this.timeout(240_000);
    const lazy = await api();
    assert.match(await callTool('memory', '_read_graph', {}), /entities/);
    assert.match(await callTool('everything', '_echo', { message: 'from the first window' }), /from the first window/);
    const pids = await waitFor('both servers connected with a pid', () => pidOf(lazy, 'memory') && pidOf(lazy, 'everything') && { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') });
    assert.ok(spawnedByThisWindow(pids.memory), `memory (pid ${pids.memory}) is this window's child`);
    tell('first-window', pids);
  });

  test('the second window started its own memory process: two memory processes, no owner of shared servers', async function () {
    this.timeout(240_000);
    const lazy = await api();
    const mine = { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') };
    const theirs = await heard('second-window');
    assert.notEqual(theirs.memory, mine.memory, 'each window runs its own memory process');
    assert.notEqual(theirs.everything, mine.everything);
    // Cataloguing processes may still be exiting (a server that ignores stdin's end gets SIGTERM after 2 s).
    let running = [];
    await waitFor('running servers: memory and everything once per window', () => (running = runningSpawns()).length === 4, 15_000).catch((err) => {
      throw new Error(`${err.message}; running: ${running.join(', ')}`);
    });
    assert.deepEqual([...running].sort(), [mine.memory, mine.everything, theirs.memory, theirs.everything].sort());
    assert.deepEqual(ownerTraces(), [], 'no owner of shared servers was started (its socket directory is empty)');
    // MCP Diagnostics shows this window's memory process as its own, not shared.
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.match(report, new RegExp(`\\| ${mine.memory} \\|`));
    assert.doesNotMatch(report, /\(shared/);
    tell('first-window-done', {});
  });
});
