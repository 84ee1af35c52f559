// The palette path in a real VS Code: Disable Server / Enable Server without an
// argument show a quick pick of the servers in a state the command applies to;
// accepting an item acts on that server. Warm phase (the catalogue is there, so
// enabling again spawns nothing).
'use strict';

const assert = require('node:assert/strict');
const vscode = require('vscode');

const { api, phase, stateOf, waitFor } = require('./helpers.cjs');

/**
 * Runs a command that shows a quick pick, then accepts its first (selected) item. The pick opens
 * asynchronously (late on a loaded machine, where one accept after a fixed pause missed it and
 * left the pick open), so accept until the command returns.
 */
async function pickFirst(command) {
  let returned = false;
  const done = vscode.commands.executeCommand(command).finally(() => {
    returned = true;
  });
  while (!returned) {
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await Promise.race([done, new Promise((r) => setTimeout(r, 250))]);
  }
  await done;
}

if (phase === 'warm') {
  suite('Commands from the palette (quick picks)', () => {
    test('Disable Server picks from the enabled servers; Enable Server from the disabled ones', async () => {
      const lazy = await api();
      await waitFor('both servers catalogued', () => ['everything', 'memory'].every((n) => ['CATALOGUED', 'CONNECTED'].includes(stateOf(lazy, n))));
      // Servers are listed by name: "everything" is the first item.
      await pickFirst('lazyMcp.disableServer');
      await waitFor('everything disabled', () => stateOf(lazy, 'everything') === 'DISABLED');
      assert.notEqual(stateOf(lazy, 'memory'), 'DISABLED', 'only the picked server');
      assert.ok(!lazy.exposedServers().includes('everything'));
      // Only "everything" is disabled, so it is the one Enable offers.
      await pickFirst('lazyMcp.enableServer');
      await waitFor('everything back', () => stateOf(lazy, 'everything') === 'CATALOGUED' && lazy.exposedServers().includes('everything'));
    });
  });
}
