// What a newcomer could not read (issue 23, sections 2 and 3), in the real VS Code: the
// Diagnostics webview's CSP lets VS Code's theme styles in, the palette finds MCP
// Diagnostics under "Lazy MCP", servers left to VS Code are listed in the view and
// counted, and a broken config file never looks fixed. Warm phase (a persisted
// catalogue: nothing here spawns); every test leaves the workspace as it found it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const vscode = require('vscode');

const { api, phase, waitFor, waitForVisible } = require('./helpers.cjs');
const { log } = require('./index.cjs');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CSP_STYLE_VIOLATION = /Applying inline style violates the following Content Security Policy directive/;

/** Lines of the browser console (every frame) so far; the headless runner records them. */
function pageConsole() {
  const file = process.env.LAZY_MCP_TEST_PAGE_CONSOLE_LOG;
  return file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : undefined;
}

if (phase === 'warm') {
  suite('States and problems a newcomer can read (issue 23)', () => {
    test('MCP Diagnostics: the webview CSP allows the styles VS Code injects (no style-src violation)', async function () {
      if (!pageConsole()) this.skip(); // desktop VS Code: no browser console to read
      const before = pageConsole().filter((l) => CSP_STYLE_VIOLATION.test(l)).length;
      await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      await waitForVisible('table:has-text("last error")');
      await sleep(1500); // the console messages of the webview's load arrive after it is drawn
      const violations = pageConsole().filter((l) => CSP_STYLE_VIOLATION.test(l));
      log(`  style-src violations in the browser console: ${violations.length - before} since Diagnostics opened`);
      assert.equal(violations.length - before, 0, violations.slice(before, before + 3).join('\n'));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    test('the palette finds MCP Diagnostics under "Lazy MCP"; the view title button still reads "MCP Diagnostics"', async () => {
      await vscode.commands.executeCommand('workbench.action.quickOpen', '>Lazy MCP');
      try {
        await waitForVisible('.quick-input-list .monaco-list-row:has-text("Lazy MCP: MCP Diagnostics")');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      }
      await vscode.commands.executeCommand('workbench.view.extension.lazyMcp');
      await waitForVisible('.action-label[aria-label="MCP Diagnostics"]');
    });

    test('servers left to VS Code are listed in the view under "Managed by VS Code"; the summary counts add up', async () => {
      const lazy = await api();
      await vscode.commands.executeCommand('workbench.view.extension.lazyMcp');
      // The fixture's .mcp.json holds filesystem, which VS Code loads itself (leaveToVsCode).
      await waitForVisible('.monaco-list-row:has-text("Managed by VS Code (1)")');
      await waitForVisible('.monaco-list-row:has-text("filesystem")');
      const snap = lazy.snapshot();
      const ui = await waitFor('the view summary', () => (lazy.ui().treeMessage.includes('managed by VS Code') ? lazy.ui() : undefined), 10_000);
      assert.match(ui.treeMessage, / · 1 managed by VS Code$/);
      const counted = ui.treeMessage.split(' · ').reduce((sum, part) => sum + Number(part.split(' ')[0]), 0);
      assert.equal(counted, snap.servers.length + 1, `${ui.treeMessage}: every configured server counted once`);
      const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      const header = report.split('\n').find((l) => l.includes('servers configured'));
      const configured = Number(/\*\*(\d+) servers configured/.exec(header)[1]);
      const parts = header.split('** — ')[1].split(' · ').reduce((sum, part) => sum + Number(part.split(' ')[0]), 0);
      assert.equal(parts, configured, header);
      assert.match(header, / · 1 managed by VS Code$/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  });
}
