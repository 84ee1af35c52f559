// Host file I/O: atomic blob storage and config watching (including files that do not exist yet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadHostModule } from './helpers/bundle.mjs';

const { BlobFile } = await loadHostModule('host/storage/blobFile');
const { ConfigWatcher, readFiles } = await loadHostModule('host/config/configFiles');
/** The core's largest config file (host_limits.rs; the WASM's hostLimits is this generated JSON). */
const { configFileMaxBytes } = JSON.parse(fs.readFileSync(new URL('../../crates/lazy-mcp-wasm/src/host_limits.generated.json', import.meta.url), 'utf8'));

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-host-'));

test('BlobFile round-trips and leaves no temp files; a missing blob reads as undefined', async () => {
  const dir = tmp();
  const blob = new BlobFile(path.join(dir, 'nested', 'catalogue.json'));
  assert.equal(await blob.read(), undefined);
  await blob.write('{"v":1}');
  await blob.write('{"v":2}');
  assert.equal(await blob.read(), '{"v":2}');
  assert.deepEqual(fs.readdirSync(path.join(dir, 'nested')), ['catalogue.json']);
  assert.equal(fs.statSync(path.join(dir, 'nested', 'catalogue.json')).mode & 0o077, 0, 'user-only permissions');
});

test('readFiles reports missing files as null content', async () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'a.json'), '{}');
  const files = await readFiles([path.join(dir, 'a.json'), path.join(dir, 'missing.json')], configFileMaxBytes);
  assert.deepEqual(files.map((f) => f.content), ['{}', null]);
});

test('ConfigWatcher notices a file that is created later, and edits to it', async () => {
  const dir = tmp();
  const file = path.join(dir, '.mcp.json');
  const batches = [];
  const watcher = new ConfigWatcher((changed) => batches.push(changed), 50, 20);
  try {
    watcher.watch([file]);
    await new Promise((r) => setTimeout(r, 120));
    fs.writeFileSync(file, '{"mcpServers":{}}');
    const deadline = Date.now() + 5000;
    while (batches.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(batches[0], [file]);
  } finally {
    watcher.dispose();
  }
});
