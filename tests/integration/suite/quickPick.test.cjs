// The palette path in a real VS Code: Disable Server / Enable Server without an
// argument show a quick pick of the servers in a state the command applies to;
// accepting an item acts on that server. Warm phase (the catalogue is there, so
// enabling again spawns nothing).
'use strict';

const assert = require('node:assert/strict');
const vscode = require('vscode');

const { api, measure, phase, stateOf, waitFor, waitForVisible, workspace } = require('./helpers.cjs');

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

    test('a pick names sources as MCP Diagnostics does; a command no server allows says so in words (issue 23)', async () => {
      const lazy = await api();
      await waitFor('both servers catalogued', () => ['everything', 'memory'].every((n) => ['CATALOGUED', 'CONNECTED'].includes(stateOf(lazy, n))));
      const picking = vscode.commands.executeCommand('lazyMcp.disableServer');
      // "9 tools · .copilot/mcp-config.json:3": workspace-relative, as in Diagnostics, not the absolute path.
      await waitForVisible('.quick-input-list .monaco-list-row:has-text("tools · .copilot/mcp-config.json:")');
      assert.equal((await measure(`.quick-input-list .monaco-list-row:has-text("${workspace}"):visible`)).found, false, 'no absolute path in the pick');
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await picking;
      // No server here signs in with OAuth.
      const before = lazy.notifications().length;
      await vscode.commands.executeCommand('lazyMcp.signOut');
      await vscode.commands.executeCommand('lazyMcp.signIn');
      assert.deepEqual(
        lazy.notifications().slice(before).map((n) => n.message),
        ['Lazy MCP: No server is signed in.', 'Lazy MCP: No server needs signing in.'],
      );
    });
  });
}
