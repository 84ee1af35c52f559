// Issue 12 #2 through the real host and the built core: a server whose command
// does not exist and one that never answers initialize are retried a bounded
// number of times, in the background (no progress is shown for a retry), then
// stay FAILED saying they gave up; Connect Now still tries at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { groupMembers } from './helpers/cliRun.mjs';
import { killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-retries-'));
const ws = path.join(root, 'ws');
const spawnLog = path.join(root, 'spawns.log');
const launcher = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'counting-launcher.mjs');
const faulty = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'faulty-tools.mjs');
fs.mkdirSync(ws, { recursive: true });
fs.writeFileSync(
  path.join(ws, '.mcp.json'),
  JSON.stringify({
    mcpServers: {
      ghost: { command: path.join(root, 'no-such-server') },
      // 1.5 s: long enough for the era probe's answer (method not found) to arrive even on a
      // loaded machine, so the first attempt stays one process; under 400 ms the probe sometimes
      // timed out first and the fallback initialize took a second process (4 spawns, not 3).
      hangs: { command: process.execPath, args: [launcher, spawnLog, process.execPath, faulty, 'hang-init'], timeout: 1500 },
    },
  }),
);

/** What the host was told after every change: hangs' state, its background flag, the progress count. */
const seen = [];
const host = new LazyHost({
  core: new WasmCore(builtCoreModule, () => {}),
  discovery: { home: path.join(root, 'home'), workspaceFolders: [ws], platform: 'linux', env: { HOME: path.join(root, 'home'), PATH: process.env.PATH ?? '' } },
  // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
  policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  settings: { catalogueConcurrency: 4, backoffBaseMs: 150, maxRetries: 2 },
  store: new BlobFile(path.join(root, 'catalogue.json')),
  log: () => {},
  onChange: () => {
    const snap = host.snapshot({ withMemory: false });
    const hangs = snap.servers.find((s) => s.name === 'hangs');
    if (hangs) seen.push({ kind: hangs.state.kind, background: hangs.background, shown: snap.totals.cataloguingShown, retryAt: hangs.retryAtMs });
  },
});
after(async () => {
  await host.stop();
  killSpawnedGroups(spawnLog);
});

const stateOf = (name) => host.snapshot({ withMemory: false }).servers.find((s) => s.name === name).state;
const gaveUp = (name) => stateOf(name).kind === 'FAILED' && stateOf(name).retryAtMs === undefined;

test('bounded retries in the background, then FAILED says it gave up; Connect Now tries once more at once', async () => {
  await host.start();
  await waitFor('both servers to give up', () => gaveUp('ghost') && gaveUp('hangs'), 30_000);
  assert.equal(spawnedPids(spawnLog).length, 3, 'hangs: the first attempt and 2 retries');
  for (const name of ['ghost', 'hangs']) assert.match(stateOf(name).error, /gave up after 3 attempts/);
  // What the servers view renders (vscode/retryText.ts) comes from the snapshot, not from the state.
  const hangsRow = host.snapshot({ withMemory: false }).servers.find((s) => s.name === 'hangs');
  assert.equal(hangsRow.gaveUpAfter, 3);
  assert.equal(hangsRow.retryAtMs, undefined);
  assert.ok(seen.some((x) => x.kind === 'FAILED' && typeof x.retryAt === 'number'), 'a countdown while a retry was due');
  assert.match(stateOf('ghost').error, /command not found \(ENOENT\)/);

  const cataloguing = seen.filter((s) => s.kind === 'CATALOGUING');
  assert.ok(cataloguing.length >= 3, JSON.stringify(seen));
  assert.equal(cataloguing[0].background, false, 'the first cataloguing is shown');
  const retries = cataloguing.filter((s) => s.background);
  assert.ok(retries.length >= 2, `the retries were background ones: ${JSON.stringify(seen)}`);
  assert.ok(
    retries.every((s) => s.shown === 0),
    `no progress counted during a retry: ${JSON.stringify(seen)}`,
  );

  const report = host.driver.reportMarkdown(JSON.stringify({}));
  assert.match(report, /\*\*FAILED \(gave up after 3 attempts\)\*\*/);

  // Nothing more happens on its own.
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal(spawnedPids(spawnLog).length, 3, 'no retry after giving up');

  host.driver.handle({ type: 'connectNow', server: 'hangs' });
  await waitFor('Connect Now to spawn at once', () => spawnedPids(spawnLog).length === 4, 5_000);
  await waitFor('that attempt to fail too', () => gaveUp('hangs') && /gave up after 4 attempts/.test(stateOf('hangs').error), 10_000);
  // The last attempt's process is being closed (stdin, then TERM, then KILL).
  await waitFor('every attempt’s process group to end', () => spawnedPids(spawnLog).every((pid) => groupMembers(pid).length === 0), 15_000);
});
