// What a user sees (issue 12, defects 3, 4, 6, 7, 8, 9), in the real VS Code:
// failed actions are answered by a notification (recorded by the extension's
// notifier: the smoke-test driver hides the toasts themselves), NEEDS AUTH says
// how to configure a token, Refresh Catalogue can be cancelled, config syntax
// errors are not reported twice nor toasted while the file is open, MCP
// Diagnostics fits a 1400 px window and names files ~/… or workspace-relative,
// the status bar counts enabled servers. Warm phase, after the no-spawn checks
// (files run in name order); every test leaves the workspace as it found it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const vscode = require('vscode');

const { api, measure, phase, stateOf, testDir, waitFor, waitForVisible, workspace } = require('./helpers.cjs');
const { log } = require('./index.cjs');

const spawnLog = path.join(testDir, 'spawns.log');
const spawnCount = () => (fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).length : 0);
const opencode = path.join(workspace, 'opencode.json');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Notifications shown since `from` (an index into the record). */
const shownSince = (lazy, from) => lazy.notifications().slice(from);

/** Replaces opencode.json for the duration of `fn`, then restores it and waits for the config to settle. */
async function withOpencode(lazy, edit, fn) {
  const original = fs.readFileSync(opencode, 'utf8');
  try {
    fs.writeFileSync(opencode, edit(original));
    await fn();
  } finally {
    fs.writeFileSync(opencode, original);
    await waitFor('opencode.json restored', async () => {
      const json = JSON.parse(await vscode.commands.executeCommand('lazyMcp.copyDiagnosticsJson'));
      return json.problems.every((p) => p.file !== opencode) && ['broken', 'needsauth'].every((n) => stateOf(lazy, n) === undefined);
    });
  }
}

/** An HTTP "MCP server" that answers every request with 401, like one that wants a token. */
async function unauthorizedServer() {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="test"', 'content-type': 'application/json' });
    res.end('{"error":"unauthorized"}');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

if (phase === 'warm') {
  suite('What the user sees (notifications, labels, layout)', () => {
    test('#6 Refresh Catalogue: Escape cancels, "All servers" refreshes all and restarts the cache age', async () => {
      const lazy = await api();
      // Earlier tests may have left them connected: back to catalogued-only, so a refresh spawns.
      for (const n of ['everything', 'memory']) if (stateOf(lazy, n) === 'CONNECTED') await vscode.commands.executeCommand('lazyMcp.disconnect', n);
      await waitFor('both servers catalogued', () => ['everything', 'memory'].every((n) => stateOf(lazy, n) === 'CATALOGUED'));
      const spawns = spawnCount();
      const ageBefore = lazy.snapshot().servers.find((s) => s.name === 'memory').cacheAgeMs;

      const cancelled = vscode.commands.executeCommand('lazyMcp.refreshCatalogue');
      // Title Case title, and "All servers" as an item.
      await waitForVisible('.quick-input-title:has-text("Lazy MCP: Refresh Catalogue")');
      await waitForVisible('.quick-input-list .monaco-list-row:has-text("All servers")');
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await cancelled;
      await sleep(1500);
      assert.equal(spawnCount(), spawns, 'Escape refreshed nothing');
      assert.deepEqual(['everything', 'memory'].map((n) => stateOf(lazy, n)), ['CATALOGUED', 'CATALOGUED']);

      const all = vscode.commands.executeCommand('lazyMcp.refreshCatalogue');
      await waitForVisible('.quick-input-list .monaco-list-row:has-text("All servers")');
      // "All servers" is the first item, so it is the selected one.
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await all;
      // Re-listed, each by one process: a new one, or (servers are shared by default) the one the
      // owner still holds for its handover grace after the disconnect above.
      const ageOf = (n) => lazy.snapshot().servers.find((s) => s.name === n).cacheAgeMs;
      await waitFor('both servers catalogued again', () => ['everything', 'memory'].every((n) => stateOf(lazy, n) === 'CATALOGUED' && ageOf(n) < 5000 && ageOf(n) < ageBefore));
      assert.ok(spawnCount() <= spawns + 2, `at most one process per server: ${spawnCount() - spawns} spawned`);
      const ageAfter = ageOf('memory');
      assert.ok(ageAfter < 5000 && ageAfter < ageBefore, `cache age restarted: ${ageBefore} ms before, ${ageAfter} ms after`);
    });

    test('#3 #4 failures are announced once with Show Diagnostics; Connect Now answers; NEEDS AUTH says how to add a token; #8 Diagnostics fits 1400 px', async () => {
      const lazy = await api();
      const auth = await unauthorizedServer();
      try {
        await withOpencode(
          lazy,
          (text) => {
            const config = JSON.parse(text);
            config.mcp.broken = { type: 'local', command: [path.join(workspace, 'no-such-mcp-server')] };
            // Static credentials the server refuses (a remote server without any would sign in with OAuth).
            config.mcp.needsauth = { type: 'remote', url: `http://127.0.0.1:${auth.address().port}/mcp`, headers: { Authorization: 'Bearer refused-token' } };
            return JSON.stringify(config, null, 2);
          },
          async () => {
            await waitFor('broken FAILED and needsauth NEEDS AUTH', () => stateOf(lazy, 'broken') === 'FAILED' && stateOf(lazy, 'needsauth') === 'NEEDS_AUTH');
            // #4: static credentials refused: no promise of a sign-in flow; how to configure a token instead.
            const needsAuth = lazy.snapshot().servers.find((s) => s.name === 'needsauth');
            assert.doesNotMatch(needsAuth.lastError, /to sign in/);
            assert.match(needsAuth.lastError, /requires authentication \(HTTP 401\)/);
            assert.match(needsAuth.lastError, /"headers": \{"Authorization": "Bearer \$\{input:token\}"\}/);

            // #8: the servers table fits a 1400 px window (the long errors above wrap) ...
            const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
            const layout = await waitFor('the Diagnostics table', async () => {
              const m = await measure('table:has-text("last error")');
              return m.found ? m : undefined;
            }, 15_000);
            log(`  measured MCP Diagnostics at a ${layout.viewportWidth} px window: webview ${layout.innerWidth} px, scrollWidth ${layout.scrollWidth}, clientWidth ${layout.clientWidth}`);
            assert.equal(layout.viewportWidth, 1400);
            assert.ok(layout.scrollWidth <= layout.clientWidth, `no horizontal scrolling: scrollWidth ${layout.scrollWidth} > clientWidth ${layout.clientWidth}`);
            // ... and files are named relative to the workspace (root-level files included).
            assert.match(report, /\| everything \| .*\| opencode\.json:\d+ \|/);
            assert.match(report, /\| memory \| .*\| \.copilot\/mcp-config\.json:\d+ \|/);
            assert.doesNotMatch(report, /workspace\/opencode\.json/);

            // #3: both cataloguing failures in one notification, with Show Diagnostics.
            const summaries = () => lazy.notifications().filter((n) => /could not be catalogued/.test(n.message) && n.message.includes("'needsauth'"));
            const summary = await waitFor('the cataloguing summary', () => summaries()[0], 20_000);
            assert.match(summary.message, /2 MCP servers could not be catalogued: .*'broken'.*'needsauth'/);
            assert.deepEqual(summary.buttons, ['Show Diagnostics']);
            assert.equal(summaries().length, 1, 'one notification, not one per server');
            assert.ok(!lazy.notifications().some((n) => /could not be catalogued: (?!.*needsauth)/.test(n.message) && n.message.includes("'broken'")), 'no separate one for broken');

            // #3: Connect Now on FAILED and on NEEDS AUTH is answered with the reason and a next step.
            // Issue 23: a message that already says what to do gets no generic "Check its definition".
            for (const [server, reason] of [['broken', /Could not connect to MCP server 'broken'.*command not found \(ENOENT\); check that it is installed(?!.*Check its definition)/], ['needsauth', /requires authentication.*Authorization/]]) {
              const before = lazy.notifications().length;
              await vscode.commands.executeCommand('lazyMcp.connectNow', server);
              const answer = await waitFor(`an answer to Connect Now on ${server}`, () => shownSince(lazy, before).find((n) => n.message.includes('Connect Now failed')), 20_000);
              assert.match(answer.message, reason);
              assert.deepEqual(answer.buttons, ['Open Definition', 'Show Diagnostics']);
            }
            // Connect Now on a disabled server says why nothing happens.
            await vscode.commands.executeCommand('lazyMcp.disableServer', 'broken');
            const before = lazy.notifications().length;
            await vscode.commands.executeCommand('lazyMcp.connectNow', 'broken');
            const refusal = await waitFor('a refusal', () => shownSince(lazy, before)[0]);
            assert.match(refusal.message, /Cannot connect MCP server 'broken': it is DISABLED\. Enable it first\./);
          },
        );
      } finally {
        await new Promise((r) => auth.close(r));
      }
    });

    test('#8 a user-level config file shows as ~/…, the project one workspace-relative', async () => {
      const lazy = await api();
      const userFile = path.join(os.homedir(), '.copilot', 'mcp-config.json');
      assert.ok(!fs.existsSync(userFile), `${userFile} is the test's own`);
      const tiny = path.join(process.env.LAZY_MCP_TEST_REPO_ROOT, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
      fs.mkdirSync(path.dirname(userFile), { recursive: true });
      fs.writeFileSync(userFile, JSON.stringify({ mcpServers: { usertiny: { type: 'local', command: process.execPath, args: [tiny], tools: ['*'] } } }, null, 2));
      try {
        await waitFor('usertiny catalogued', () => stateOf(lazy, 'usertiny') === 'CATALOGUED');
        const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
        assert.match(report, /\| usertiny \| .*\| ~\/\.copilot\/mcp-config\.json:\d+ \|/);
        assert.match(report, /\| memory \| .*\| \.copilot\/mcp-config\.json:\d+ \|/);
      } finally {
        fs.rmSync(userFile);
        await waitFor('usertiny gone', () => stateOf(lazy, 'usertiny') === undefined);
      }
    });

    test('#7 a syntax error in a config file open in the editor: VS Code reports it, Lazy MCP neither duplicates nor toasts it', async () => {
      const lazy = await api();
      const original = fs.readFileSync(opencode, 'utf8');
      const lines = original.split('\n');
      const commaLine = lines.findIndex((l) => l.trimEnd().endsWith(','));
      assert.ok(commaLine >= 0 && commaLine + 1 < lines.length);
      const next = lines[commaLine + 1];
      const expected = { line: commaLine + 2, column: next.length - next.trimStart().length + 1 };
      const uri = vscode.Uri.file(opencode);
      await vscode.window.showTextDocument(uri);
      try {
        lines[commaLine] = lines[commaLine].trimEnd().replace(/,$/, '');
        fs.writeFileSync(opencode, lines.join('\n'));
        const problem = await waitFor('Lazy MCP to see the syntax error', async () => {
          const json = JSON.parse(await vscode.commands.executeCommand('lazyMcp.copyDiagnosticsJson'));
          return json.problems.find((p) => p.file === opencode);
        });
        // Where VS Code's JSON language service puts it: at the token after the missing comma.
        assert.deepEqual({ line: problem.line, column: problem.column }, expected, problem.message);
        await sleep(1500);
        const ours = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Lazy MCP');
        assert.deepEqual(ours.map((d) => d.message), [], 'no second copy of the JSON syntax error');
        assert.deepEqual(lazy.notifications().filter((n) => n.message.includes('opencode.json')).map((n) => n.message), [], 'no toast while the file is open');
        // VS Code's own JSON diagnostic, when its language server runs here, is on the same line.
        const own = await waitFor('VS Code\'s JSON diagnostic', () => vscode.languages.getDiagnostics(uri).find((d) => d.source !== 'Lazy MCP' && /comma/i.test(d.message)), 10_000).catch(() => undefined);
        if (own) log(`  VS Code's JSON diagnostic: ${own.range.start.line + 1}:${own.range.start.character + 1} ${own.message}; Lazy MCP's: ${problem.line}:${problem.column}`);
        if (own) assert.equal(own.range.start.line + 1, expected.line, own.message);
        else log('  (VS Code\'s JSON language service reported nothing within 10 s)');
        assert.equal(stateOf(lazy, 'everything'), 'CATALOGUED', 'the last good version keeps the server');
      } finally {
        fs.writeFileSync(opencode, original);
        await waitFor('the error gone', async () => JSON.parse(await vscode.commands.executeCommand('lazyMcp.copyDiagnosticsJson')).problems.every((p) => p.file !== opencode));
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    });

    test('#9 titles are Title Case; the view has its own container; the status bar counts enabled servers and says so; the view summary names disabled servers', async () => {
      const lazy = await api();
      const commands = await vscode.commands.getCommands(true);
      assert.ok(commands.includes('workbench.view.extension.lazyMcp'), 'a "Lazy MCP" view container in the activity bar');
      await vscode.commands.executeCommand('workbench.view.extension.lazyMcp');
      await vscode.commands.executeCommand('lazyMcp.disableServer', 'everything');
      await waitFor('everything disabled', () => stateOf(lazy, 'everything') === 'DISABLED');
      try {
        const picking = vscode.commands.executeCommand('lazyMcp.enableServer');
        await waitForVisible('.quick-input-title:has-text("Lazy MCP: Enable Server")');
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await picking;

        const snap = lazy.snapshot();
        const enabled = snap.servers.filter((s) => !['DISABLED', 'DORMANT'].includes(s.state.kind)).length;
        const connected = snap.servers.filter((s) => s.state.kind === 'CONNECTED').length;
        const ui = await waitFor('the UI updated', () => {
          const u = lazy.ui();
          return u.treeMessage.includes('1 disabled') ? u : undefined;
        }, 10_000);
        assert.match(ui.statusText, new RegExp(`^\\$\\(plug\\) ${connected}/${enabled}\\b`));
        assert.match(ui.statusTooltip, new RegExp(`${connected} of ${enabled} enabled servers? connected`));
        assert.match(ui.statusTooltip, /1 disabled/);
      } finally {
        await vscode.commands.executeCommand('lazyMcp.enableServer', 'everything');
        await waitFor('everything back', () => stateOf(lazy, 'everything') === 'CATALOGUED');
      }
    });
  });
}
