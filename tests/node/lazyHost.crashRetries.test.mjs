// Issue 23: a stdio server that crashes at start, through the real host and the built core.
// Each failed attempt is one line of the log (not a host warning plus the engine's error),
// and only the first attempt of a run costs two processes (the era probe's process exited:
// a strict legacy server exits on server/discover too, so initialize gets a fresh one);
// every retry goes straight to initialize, one process each.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-crash-retries-'));
const ws = path.join(root, 'ws');
const spawnLog = path.join(root, 'spawns.log');
const launcher = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'counting-launcher.mjs');
fs.mkdirSync(ws, { recursive: true });
fs.writeFileSync(
  path.join(ws, '.mcp.json'),
  JSON.stringify({ mcpServers: { crasher: { command: process.execPath, args: [launcher, spawnLog, process.execPath, '-e', 'console.error("fatal: no config"); process.exit(3)'] } } }),
);

const lines = [];
const host = new LazyHost({
  core: new WasmCore(builtCoreModule, () => {}),
  discovery: { home: path.join(root, 'home'), workspaceFolders: [ws], platform: 'linux', env: { HOME: path.join(root, 'home'), PATH: process.env.PATH ?? '' } },
  // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
  policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  settings: { backoffBaseMs: 150, maxRetries: 3 },
  store: new BlobFile(path.join(root, 'catalogue.json')),
  log: (level, message, server) => lines.push({ level, message, server }),
});
after(async () => {
  await host.stop();
  killSpawnedGroups(spawnLog);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a crashing server: one log line per failed attempt, one process per retry', async () => {
  await host.start();
  const state = () => host.snapshot({ withMemory: false }).servers.find((s) => s.name === 'crasher').state;
  await waitFor('crasher to give up', () => state().kind === 'FAILED' && state().retryAtMs === undefined, 30_000);
  const attempts = 4; // the first and 3 retries
  const loud = lines.filter((l) => l.server === 'crasher' && (l.level === 'warn' || l.level === 'error'));
  const failures = loud.filter((l) => /^Could not connect to MCP server 'crasher'/.test(l.message));
  assert.equal(failures.length, attempts, loud.map((l) => `${l.level} ${l.message}`).join('\n'));
  for (const f of failures) assert.match(f.message, /exited with code 3\b.*stderr: fatal: no config/);
  // Besides them only the startup summary (announced once) and the line saying it gave up:
  // no warning per exit.
  const others = loud.filter((l) => !failures.includes(l)).map((l) => l.message);
  assert.equal(others.length, 2, others.join('\n'));
  assert.match(others[0], /^MCP server 'crasher' could not be catalogued: /);
  assert.equal(others[1], 'gave up after 4 failed attempts; no more automatic retries');
  assert.equal(spawnedPids(spawnLog).length, attempts + 1, 'two processes for the first attempt (probe, initialize), one per retry');
});
