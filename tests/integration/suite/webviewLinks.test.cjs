// The MCP Diagnostics webview's links, clicked in the real workbench (the runner
// clicks inside the webview iframe on request: click.request → click.done):
// Disable / Enable act on the server, a source link opens the config file at
// the entry. Warm phase, so enabling spawns nothing.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const { api, phase, stateOf: stateOfServer, testDir: dir, waitFor } = require('./helpers.cjs');

/** Has the runner click the first element matching `selector`; resolves with its outcome. */
async function click(selector) {
  const done = path.join(dir, 'click.done');
  fs.rmSync(done, { force: true });
  fs.writeFileSync(path.join(dir, 'click.request'), selector);
  await waitFor(`the runner to click ${selector}`, () => fs.existsSync(done), 10_000);
  return fs.readFileSync(done, 'utf8');
}

/**
 * Clicks `selector` until `effect()` holds. The webview re-renders whenever a server
 * changes state, so a link may not be there yet, or its frame may be replaced mid-click.
 */
async function clickUntil(selector, what, effect) {
  const outcomes = [];
  const clicked = async () => {
    if (await effect()) return true;
    outcomes.push(await click(selector));
    for (let i = 0; i < 20 && !(await effect()); i += 1) await new Promise((r) => setTimeout(r, 100));
    return effect();
  };
  await waitFor(what, clicked, 20_000).catch((err) => {
    throw new Error(`${err.message}; click outcomes: ${outcomes.join('; ')}`);
  });
}

if (phase === 'warm') {
  suite('MCP Diagnostics webview links', () => {
    test('Disable and Enable links act on the server; a source link opens the file at the entry', async () => {
      const lazy = await api();
      const stateOf = (name) => stateOfServer(lazy, name);
      await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      await clickUntil('a[href="lazy-mcp://disable?server=everything"]', 'everything disabled', () => stateOf('everything') === 'DISABLED');
      await clickUntil('a[href="lazy-mcp://enable?server=everything"]', 'everything enabled', () => stateOf('everything') === 'CATALOGUED');

      const source = lazy.snapshot().servers.find((s) => s.name === 'memory').source;
      const opened = () => {
        const e = vscode.window.activeTextEditor;
        return e && e.document.uri.fsPath === source.file ? e : undefined;
      };
      await clickUntil(`a[href^="lazy-mcp://open?"][href*="${encodeURIComponent(path.basename(source.file))}"]`, 'the config file open', opened);
      const editor = opened();
      assert.equal(editor.selection.active.line + 1, source.line, 'the cursor is at the entry');
    });
  });
}
