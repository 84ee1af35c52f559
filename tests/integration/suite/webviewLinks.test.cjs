// The MCP Diagnostics webview's links, clicked in the real workbench (the runner
// clicks inside the webview iframe on request: click.request → click.done):
// Disable / Enable act on the server, a source link opens the config file at
// the entry. Warm phase, so enabling spawns nothing.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const phase = process.env.LAZY_MCP_TEST_PHASE || 'dev';
const workspace = process.env.LAZY_MCP_TEST_WORKSPACE || vscode.workspace.workspaceFolders?.[0]?.uri.fsPath || '';
const dir = path.join(workspace, '.lazy-mcp-test');

async function waitFor(what, predicate, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Has the runner click the first element matching `selector` in the workbench's frames. */
async function click(selector) {
  const done = path.join(dir, 'click.done');
  fs.rmSync(done, { force: true });
  fs.writeFileSync(path.join(dir, 'click.request'), selector);
  await waitFor(`the runner to click ${selector}`, () => fs.existsSync(done), 10_000);
  const outcome = fs.readFileSync(done, 'utf8');
  assert.equal(outcome, 'clicked', outcome);
}

/** Clicks once the (re-rendered) webview shows the link. */
async function clickWhenShown(selector) {
  await waitFor(`the webview to show ${selector}`, async () => {
    try {
      await click(selector);
      return true;
    } catch (err) {
      if (!/no element matches/.test(err.message)) throw err;
      return false;
    }
  });
}

if (phase === 'warm') {
  suite('MCP Diagnostics webview links', () => {
    test('Disable and Enable links act on the server; a source link opens the file at the entry', async () => {
      const lazy = await vscode.extensions.getExtension('lazy-mcp.lazy-mcp').activate();
      const stateOf = (name) => lazy.snapshot().servers.find((s) => s.name === name)?.state.kind;
      await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      await clickWhenShown('a[href="lazy-mcp://disable?server=everything"]');
      await waitFor('everything disabled', () => stateOf('everything') === 'DISABLED');
      await clickWhenShown('a[href="lazy-mcp://enable?server=everything"]');
      await waitFor('everything enabled', () => stateOf('everything') === 'CATALOGUED');

      const source = lazy.snapshot().servers.find((s) => s.name === 'memory').source;
      await clickWhenShown(`a[href^="lazy-mcp://open?"][href*="${encodeURIComponent(path.basename(source.file))}"]`);
      const editor = await waitFor('the config file open', () => {
        const e = vscode.window.activeTextEditor;
        return e && e.document.uri.fsPath === source.file ? e : undefined;
      });
      assert.equal(editor.selection.active.line + 1, source.line, 'the cursor is at the entry');
    });
  });
}
