// The lazy side of the benchmark: the real host (config files → WASM engine →
// real servers → loopback gateway), started the way tests/node/lazyHost.test.mjs
// starts it, and the official SDK client talking to it over the gateway.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { builtCoreModule, loadHostModule, repoRoot } from '../../tests/node/helpers/bundle.mjs';

const require = createRequire(import.meta.url);

// Counts every process spawned in this Node process: the bundled host calls
// `require('node:child_process').spawn` at call time, so patching it here counts
// the host's spawns (read it around a section in which nothing else spawns).
const childProcess = require('node:child_process');
const realSpawn = childProcess.spawn;
export const spawnCounter = { count: 0 };
childProcess.spawn = function countedSpawn(...args) {
  spawnCounter.count++;
  return realSpawn.apply(this, args);
};
const entries = ['core/wasmCore', 'host/lazyHost', 'host/storage/blobFile'];
const bundled = (entry) => path.join(repoRoot, 'out', 'test', `${entry.replaceAll('/', '_')}.cjs`);

/** Bundle the host modules with esbuild (as the tests do) and load them. */
export async function bundleHost() {
  const [core, host, blob] = await Promise.all(entries.map((e) => loadHostModule(e)));
  // esbuild keeps a service child process alive; stop it so the benchmark's
  // process counts see only MCP servers.
  await require('esbuild').stop();
  return { WasmCore: core.WasmCore, LazyHost: host.LazyHost, BlobFile: blob.BlobFile };
}

/** Load already-bundled host modules (in a worker process, after bundleHost ran in the parent). */
export function requireBundledHost() {
  const [core, host, blob] = entries.map((e) => require(bundled(e)));
  return { WasmCore: core.WasmCore, LazyHost: host.LazyHost, BlobFile: blob.BlobFile };
}

/** A temp workspace whose `.mcp.json` configures `servers` (name → {command, args, env}). */
export function makeWorkspace(servers, label = 'lazy') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `lazy-mcp-bench-${label}-`));
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
  return { root, home, ws, names: Object.keys(servers) };
}

export function newHost(mods, workspace, catalogueFile, settings) {
  return new mods.LazyHost({
    core: new mods.WasmCore(builtCoreModule, () => {}),
    discovery: {
      home: workspace.home,
      workspaceFolders: [workspace.ws],
      platform: 'linux',
      env: { HOME: workspace.home, PATH: process.env.PATH ?? '' },
    },
    // The bench's own `.mcp.json` runs without an approval prompt (as the tests' hosts do;
    // approval itself is tested in cli.trust). Without it the project's servers wait for approval.
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    store: new mods.BlobFile(catalogueFile),
    settings,
    log: () => {},
    gateway: {},
  });
}

export async function connectGateway(host, endpoint = '') {
  const client = new Client({ name: 'lazy-mcp-bench', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(host.endpointUrl(endpoint)), {
    requestInit: { headers: { Authorization: `Bearer ${host.gatewayToken}` } },
  });
  await client.connect(transport);
  return client;
}

export const statesOf = (host) => new Map(host.snapshot().servers.map((s) => [s.name, s.state.kind]));

/** Resolves once every named server is in `state` (checked on each engine change and every 5 ms). */
export function waitForAll(host, names, state, timeoutMs) {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      const states = statesOf(host);
      if (names.every((n) => states.get(n) === state)) return resolve();
      if (Date.now() > deadline) {
        const bad = names.filter((n) => states.get(n) !== state).map((n) => `${n}=${states.get(n)}`);
        return reject(new Error(`timed out after ${timeoutMs} ms waiting for ${state}: ${bad.join(', ')}`));
      }
      setTimeout(tick, 5);
    };
    tick();
  });
}

/**
 * Start a host and measure until every tool is listed through the aggregate
 * gateway endpoint. Cold (empty store): waits for every server to be CATALOGUED
 * first. Warm (persisted catalogue): servers are CATALOGUED at start.
 */
export async function lazyStart(mods, workspace, catalogueFile, settings, { timeoutMs = 120_000 } = {}) {
  const t0 = performance.now();
  const host = newHost(mods, workspace, catalogueFile, settings);
  const phases = {};
  let last = t0;
  const mark = (name) => {
    const now = performance.now();
    phases[name] = now - last;
    last = now;
  };
  let client;
  try {
    mark('construct');
    await host.start();
    mark('start');
    await waitForAll(host, workspace.names, 'CATALOGUED', timeoutMs);
    mark('catalogued');
    client = await connectGateway(host, '');
    mark('connect');
    const { tools } = await client.listTools();
    mark('list');
    const ms = performance.now() - t0;
    return { ms, phases, tools, host, client, close: async () => { await client.close(); await host.stop(); } };
  } catch (err) {
    await client?.close().catch(() => {});
    await host.stop().catch(() => {});
    throw err;
  }
}
