// A server that speaks only MCP 2026-07-28 (the official TypeScript SDK v2 with
// `legacy: 'reject'`: it refuses `initialize`, which VS Code 1.139 still sends)
// configured for Lazy MCP: its tools reach vscode.lm.tools and invoking one returns
// the server's real result — VS Code users get modern-only servers through Lazy MCP.
// The server is added to the workspace's opencode.json for this suite and removed
// again afterwards, so the other suites see the fixture unchanged.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const { api, phase, stateOf, testDir, waitFor, waitToolsGone, workspace } = require('./helpers.cjs');

const repo = path.resolve(__dirname, '..', '..', '..');
const configFile = path.join(workspace, 'opencode.json');
const spawnLog = path.join(testDir, 'spawns-eras.log');
const toolsOf = () => vscode.lm.tools.filter((t) => t.name.startsWith('mcp_modernonly_'));
const spawns = () => (fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).length : 0);

function textOf(result) {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('\n');
}

// VS Code 1.103 drops every tool of a server whose inputSchema declares JSON Schema
// 2020-12 (`$schema`), which the SDK v2 (zod 4) emits: checked by stripping `$schema`
// in the fixture, after which this suite passes on 1.103.2 too. Not an era matter;
// reported as open (see docs/protocol-eras.md), so the suite runs where it can pass.
const [major, minor] = vscode.version.split('.').map(Number);
const dropsSchema2020 = major === 1 && minor < 139;

if (phase === 'dev') {
  suite('A modern-only (MCP 2026-07-28) server through Lazy MCP', function () {
    let original;

    suiteSetup(function () {
      if (dropsSchema2020) this.skip();
      original = fs.readFileSync(configFile, 'utf8');
      const config = JSON.parse(original);
      // The same Node the fixture's other servers run on.
      const node = config.mcp.everything.command[0];
      config.mcp.modernonly = {
        type: 'local',
        command: [
          node,
          path.join(repo, 'tests', 'fixtures', 'servers', 'counting-launcher.mjs'),
          spawnLog,
          node,
          path.join(repo, 'tests', 'fixtures', 'servers', 'sdk2-server.mjs'),
          'stdio',
          'modern',
          'sdk2-modern',
        ],
        enabled: true,
      };
      fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    });

    suiteTeardown(async () => {
      if (original === undefined) return;
      fs.writeFileSync(configFile, original);
      const lazy = await api();
      await waitToolsGone('the modern server left the config', toolsOf, () => stateOf(lazy, 'modernonly') === undefined);
    });

    test('it is catalogued as modern and its tools reach vscode.lm.tools', async () => {
      const lazy = await api();
      await waitFor('modernonly CATALOGUED', () => stateOf(lazy, 'modernonly') === 'CATALOGUED', 60_000);
      const server = lazy.snapshot().servers.find((s) => s.name === 'modernonly');
      assert.equal(server.era, 'modern');
      assert.equal(server.tools, 3);
      await waitFor('its tools in vscode.lm.tools', () => toolsOf().length === 3, 60_000);
      assert.equal(spawns(), 1, 'one cataloguing process');
    });

    test('vscode.lm.invokeTool returns the real result of the modern server', async () => {
      const lazy = await api();
      const shout = toolsOf().find((t) => t.name.endsWith('_shout'));
      assert.ok(shout, toolsOf().map((t) => t.name).join(', '));
      const result = await vscode.lm.invokeTool(shout.name, { input: { text: 'from vs code' }, toolInvocationToken: undefined });
      assert.equal(textOf(result), 'sdk2-modern: FROM VS CODE');
      assert.equal(stateOf(lazy, 'modernonly'), 'CONNECTED');
      assert.equal(spawns(), 2, 'the call started it once more, without a probe process');
    });

    test("its request for roots (input_required) is answered with VS Code's workspace folder", async () => {
      const roots = toolsOf().find((t) => t.name.endsWith('_roots'));
      const result = await vscode.lm.invokeTool(roots.name, { input: {}, toolInvocationToken: undefined });
      assert.equal(textOf(result), vscode.Uri.file(workspace).toString(true).replace(/\/$/, ''));
    });

    test('MCP Diagnostics shows its era', async () => {
      const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      assert.match(report, /\| modernonly \| stdio · 2026-07-28 \|/);
    });
  });
}
