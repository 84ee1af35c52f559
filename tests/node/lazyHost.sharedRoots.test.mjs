// After the owner splits a shared process by workspace roots (issue 26, docs/shared-servers.md
// "Roots"), the client it moved shows the process that serves it now in its own Diagnostics,
// the pid `lazy-mcp daemon status` lists for it, not the one it left. Two real hosts (two
// windows' engines, with their gateways) in two projects, the real owner, and the real
// server-everything at user level, which asks for roots 350 ms after its handshake (too late
// for cataloguing to see): both first calls at once reach one process, which is then split.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';
import { cliJs, groupMembers, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');
const { ownerSpecFor } = await loadHostModule('host/shared/ownerLauncher');

const posix = process.platform !== 'win32';
const { spawnLogs } = endWhenDone(after);

const w = tempWorld('lazy-mcp-host-shared-roots-');
const log = path.join(w.root, 'everything.log');
spawnLogs.push(log);
writeJson(path.join(w.home, '.claude.json'), { mcpServers: { everything: countedServer(log, 'server-everything', ['stdio']) } });
const env = { ...w.env, LAZY_MCP_SOCKET_DIR: path.join(w.root, 'sock') };
const hosts = [];
after(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
  await runCli(['daemon', 'stop'], { env }).catch(() => undefined);
});

function newHost(folder) {
  const dir = path.join(w.root, folder);
  fs.mkdirSync(dir, { recursive: true });
  const core = new WasmCore(builtCoreModule, () => {});
  const host = new LazyHost({
    core,
    discovery: { home: w.home, workspaceFolders: [dir], platform: 'linux', env: { HOME: w.home, PATH: process.env.PATH ?? '' } },
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    store: new BlobFile(path.join(w.root, `catalogue-${folder}.json`)),
    log: () => undefined,
    gateway: {},
    settings: { shareServers: true, sessionLabel: 'test window' },
    sharedOwner: { ...ownerSpecFor(cliJs, core.call((c) => c.sharedProtocol()), core, env), env },
  });
  hosts.push(host);
  return { host, dir, folder };
}

async function connect(host) {
  const client = new Client({ name: 'shared-roots-pid-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.endpointUrl('everything')), { requestInit: { headers: { Authorization: `Bearer ${host.gatewayToken}` } } }));
  return client;
}

const live = () => spawnedPids(log).filter((p) => groupMembers(p).length > 0);
const rootsOf = (client) => client.callTool({ name: 'get-roots-list', arguments: {} }).then((r) => r.content.map((c) => c.text ?? '').join('\n'));
const everything = (host, withMemory = false) => host.snapshot({ withMemory }).servers.find((s) => s.name === 'everything');

test("a client moved to a process of its own roots shows that process's pid, as daemon status does", { skip: !posix, timeout: 180_000 }, async () => {
  const windows = [newHost('a'), newHost('b')];
  await Promise.all(windows.map((win) => win.host.start()));
  await waitFor('everything catalogued in both', () => windows.every((win) => everything(win.host)?.state.kind === 'CATALOGUED'), 60_000);
  await waitFor('the cataloguing processes to stop', () => live().length === 0, 20_000);
  const clients = await Promise.all(windows.map((win) => connect(win.host)));
  const spawnedBefore = spawnedPids(log).length;

  // Both first calls at once: one process for both (catalogued as never asking), then its ask
  // splits it; each client calls until it sees its own roots.
  await Promise.all(
    windows.map((win, i) =>
      waitFor(`roots naming ${win.dir}`, async () => new RegExp(`${win.dir}\\b`).test(await rootsOf(clients[i])), 15_000),
    ),
  );
  const { code, stdout, stderr } = await runCli(['daemon', 'status', '--json'], { env });
  assert.equal(code, 0, stderr);
  const rows = JSON.parse(stdout).processes.filter((p) => p.server === 'everything');
  assert.equal(rows.length, 2, `one everything process per project: ${JSON.stringify(rows)}`);
  assert.equal(spawnedPids(log).length - spawnedBefore, 2, 'two everything processes were started for the two projects, no more');

  for (const win of windows) {
    const row = rows.find((r) => r.holders.some((h) => h.label === `test window · ${win.folder}`));
    assert.ok(row?.pid, `the owner lists project ${win.folder}'s process: ${JSON.stringify(rows)}`);
    assert.ok(isAlive(row.pid));
    assert.equal(everything(win.host).pid, row.pid, `project ${win.folder}'s Diagnostics show the process that serves it (daemon status: ${JSON.stringify(rows.map((r) => [r.pid, r.holders.map((h) => h.label)]))})`);
  }
  await Promise.all(clients.map((c) => c.close()));
});
