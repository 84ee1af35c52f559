// The shared catalogue's files (host/storage/sharedCatalogueDir.ts): written
// atomically 0600 in a 0700 directory; a directory others may enter, or a
// symlink, is never read (another user could plant tool definitions there)
// and says so once; a key that is not the core's hex never becomes a path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadHostModule } from './helpers/bundle.mjs';

const { SharedCatalogueDir, defaultSharedCatalogueDir } = await loadHostModule('host/storage/sharedCatalogueDir');
const posix = process.platform !== 'win32';

function store(dir) {
  const lines = [];
  return { store: new SharedCatalogueDir(dir, (level, message) => lines.push(`${level}: ${message}`)), lines };
}

test('written atomically 0600 in a 0700 directory it creates, then read back', { skip: !posix }, async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-shared-cat-')), 'cache', 'shared-catalogue');
  const { store: s, lines } = store(dir);
  assert.deepEqual(await s.read('ab12'), { file: path.join(dir, 'ab12.json'), blob: undefined }, 'nothing yet');
  await s.write('ab12-cd34', '{"x":1}');
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  assert.equal(fs.statSync(path.join(dir, 'ab12-cd34.json')).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir), ['ab12-cd34.json'], 'no temporary file left');
  assert.equal((await s.read('ab12-cd34')).blob, '{"x":1}');
  assert.deepEqual(lines, []);
});

test('a directory others may enter is not used, with one warning naming it', { skip: !posix }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-shared-cat-open-'));
  fs.writeFileSync(path.join(dir, 'ab12.json'), '{"planted":true}');
  fs.chmodSync(dir, 0o755);
  const { store: s, lines } = store(dir);
  assert.equal((await s.read('ab12')).blob, undefined, 'a planted entry is never read');
  await s.write('ab12', '{"x":1}');
  assert.equal(fs.readFileSync(path.join(dir, 'ab12.json'), 'utf8'), '{"planted":true}', 'nor written');
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], new RegExp(`${dir} is not used: it has mode 755.*chmod 700`));

  const link = `${dir}-link`;
  fs.chmodSync(dir, 0o700);
  fs.symlinkSync(dir, link);
  const viaLink = store(link);
  assert.equal((await viaLink.store.read('ab12')).blob, undefined);
  assert.match(viaLink.lines[0], /not a plain directory/);
});

test('only the core’s hex keys become file names', async () => {
  const { store: s } = store(path.join(os.tmpdir(), 'never-created'));
  for (const key of ['../x', 'AB', '', 'a/b', 'a-b-c', 'x'.repeat(3)]) assert.throws(() => s.fileOf(key), /not a shared catalogue key/, key);
  assert.equal(defaultSharedCatalogueDir({ XDG_CACHE_HOME: '/c' }), path.join('/c', 'lazy-mcp', 'shared-catalogue'));
  assert.equal(defaultSharedCatalogueDir({ XDG_CACHE_HOME: 'relative' }), path.join(os.homedir(), '.cache', 'lazy-mcp', 'shared-catalogue'));
});
