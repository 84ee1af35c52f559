// The host carries the core's announcements (issue 12, defect 3) with a real
// server and a missing command: one summary for the startup cataloguing
// failure, an answer to Connect Now, and, without a UI (the CLI), a log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

const tiny = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');

function workspace() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-announce-'));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'opencode.json'), JSON.stringify({
    mcp: {
      good: { type: 'local', command: [process.execPath, tiny] },
      broken: { type: 'local', command: [path.join(root, 'no-such-mcp-server')] },
    },
  }));
  return { root, ws };
}

function newHost(root, ws, extra) {
  return new LazyHost({
    core: new WasmCore(builtCoreModule, () => {}),
    discovery: { home: path.join(root, 'home'), workspaceFolders: [ws], platform: 'linux', env: { PATH: process.env.PATH ?? '' } },
    // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    store: new BlobFile(path.join(root, 'catalogue.json')),
    ...extra,
  });
}

const state = (host, name) => JSON.parse(host.driver.snapshotJson({ withMemory: false })).servers.find((s) => s.name === name)?.state.kind;

test('a UI host gets one summary for a startup failure and an answer to Connect Now', async () => {
  const { root, ws } = workspace();
  const shown = [];
  const host = newHost(root, ws, { log: () => {}, onAnnounce: (a) => shown.push(a) });
  try {
    await host.start();
    await waitFor('good catalogued and broken failed', () => state(host, 'good') === 'CATALOGUED' && state(host, 'broken') === 'FAILED', 20_000);
    await waitFor('the summary', () => shown.length > 0, 5_000);
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.equal(shown[0].server, 'broken');
    assert.match(shown[0].message, /^MCP server 'broken' could not be catalogued: .*no-such-mcp-server/);
    assert.deepEqual(shown[0].actions, ['showDiagnostics']);

    host.driver.handle({ type: 'connectNow', server: 'broken' });
    await waitFor('the answer', () => shown.length > 1, 10_000);
    // Issue 23: the ENOENT error says what to do itself; no generic "Check its definition" after it.
    assert.match(shown[1].message, /^Connect Now failed: .*command not found \(ENOENT\); check that it is installed(?!.*Check its definition)/);
    assert.deepEqual(shown[1].actions, ['openDefinition', 'showDiagnostics']);
  } finally {
    await host.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('without a UI (the CLI) announcements are logged', async () => {
  const { root, ws } = workspace();
  const logged = [];
  const host = newHost(root, ws, { log: (level, message, server) => logged.push({ level, message, server }) });
  try {
    await host.start();
    await waitFor('the summary logged', () => logged.some((l) => /could not be catalogued/.test(l.message)), 20_000);
    const line = logged.find((l) => /could not be catalogued/.test(l.message));
    assert.equal(line.level, 'warn');
    assert.equal(line.server, 'broken');
  } finally {
    await host.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
