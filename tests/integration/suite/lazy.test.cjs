// Lazy MCP in a real VS Code with real npm MCP servers (see workspaces/basic/README.md).
// Phases: dev (cold start), warm (VS Code restarted on the same state), vsix.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const vscode = require('vscode');

const { api, isRunning, phase, stateOf: stateOfServer, testDir, waitFor, waitToolsGone, workspace } = require('./helpers.cjs');

const spawnLog = path.join(testDir, 'spawns.log');
const endOfDev = '--- end of dev phase';
const managed = ['memory', 'everything'];

function spawnLines() {
  return fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean) : [];
}
const spawnCount = () => spawnLines().filter((l) => /^\d+$/.test(l)).length;
const spawnedPids = () => spawnLines().filter((l) => /^\d+$/.test(l)).map(Number);
const spawnsSinceDev = () => spawnLines().slice(spawnLines().lastIndexOf(endOfDev) + 1).length;

const stateOf = stateOfServer;

const toolsOf = (server) => vscode.lm.tools.filter((t) => t.name.startsWith(`mcp_${server.slice(0, 13)}`));

function textOf(result) {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('\n');
}

function post(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }));
  });
}

if (phase === 'dev') {
  suite('Lazy MCP in VS Code (cold start)', () => {
    test('each server is catalogued once and then stopped', async () => {
      const lazy = await api();
      await waitFor('memory and everything CATALOGUED', () => managed.every((n) => stateOf(lazy, n) === 'CATALOGUED'));
      assert.equal(spawnCount(), 2, 'one cataloguing spawn per managed server');
      assert.deepEqual(lazy.exposedServers().sort(), ['everything', 'memory']);
      await waitFor('the cataloguing processes to exit', () => spawnedPids().every((pid) => !isRunning(pid)), 15_000);
    });

    test('Copilot Chat sees every catalogued tool (vscode.lm.tools) without starting a server', async () => {
      await waitFor('memory and everything tools in vscode.lm.tools', () => toolsOf('memory').length >= 9 && toolsOf('everything').length >= 10, 30_000);
      assert.ok(toolsOf('memory').some((t) => t.name.endsWith('_read_graph')));
      assert.equal(spawnCount(), 2, 'listing tools spawned nothing');
    });

    test('invoking a tool (the path Copilot Chat uses) starts exactly that server', async () => {
      const lazy = await api();
      const tool = toolsOf('memory').find((t) => t.name.endsWith('_read_graph'));
      const result = await vscode.lm.invokeTool(tool.name, { input: {}, toolInvocationToken: undefined });
      assert.match(textOf(result), /entities/);
      assert.equal(spawnCount(), 3, 'exactly one more process');
      assert.equal(stateOf(lazy, 'memory'), 'CONNECTED');
      assert.equal(stateOf(lazy, 'everything'), 'CATALOGUED');
    });

    test('MCP Diagnostics shows 1 CONNECTED, the rest CATALOGUED ONLY, and who manages what', async () => {
      const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      assert.match(report, /1 connected · 1 catalogued only/);
      assert.match(report, /\| memory \| \*\*CONNECTED\*\*/);
      assert.match(report, /\| everything \| \*\*CATALOGUED ONLY\*\*/);
      assert.match(report, /\| filesystem \| .*VS Code loads this file itself/, 'servers VS Code manages are listed, not dropped');
      assert.match(report, /mcp-config\.json/);
      assert.match(report, /## Server definitions \(secrets masked\)/);
      assert.match(report, /MEMORY_FILE_PATH=••••/, 'env keys shown, values masked');
      assert.doesNotMatch(report, /memory\.jsonl/, 'env values never shown');
    });

    test('a request to the gateway without the secret gets 401', async () => {
      const lazy = await api();
      assert.equal(await post(lazy.endpointUrl('memory'), {}), 401);
      assert.equal(await post(lazy.endpointUrl('memory'), { authorization: 'Bearer wrong' }), 401);
    });

    test('disabling a server removes its tools from vscode.lm.tools; enabling brings them back', async () => {
      const lazy = await api();
      await vscode.commands.executeCommand('lazyMcp.disableServer', 'everything');
      await waitToolsGone('everything tools gone', () => toolsOf('everything'), () => !lazy.exposedServers().includes('everything'));
      assert.equal(stateOf(lazy, 'everything'), 'DISABLED');
      assert.ok(toolsOf('memory').length > 0, 'other servers keep their tools');
      await vscode.commands.executeCommand('lazyMcp.enableServer', 'everything');
      await waitFor('everything exposed again', () => lazy.exposedServers().includes('everything'));
      await waitFor('everything tools back', () => toolsOf('everything').length > 0, 30_000);
    });

    test('editing a config file adds and removes a server without a reload', async () => {
      const lazy = await api();
      const file = path.join(workspace, 'opencode.json');
      const original = fs.readFileSync(file, 'utf8');
      const config = JSON.parse(original);
      const everything = config.mcp.everything.command;
      // [node, launcher, log, node, server-everything/dist/index.js, 'stdio'] → the thinking server
      const thinking = [...everything.slice(0, -2), everything.at(-2).replace('server-everything', 'server-sequential-thinking')];
      config.mcp.thinking = { type: 'local', command: thinking };
      fs.writeFileSync(file, JSON.stringify(config, null, 2));
      await waitFor('thinking catalogued and exposed', () => stateOf(lazy, 'thinking') === 'CATALOGUED' && lazy.exposedServers().includes('thinking'));
      assert.equal(stateOf(lazy, 'memory'), 'CONNECTED', 'unchanged servers are untouched');
      fs.writeFileSync(file, original);
      await waitFor('thinking removed', () => stateOf(lazy, 'thinking') === undefined && !lazy.exposedServers().includes('thinking'));
    });

    test('leaves MCP Diagnostics open for the screenshot and marks the end of the phase', async () => {
      await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
      await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      await vscode.commands.executeCommand('lazyMcp.servers.focus');
      await new Promise((r) => setTimeout(r, 1500));
      // The runner takes the picture while the extension is live (tree, status bar).
      const dir = path.dirname(spawnLog);
      fs.writeFileSync(path.join(dir, 'screenshot.request'), '');
      await waitFor('the runner to take the screenshot', () => fs.existsSync(path.join(dir, 'screenshot.done')), 15_000).catch(() => undefined);
      fs.appendFileSync(spawnLog, `${endOfDev}\n`);
    });
  });
}

if (phase === 'warm') {
  suite('Lazy MCP in VS Code (warm start)', () => {
    test('with a persisted catalogue, activation spawns no server process', async () => {
      const lazy = await api();
      assert.ok(spawnLines().includes(endOfDev), 'the dev phase ran first on this state');
      assert.deepEqual(managed.map((n) => stateOf(lazy, n)), ['CATALOGUED', 'CATALOGUED']);
      assert.equal(spawnsSinceDev(), 0);
    });

    test('the tools are in vscode.lm.tools, still without any spawn', async () => {
      await waitFor('tools listed', () => toolsOf('memory').length >= 9 && toolsOf('everything').length >= 10, 30_000);
      assert.equal(spawnsSinceDev(), 0);
    });
  });
}

if (phase === 'vsix') {
  suite('Lazy MCP from the VSIX', () => {
    test('the packaged extension catalogues the workspace servers', async () => {
      const lazy = await api();
      await waitFor('memory and everything CATALOGUED', () => managed.every((n) => stateOf(lazy, n) === 'CATALOGUED'));
      await waitFor('the cataloguing processes to exit', () => spawnedPids().every((pid) => !isRunning(pid)), 15_000);
    });
  });
}
