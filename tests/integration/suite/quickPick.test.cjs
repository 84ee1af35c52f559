// The palette path in a real VS Code: Disable Server / Enable Server without an
// argument show a quick pick of the servers in a state the command applies to;
// accepting an item acts on that server. Warm phase (the catalogue is there, so
// enabling again spawns nothing).
'use strict';

const assert = require('node:assert/strict');
const vscode = require('vscode');

const { api, phase, stateOf, waitFor, waitForVisible } = require('./helpers.cjs');

/** Runs a command that shows a quick pick titled `title`, then accepts its first (selected) item once it is on screen. */
async function pickFirst(command, title) {
  const done = vscode.commands.executeCommand(command);
  await waitForVisible(`.quick-input-widget:has(.quick-input-title:has-text("${title}")) .quick-input-list .monaco-list-row`);
  await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  await done;
}

if (phase === 'warm') {
  suite('Commands from the palette (quick picks)', () => {
    test('Disable Server picks from the enabled servers; Enable Server from the disabled ones', async () => {
      const lazy = await api();
      await waitFor('both servers catalogued', () => ['everything', 'memory'].every((n) => ['CATALOGUED', 'CONNECTED'].includes(stateOf(lazy, n))));
      // Servers are listed by name: "everything" is the first item.
      await pickFirst('lazyMcp.disableServer', 'Lazy MCP: Disable Server');
      await waitFor('everything disabled', () => stateOf(lazy, 'everything') === 'DISABLED');
      assert.notEqual(stateOf(lazy, 'memory'), 'DISABLED', 'only the picked server');
      assert.ok(!lazy.exposedServers().includes('everything'));
      // Only "everything" is disabled, so it is the one Enable offers.
      await pickFirst('lazyMcp.enableServer', 'Lazy MCP: Enable Server');
      await waitFor('everything back', () => stateOf(lazy, 'everything') === 'CATALOGUED' && lazy.exposedServers().includes('everything'));
    });
  });
}
