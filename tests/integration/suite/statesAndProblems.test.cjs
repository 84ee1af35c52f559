// What a newcomer could not read (issue 23, sections 2 and 3), in the real VS Code: the
// Diagnostics webview's CSP lets VS Code's theme styles in, the palette finds MCP
// Diagnostics under "Lazy MCP", servers left to VS Code are listed in the view and
// counted, and a broken config file never looks fixed. Warm phase (a persisted
// catalogue: nothing here spawns); every test leaves the workspace as it found it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vscode = require('vscode');

const { api, measure, phase, stateOf, waitFor, waitForVisible, workspace } = require('./helpers.cjs');
const { log } = require('./index.cjs');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const opencode = path.join(workspace, 'opencode.json');
const problems = async () => JSON.parse(await vscode.commands.executeCommand('lazyMcp.copyDiagnosticsJson')).problems;
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

    test('a broken file whose tab is closed keeps its problem in Problems (Lazy MCP takes it back from VS Code\'s JSON checker)', async () => {
      const lazy = await api();
      const original = fs.readFileSync(opencode, 'utf8');
      const lines = original.split('\n');
      const commaLine = lines.findIndex((l) => l.trimEnd().endsWith(','));
      assert.ok(commaLine >= 0);
      const uri = vscode.Uri.file(opencode);
      const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Lazy MCP');
      const from = lazy.notifications().length;
      await vscode.window.showTextDocument(uri);
      try {
        lines[commaLine] = lines[commaLine].trimEnd().replace(/,$/, '');
        fs.writeFileSync(opencode, lines.join('\n'));
        await waitFor('Lazy MCP to see the syntax error', async () => (await problems()).some((p) => p.file === opencode));
        await sleep(1000);
        assert.deepEqual(ours().map((d) => d.message), [], 'while its tab is open the error is VS Code\'s to show');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        const back = await waitFor('Lazy MCP\'s own squiggle once the tab is closed', () => (ours().length > 0 ? ours() : undefined), 10_000);
        log(`  after the tab closed, Problems shows: ${back.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`).join('; ')}`);
        assert.equal(back[0].severity, vscode.DiagnosticSeverity.Error);
        assert.deepEqual(lazy.notifications().slice(from).filter((n) => n.message.includes('opencode.json')).map((n) => n.message), [], 'closing a tab is not news');
      } finally {
        fs.writeFileSync(opencode, original);
        await waitFor('the error gone', async () => (await problems()).every((p) => p.file !== opencode));
        await waitFor('its squiggle gone', () => ours().length === 0, 10_000);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    });

    test('config problem notifications name each file (~/… or workspace-relative), never re-announce an unchanged problem, and go to the log', async () => {
      const lazy = await api();
      const wsFile = path.join(workspace, '.copilot', 'mcp-config.json');
      const userFile = path.join(os.homedir(), '.copilot', 'mcp-config.json');
      assert.ok(!fs.existsSync(userFile), `${userFile} is the test's own`);
      const original = fs.readFileSync(wsFile, 'utf8');
      const from = lazy.notifications().length;
      const aboutConfig = () => lazy.notifications().slice(from).filter((n) => n.message.includes('mcp-config.json'));
      const wsPlace = /(?<!~\/)\.copilot\/mcp-config\.json:\d+:\d+/;
      const userPlace = /~\/\.copilot\/mcp-config\.json:\d+:\d+/;
      try {
        // Two files of the same name, both broken (a missing comma), neither open.
        fs.mkdirSync(path.dirname(userFile), { recursive: true });
        fs.writeFileSync(userFile, '{ "mcpServers": { "usertiny": { "command": "node" "args": [] } } }\n');
        fs.writeFileSync(wsFile, original.replace(/"type": "local",/, '"type": "local"'));
        await waitFor('both problems seen', async () => {
          const files = (await problems()).map((p) => p.file);
          return files.includes(wsFile) && files.includes(userFile);
        });
        await waitFor('the notifications', () => aboutConfig().some((n) => userPlace.test(n.message)) && aboutConfig().some((n) => wsPlace.test(n.message)), 10_000);
        const announced = aboutConfig().map((n) => n.message);
        log(`  announced: ${announced.join(' | ')}`);
        for (const m of announced) assert.doesNotMatch(m, /more\)/, 'no unnamed "(and N more)"');
        assert.equal(announced.filter((m) => userPlace.test(m)).length, 1, 'the user file announced once');
        assert.equal(announced.filter((m) => wsPlace.test(m)).length, 1, 'the workspace file announced once');
        assert.ok(lazy.logLines().some((l) => /^error config problem: ~\/\.copilot\/mcp-config\.json:\d+:\d+: /.test(l)), 'the user file\'s problem in the log');
        assert.ok(lazy.logLines().some((l) => /^error config problem: \.copilot\/mcp-config\.json:\d+:\d+: /.test(l)), 'the workspace file\'s problem in the log');

        // The user fixes one file: the other one's unchanged error is not announced again.
        fs.rmSync(userFile);
        await waitFor('the user file\'s problem gone', async () => (await problems()).every((p) => p.file !== userFile));
        await sleep(1500);
        assert.equal(aboutConfig().length, announced.length, `nothing re-announced after a fix: ${aboutConfig().slice(announced.length).map((n) => n.message).join(' | ')}`);
        assert.ok(lazy.logLines().some((l) => /^info config problem gone: ~\/\.copilot\/mcp-config\.json/.test(l)), 'the fix is logged');

        // Sync Config re-reads everything: still nothing re-announced.
        await vscode.commands.executeCommand('lazyMcp.syncConfig');
        await sleep(1000);
        assert.equal(aboutConfig().length, announced.length, `nothing re-announced by Sync Config: ${aboutConfig().slice(announced.length).map((n) => n.message).join(' | ')}`);
      } finally {
        fs.rmSync(userFile, { force: true });
        fs.writeFileSync(wsFile, original);
        await waitFor('the problems gone', async () => (await problems()).every((p) => p.file !== wsFile && p.file !== userFile));
      }
    });

    test('a disabled server: "DISABLED · N tools catalogued" in the view, no Refresh on it, and "All servers" counts only what it refreshes', async () => {
      const lazy = await api();
      await vscode.commands.executeCommand('workbench.view.extension.lazyMcp');
      await vscode.commands.executeCommand('lazyMcp.disableServer', 'everything');
      await waitFor('everything disabled', () => stateOf(lazy, 'everything') === 'DISABLED');
      try {
        const everything = lazy.snapshot().servers.find((s) => s.name === 'everything');
        assert.ok(everything.cataloguedTools > 0, 'the catalogue is kept');
        assert.equal(everything.tools, 0, 'its tools are withdrawn');
        await waitForVisible(`.monaco-list-row:has-text("everything"):has-text("DISABLED · ${everything.cataloguedTools} tools catalogued")`);
        assert.ok(!everything.actions.includes('refresh'), everything.actions.join(','));

        // Only memory is left to refresh (filesystem is VS Code's).
        const picking = vscode.commands.executeCommand('lazyMcp.refreshCatalogue');
        try {
          await waitForVisible('.quick-input-list .monaco-list-row:has-text("All servers"):has-text("1 server")');
          assert.equal((await measure('.quick-input-list .monaco-list-row:has-text("everything"):visible')).found, false, 'a disabled server is not offered');
        } finally {
          await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
          await picking;
        }
      } finally {
        await vscode.commands.executeCommand('lazyMcp.enableServer', 'everything');
        await waitFor('everything back', () => stateOf(lazy, 'everything') === 'CATALOGUED');
      }
    });

    test('MCP Diagnostics breaks no word mid-word (states, pids, dates) at 1000 and 1400 px, even beside a long error', async () => {
      const lazy = await api();
      const original = fs.readFileSync(opencode, 'utf8');
      try {
        const config = JSON.parse(original);
        config.mcp.brokenwithalongname = { type: 'local', command: [path.join(workspace, 'no-such-mcp-server-at-a-rather-long-path', 'and-an-even-longer-executable-name-that-cannot-wrap')] };
        fs.writeFileSync(opencode, JSON.stringify(config, null, 2));
        await waitFor('the long-error server FAILED', () => stateOf(lazy, 'brokenwithalongname') === 'FAILED');
        await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
        await waitForVisible('table:has-text("last error")');
        for (const width of [1400, 1000]) {
          // After a resize the webview lays out again (slowly under load): measure once it shows the table.
          const layout = await waitFor(`the report's table at ${width} px`, async () => {
            const l = await measure({ selector: 'table:has-text("last error")', width, words: true });
            return l.found && l;
          }, 15_000);
          // Long unbroken tokens (paths, command lines) may wrap anywhere; no other word may
          // (a break after a hyphen or a slash is not mid-word).
          const broken = layout.brokenWords.filter((w) => w.length <= 33);
          log(`  MCP Diagnostics at ${width} px: webview ${layout.innerWidth} px, scrollWidth ${layout.scrollWidth}; words broken mid-word: ${broken.length ? broken.join(', ') : 'none'}; tables too wide: ${JSON.stringify(layout.tables)}`);
          assert.deepEqual(broken, [], `mid-word breaks at ${width} px`);
          assert.ok(layout.scrollWidth <= layout.clientWidth, `no horizontal scrolling at ${width} px: ${layout.scrollWidth} > ${layout.clientWidth}; ${JSON.stringify(layout.tables)}`);
        }
      } finally {
        await measure({ selector: 'body', width: 1400 });
        fs.writeFileSync(opencode, original);
        await waitFor('brokenwithalongname gone', () => stateOf(lazy, 'brokenwithalongname') === undefined);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    });

    test('MCP Diagnostics counts down to the next retry every second, agreeing with the servers view', async () => {
      const lazy = await api();
      const original = fs.readFileSync(opencode, 'utf8');
      const row = () => lazy.snapshot().servers.find((s) => s.name === 'retrysoon');
      const remaining = () => Math.ceil((row().retryAtMs - Date.now()) / 1000);
      /** Whether `where` shows "next retry in N s" for an N within 1 of the true countdown. */
      const showsCountdown = async (where) => {
        const n = remaining();
        const selector = [n - 1, n, n + 1].map((k) => `${where}:has-text("next retry in ${k} s")`).join(', ');
        return (await measure(selector)).found;
      };
      try {
        const config = JSON.parse(original);
        config.mcp.retrysoon = { type: 'local', command: [path.join(workspace, 'no-such-mcp-server')] };
        fs.writeFileSync(opencode, JSON.stringify(config, null, 2));
        await vscode.commands.executeCommand('workbench.view.extension.lazyMcp');
        // A retry due in at least 6 s (the 10 s wait after the second failure).
        await waitFor('a retry at least 6 s away', () => row()?.state.kind === 'FAILED' && row().retryAtMs != null && remaining() >= 6, 30_000);
        await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
        await waitFor('Diagnostics to show the countdown', () => showsCountdown('td'), 3_000);
        await sleep(2500);
        assert.ok(row().state.kind === 'FAILED' && remaining() >= 2, 'still counting down');
        assert.ok(await showsCountdown('td'), `Diagnostics ticks: ${remaining()} s left, not shown`);
        assert.ok(await showsCountdown('.monaco-list-row:has-text("retrysoon")'), 'the servers view agrees');
      } finally {
        fs.writeFileSync(opencode, original);
        await waitFor('retrysoon gone', () => stateOf(lazy, 'retrysoon') === undefined);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    });
  });
}
