// `lazy-mcp serve --tool-exposure index` with the official SDK client against real
// npm servers (server-memory, server-everything): the client lists only the
// meta-tools, searching and loading start nothing, a load arrives as
// tools/list_changed, bad arguments are refused before a spawn, and only real
// calls start their one server.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliJs, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, isAlive, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const w = tempWorld('lazy-mcp-cli-index-');
const spawnLog = path.join(w.root, 'spawns.log');
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: {
    memory: countedServer(spawnLog, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }),
    everything: countedServer(spawnLog, 'server-everything', ['stdio']),
  },
});

after(() => {
  killSpawnedGroups(spawnLog);
});

const text = (result) => result.content.map((c) => c.text ?? '').join('\n');
const alive = () => spawnedPids(spawnLog).filter(isAlive);

test('serve --tool-exposure index: meta-tools only, search/load start nothing, load → list_changed, call_tool validates then starts one server', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--trust-project', '--stdio', '--tool-exposure', 'index', '--cwd', w.ws],
    env: w.env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cli-index-test', version: '1' });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged += 1;
  });
  await client.connect(transport);
  const cliPid = transport.pid;
  try {
    // First start: both servers are catalogued (started briefly), then stopped.
    await waitFor('cataloguing to finish', () => spawnedPids(spawnLog).length === 2 && alive().length === 0, 60_000);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search_tools', 'load_tools', 'unload_tools', 'call_tool'],
    );
    const index = tools[1].description;
    assert.match(index, /memory/);
    assert.match(index, /read_graph/);
    assert.match(index, /everything/);

    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'read the whole knowledge graph' } });
    assert.match(text(found), /^memory\/read_graph/m, text(found));

    const before = listChanged;
    const loaded = await client.callTool({ name: 'load_tools', arguments: { names: ['memory/read_graph', 'memory/serch_nodes'] } });
    assert.ok(!loaded.isError, text(loaded));
    assert.match(text(loaded), /memory\/read_graph \(memory__read_graph\)/);
    assert.match(text(loaded), /Unknown tool "memory\/serch_nodes"\. Closest: memory\/search_nodes/);
    await waitFor('tools/list_changed after load_tools', () => listChanged > before, 10_000);
    const after = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(after, ['search_tools', 'load_tools', 'unload_tools', 'call_tool', 'memory__read_graph']);

    const bad = await client.callTool({ name: 'call_tool', arguments: { name: 'everything/echo', arguments: { message: 5 } } });
    assert.ok(bad.isError);
    assert.match(text(bad), /arguments\.message must be string/);
    assert.equal(spawnedPids(spawnLog).length, 2, 'search, load and a refused call start nothing');

    const echoed = await client.callTool({ name: 'call_tool', arguments: { name: 'everything/echo', arguments: { message: 'via index' } } });
    assert.ok(!echoed.isError, text(echoed));
    assert.match(text(echoed), /via index/);
    assert.equal(spawnedPids(spawnLog).length, 3, 'call_tool started exactly one server');

    const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    assert.ok(!graph.isError, text(graph));
    assert.equal(spawnedPids(spawnLog).length, 4, 'the loaded tool started its own server');
  } finally {
    await client.close();
  }
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
  await waitFor('no server process left', () => alive().length === 0, 15_000);
});
