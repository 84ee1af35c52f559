// The whole Node host (config → WASM engine → real servers → gateway) against
// real npm MCP servers, with the official SDK client as the MCP client.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';
import { countedServer, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-host-e2e-'));
const home = path.join(root, 'home');
const ws = path.join(root, 'ws');
fs.mkdirSync(home, { recursive: true });
fs.mkdirSync(ws, { recursive: true });
const spawnLog = path.join(root, 'spawns.log');
const catalogueFile = path.join(root, 'storage', 'catalogue.json');
fs.writeFileSync(
  path.join(ws, '.mcp.json'),
  JSON.stringify({
    mcpServers: {
      memory: countedServer(spawnLog, 'server-memory', [], { MEMORY_FILE_PATH: path.join(root, 'memory.jsonl') }),
      everything: countedServer(spawnLog, 'server-everything', ['stdio']),
    },
  }),
);

const hosts = [];
after(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
  for (const pid of spawnedPids(spawnLog)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function newHost() {
  const logs = [];
  const host = new LazyHost({
    core: new WasmCore(builtCoreModule, () => {}),
    discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home, PATH: process.env.PATH ?? '' } },
    // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    store: new BlobFile(catalogueFile),
    log: (level, message, server) => logs.push(`${level} ${server ?? ''} ${message}`),
    gateway: {},
  });
  hosts.push(host);
  return { host, logs };
}

const stateOf = (host, name) => host.snapshot().servers.find((s) => s.name === name)?.state.kind;

async function connect(host, server) {
  const client = new Client({ name: 'lazy-host-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.endpointUrl(server)), { requestInit: { headers: { Authorization: `Bearer ${host.gatewayToken}` } } }));
  return client;
}

let first;

test('cold start catalogues each server once, then stops it', async () => {
  first = newHost();
  await first.host.start();
  await waitFor('both servers CATALOGUED', () => ['memory', 'everything'].every((n) => stateOf(first.host, n) === 'CATALOGUED'));
  const pids = spawnedPids(spawnLog);
  assert.equal(pids.length, 2, 'one cataloguing spawn per server');
  await waitFor('cataloguing processes to exit', () => pids.every((p) => !isAlive(p)), 10_000);
  const snap = first.host.snapshot();
  assert.ok(snap.servers.find((s) => s.name === 'memory').tools >= 9);
  await waitFor('the catalogue to be persisted', () => fs.existsSync(catalogueFile), 5_000);
});

test('listing tools through the gateway spawns nothing', async () => {
  const client = await connect(first.host, 'memory');
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'read_graph'));
  assert.equal(client.getServerVersion().name, 'memory', 'serverInfo.name is the configured server name');
  assert.equal(spawnedPids(spawnLog).length, 2);
  await client.close();
});

test("disabling a server ends its endpoint's gateway sessions (VS Code drops a removed definition without a DELETE)", async () => {
  const client = await connect(first.host, 'everything');
  await client.listTools();
  assert.equal(first.host.gateway.sessionsOf('everything').length, 1);
  first.host.driver.handle({ type: 'disable', server: 'everything' });
  await waitFor("everything's sessions to end", () => first.host.gateway.sessionsOf('everything').length === 0, 5_000);
  first.host.driver.handle({ type: 'enable', server: 'everything' });
  await waitFor('everything CATALOGUED again', () => stateOf(first.host, 'everything') === 'CATALOGUED');
  await client.close().catch(() => undefined);
  assert.equal(spawnedPids(spawnLog).length, 2, 'nothing was started');
});

test('the first call starts exactly that server and keeps it connected', async () => {
  const client = await connect(first.host, 'memory');
  const result = await client.callTool({ name: 'read_graph', arguments: {} });
  assert.ok(!result.isError, JSON.stringify(result));
  assert.equal(spawnedPids(spawnLog).length, 3);
  assert.equal(stateOf(first.host, 'memory'), 'CONNECTED');
  assert.equal(stateOf(first.host, 'everything'), 'CATALOGUED');
  await client.callTool({ name: 'read_graph', arguments: {} });
  assert.equal(spawnedPids(spawnLog).length, 3, 'a connected server is reused');
  await client.close();
});

test('ten concurrent first calls cause one spawn and all get answers', async () => {
  const client = await connect(first.host, 'everything');
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client.callTool({ name: 'echo', arguments: { message: `m${i}` } })));
  results.forEach((r, i) => assert.match(r.content[0].text, new RegExp(`m${i}`)));
  assert.equal(spawnedPids(spawnLog).length, 4, 'exactly one more spawn');
  await client.close();
});

test('stopping the host ends every server process', async () => {
  await first.host.stop();
  const pids = spawnedPids(spawnLog);
  await waitFor('all server processes to exit', () => pids.every((p) => !isAlive(p)), 10_000);
});

test('a warm start spawns nothing and serves the persisted tool lists', async () => {
  const warm = newHost();
  const before = spawnedPids(spawnLog).length;
  await warm.host.start();
  assert.equal(stateOf(warm.host, 'memory'), 'CATALOGUED');
  assert.equal(stateOf(warm.host, 'everything'), 'CATALOGUED');
  const client = await connect(warm.host, 'everything');
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'echo'));
  assert.equal(spawnedPids(spawnLog).length, before, 'zero spawns on a warm start');
  await client.close();
  await warm.host.stop();
});
