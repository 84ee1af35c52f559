// The `isolated` phase's second window (issue 26 #7): with lazyMcp.shareServers off, its call to
// memory starts a process of its own instead of reaching the first window's.
'use strict';

const assert = require('node:assert/strict');
const { api, waitFor } = require('../suite/helpers.cjs');
const { callTool, heard, tell, tellFailure } = require('../shared/exchange.cjs');
const { ownerTraces, spawnedByThisWindow } = require('./ownProcess.cjs');

const pidOf = (lazy, name) => lazy.snapshot().servers.find((s) => s.name === name)?.pid;

suite('Sharing off: the second of two windows', () => {
  teardown(tellFailure);

  test("a call to memory here starts this window's own process, not the first window's", async function () {
    this.timeout(240_000);
    const first = await heard('first-window');
    const lazy = await api();
    assert.match(await callTool('memory', '_read_graph', {}), /entities/);
    assert.match(await callTool('everything', '_echo', { message: 'from the second window' }), /from the second window/);
    const pids = await waitFor('both servers connected with a pid', () => pidOf(lazy, 'memory') && pidOf(lazy, 'everything') && { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') });
    assert.notEqual(pids.memory, first.memory, "this window's memory is not the first window's process");
    assert.ok(spawnedByThisWindow(pids.memory), `memory (pid ${pids.memory}) is this window's child`);
    assert.deepEqual(ownerTraces(), [], 'no owner of shared servers was started');
    tell('second-window', pids);
    // Stay open until the first window has counted the processes both windows hold.
    await heard('first-window-done');
  });
});
