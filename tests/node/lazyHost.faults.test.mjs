// The whole host with real npm and PyPI servers configured in several formats,
// plus fault fixtures: each fault gives a clear error or the full result, the
// other servers keep working, and nothing is orphaned.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensurePythonServers } from '../../scripts/lib/pythonServers.mjs';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-faults-'));
const home = path.join(root, 'home');
// A space and a '#' in the folder: its root URI must still name this folder exactly.
const ws = path.join(root, 'my ws #1');
const spawnLog = path.join(root, 'spawns.log');
const launcher = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'counting-launcher.mjs');
const faulty = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'faulty-tools.mjs');
const counted = (command, ...args) => [process.execPath, launcher, spawnLog, command, ...args];
let host;

before(() => {
  const py = ensurePythonServers();
  fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'repo'), { recursive: true });
  const fsServer = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
  // Copilot CLI (user scope): the PyPI time server and the real filesystem server
  // (started with an unrelated directory: it must switch to the workspace roots).
  const [tNode, ...tArgs] = counted(py.bin('mcp-server-time'));
  const [fNode, ...fArgs] = counted(process.execPath, fsServer, os.tmpdir());
  fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), JSON.stringify({
    mcpServers: {
      time: { type: 'local', command: tNode, args: tArgs },
      filesystem: { type: 'local', command: fNode, args: fArgs },
    },
  }));
  // OpenCode (project scope): fault fixtures.
  fs.writeFileSync(path.join(ws, 'opencode.json'), JSON.stringify({
    mcp: {
      faulty: { type: 'local', command: counted(process.execPath, faulty, 'ok') },
      garbage: { type: 'local', command: counted(process.execPath, faulty, 'garbage') },
      hangs: { type: 'local', command: counted(process.execPath, faulty, 'hang-init'), timeout: 1500 },
    },
  }));
  host = new LazyHost({
    core: new WasmCore(builtCoreModule, () => {}),
    discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home, PATH: process.env.PATH ?? '' } },
    // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    settings: { catalogueConcurrency: 4, backoffBaseMs: 60_000 },
    store: new BlobFile(path.join(root, 'catalogue.json')),
    log: () => {},
    gateway: {},
  });
});

after(async () => {
  await host?.stop();
  for (const pid of spawnedPids(spawnLog)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

const stateOf = (name) => host.snapshot().servers.find((s) => s.name === name);

async function client(server) {
  const c = new Client({ name: 'faults-test', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(host.endpointUrl(server)), { requestInit: { headers: { Authorization: `Bearer ${host.gatewayToken}` } } }));
  return c;
}

test('cataloguing: a server that never answers initialize fails with a clear error and delays nobody', async () => {
  await host.start();
  await waitFor('all servers settled', () => ['time', 'filesystem', 'faulty', 'garbage', 'hangs'].every((n) => ['CATALOGUED', 'FAILED'].includes(stateOf(n)?.state.kind)), 90_000);
  for (const n of ['time', 'filesystem', 'faulty', 'garbage']) assert.equal(stateOf(n).state.kind, 'CATALOGUED', n);
  const hangs = stateOf('hangs');
  assert.equal(hangs.state.kind, 'FAILED');
  assert.match(hangs.state.error, /hangs|initialize|time/i, hangs.state.error);
  assert.equal(stateOf('garbage').tools, 3, 'garbage lines around replies do not hide the real ones');
  await waitFor('no cataloguing process alive', () => spawnedPids(spawnLog).every((p) => !isAlive(p)), 15_000);
});

test('the PyPI time server (Copilot CLI config) answers a real call on first use', async () => {
  const c = await client('time');
  const r = await c.callTool({ name: 'get_current_time', arguments: { timezone: 'UTC' } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.match(r.content[0].text, /UTC/);
  await c.close();
});

test('filesystem gets the workspace folder as its root', async () => {
  const c = await client('filesystem');
  const r = await c.callTool({ name: 'list_allowed_directories', arguments: {} });
  assert.ok(r.content[0].text.includes(ws), r.content[0].text);
  await c.close();
});

test('a server that crashes mid-call: the call fails at once with a clear error, the server can be used again', async () => {
  const c = await client('faulty');
  const r = await c.callTool({ name: 'crash', arguments: {} }).then((x) => ({ result: x }), (e) => ({ error: e }));
  const text = r.error ? r.error.message : JSON.stringify(r.result);
  assert.match(text, /faulty/, `the error names the server: ${text}`);
  const again = await c.callTool({ name: 'ping_tool', arguments: {} });
  assert.equal(again.content[0].text, 'pong', 'the next call reconnects');
  assert.equal(stateOf('time').state.kind, 'CONNECTED', 'other servers are untouched');
  await c.close();
});

test('a 10 MB result arrives whole', async () => {
  const c = await client('faulty');
  const r = await c.callTool({ name: 'big', arguments: {} });
  assert.equal(r.content[0].text.length, 10 * 1024 * 1024);
  await c.close();
});

test('after the host stops, no server process is left', async () => {
  await host.stop();
  await waitFor('every spawned process gone', () => spawnedPids(spawnLog).every((p) => !isAlive(p)), 15_000);
  host = undefined;
});

