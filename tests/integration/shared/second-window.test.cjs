// The `shared` phase's second window (issue 26): its calls attach to the process the first
// window started for the user-level server; its own project gets its own process.
'use strict';

const assert = require('node:assert/strict');
const { api, waitFor } = require('../suite/helpers.cjs');
const { callTool, heard, tell, tellFailure } = require('./exchange.cjs');

const pidOf = (lazy, name) => lazy.snapshot().servers.find((s) => s.name === name)?.pid;

suite('Shared servers: the second of two windows', () => {
  teardown(tellFailure);

  test("a call to memory here is answered by the first window's process", async function () {
    this.timeout(240_000);
    const first = await heard('first-window');
    const lazy = await api();
    assert.match(await callTool('memory', '_read_graph', {}), /entities/);
    assert.match(await callTool('everything', '_echo', { message: 'from the second window' }), /from the second window/);
    const pids = await waitFor('both servers connected with a pid', () => pidOf(lazy, 'memory') && pidOf(lazy, 'everything') && { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') });
    assert.equal(pids.memory, first.memory, "this window's memory is the first window's process");
    tell('second-window', pids);
    // Stay open until the first window has counted the processes both windows hold.
    await heard('first-window-done');
  });
});
