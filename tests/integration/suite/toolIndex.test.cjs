// The tool index in a real VS Code (issue 7): with lazyMcp.toolExposure = index,
// vscode.lm.tools holds only the meta-tools of the "Lazy MCP tool index"
// definition; load_tools adds a tool, which then works; call_tool works in one
// step; only real calls start a server. Runs in the warm phase, after its
// no-spawn checks (files run in name order).
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const { api, phase, testDir, waitFor: waitLong, waitToolsGone } = require('./helpers.cjs');

const spawnLog = path.join(testDir, 'spawns.log');
const meta = ['search_tools', 'load_tools', 'unload_tools', 'call_tool'];
/** Waits 30 s at most; a timeout lists what vscode.lm.tools holds. */
const waitFor = (what, predicate) =>
  waitLong(what, predicate, 30_000).catch((err) => {
    throw new Error(`${err.message}; tools: ${vscode.lm.tools.map((t) => t.name).join(' ')}`);
  });

const spawnCount = () => (fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).length : 0);
const toolsOf = (server) => vscode.lm.tools.filter((t) => t.name.startsWith(`mcp_${server.slice(0, 13)}`));
/**
 * VS Code prefixes a definition's tools with its server's serverInfo.name ("lazy-mcp"); 1.103 used
 * the definition's label ("Lazy MCP tool index" -> "lazy_mcp_tool"). The prefix in use is the one
 * whose search_tools VS Code lists.
 */
const indexPrefixes = ['mcp_lazy-mcp_', 'mcp_lazy_mcp_tool_'];
const indexPrefix = () => indexPrefixes.find((p) => vscode.lm.tools.some((t) => t.name === `${p}search_tools`)) ?? indexPrefixes[0];
const indexTools = () => vscode.lm.tools.filter((t) => indexPrefixes.some((p) => t.name.startsWith(p)));
const find = (suffix) => vscode.lm.tools.find((t) => t.name.startsWith(indexPrefix()) && t.name.endsWith(suffix));
const textOf = (result) => result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('\n');
const invoke = async (suffix, input) => textOf(await vscode.lm.invokeTool(find(suffix).name, { input, toolInvocationToken: undefined }));
const setExposure = (mode) => vscode.workspace.getConfiguration('lazyMcp').update('toolExposure', mode, vscode.ConfigurationTarget.Global);

if (phase === 'warm') {
  suite('Tool index in VS Code (lazyMcp.toolExposure = index)', () => {
    suiteTeardown(async () => {
      await setExposure(undefined);
    });

    test('vscode.lm.tools holds only the meta-tools; switching spawned nothing', async () => {
      const lazy = await api();
      const spawns = spawnCount();
      await setExposure('index');
      await waitToolsGone('only the meta-tools', () => [...toolsOf('memory'), ...toolsOf('everything')], () => indexTools().length === meta.length);
      assert.deepEqual(indexTools().map((t) => t.name.slice(indexPrefix().length)).sort(), [...meta].sort());
      assert.ok(lazy.definitionLabels().includes('Lazy MCP tool index'));
      assert.match(find('_load_tools').description, /read_graph/, 'the index rides in load_tools');
      assert.equal(spawnCount(), spawns);
      // Lazy MCP closes the session VS Code opened to list the new definition (README: VS Code's
      // own MCP UI); the calls below then open their own, which nothing closes under them.
      if (!vscode.version.startsWith('1.103.')) {
        await waitFor("VS Code's listing session with the tool index closed", () => lazy.gatewaySessions('') === 0);
      }
    });

    test('search_tools finds a tool and load_tools adds it to vscode.lm.tools without starting anything', async () => {
      const spawns = spawnCount();
      assert.match(await invoke('_search_tools', { query: 'read the whole knowledge graph' }), /^memory\/read_graph/m);
      // Hybrid search (issue 27): sharing no word with memory's tools, found by meaning, said to be a weak match.
      const semantic = await invoke('_search_tools', { query: 'remember that Alice works at Acme' });
      assert.match(semantic, /^No tool shares a word with/, semantic);
      assert.match(semantic, /^memory\/(create_entities|add_observations|create_relations) /m, semantic);
      const loaded = await invoke('_load_tools', { names: ['memory/read_graph'] });
      assert.match(loaded, /Loaded: memory\/read_graph/);
      await waitFor('the loaded tool in vscode.lm.tools', () => find('memory__read_graph'));
      assert.equal(spawnCount(), spawns, 'searching and loading start nothing');
    });

    test('the loaded tool and call_tool work; each starts only its own server', async () => {
      const lazy = await api();
      const spawns = spawnCount();
      const memory = lazy.snapshot().servers.find((s) => s.name === 'memory');
      const memoryRunning = memory.state.kind === 'CONNECTED';
      assert.match(await invoke('memory__read_graph', {}), /entities/);
      assert.equal(spawnCount(), spawns + (memoryRunning ? 0 : 1));
      const echoed = await invoke('_call_tool', { name: 'everything/echo', arguments: { message: 'through the index' } });
      assert.match(echoed, /through the index/);
      assert.equal(spawnCount(), spawns + (memoryRunning ? 0 : 1) + 1, 'call_tool started exactly everything');
      const bad = await invoke('_call_tool', { name: 'everything/echo', arguments: { message: 7 } });
      assert.match(bad, /arguments\.message must be string/);
    });

    test('MCP Diagnostics shows the mode, tokens now vs full and the loaded tool', async () => {
      const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
      assert.match(report, /\| memory \| .*\| index \| /);
      assert.match(report, /loaded from the index: read_graph/);
      assert.match(report, /the tool index and its meta-tools take/);
    });

    test('back to full: the schemas return and the tool index definition goes', async () => {
      const lazy = await api();
      await setExposure('full');
      await waitFor('memory and everything tools back', () => toolsOf('memory').length >= 9 && toolsOf('everything').length >= 10);
      // ready once VS Code calls memory's own read_graph again (it stays running from above)
      const readGraph = () => vscode.lm.invokeTool(toolsOf('memory').find((t) => t.name.endsWith('_read_graph')).name, { input: {}, toolInvocationToken: undefined });
      await waitToolsGone('the tool index gone', indexTools, async () => !lazy.definitionLabels().includes('Lazy MCP tool index') && (await readGraph().then(() => true, () => false)));
    });
  });
}
