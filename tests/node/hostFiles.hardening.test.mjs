// Host file I/O under faults: a catalogue write whose rename fails leaves no
// temp file; stale temp files of a process that no longer runs are swept at
// load (a live writer's are kept); and readFiles says what a special path is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadHostModule } from './helpers/bundle.mjs';

const { BlobFile } = await loadHostModule('host/storage/blobFile');
const { readFiles } = await loadHostModule('host/config/configFiles');
/** The core's largest config file (host_limits.rs; the WASM's hostLimits is this generated JSON). */
const { configFileMaxBytes } = JSON.parse(fs.readFileSync(new URL('../../crates/lazy-mcp-wasm/src/host_limits.generated.json', import.meta.url), 'utf8'));

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-hardening-'));

test('a catalogue write whose rename fails removes its temp file', async () => {
  const dir = tmp();
  const file = path.join(dir, 'catalogue.json');
  // A non-empty directory where the file should be: the rename over it fails.
  fs.mkdirSync(file);
  fs.writeFileSync(path.join(file, 'keep'), 'x');
  await assert.rejects(new BlobFile(file).write('{"v":1}'));
  assert.deepEqual(fs.readdirSync(dir), ['catalogue.json']);
});

test('stale temp files of a dead process are swept when the catalogue is read; a live writer keeps its own', async () => {
  const dir = tmp();
  const file = path.join(dir, 'catalogue.json');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  fs.writeFileSync(file, '{"v":1}');
  fs.writeFileSync(`${file}.${dead}.tmp`, 'torn');
  fs.writeFileSync(`${file}.${process.ppid}.tmp`, 'in progress');
  fs.writeFileSync(path.join(dir, 'other.json.1.tmp'), 'not ours');
  assert.equal(await new BlobFile(file).read(), '{"v":1}');
  assert.deepEqual(fs.readdirSync(dir).sort(), ['catalogue.json', `catalogue.json.${process.ppid}.tmp`, 'other.json.1.tmp'].sort());
});

test('readFiles: a directory, a link loop, a FIFO, a device and a big file say what they are, in bounded time', async () => {
  const dir = tmp();
  const p = (name) => path.join(dir, name);
  fs.mkdirSync(p('dir'));
  fs.symlinkSync(p('loop'), p('loop'));
  spawnSync('mkfifo', [p('fifo')]);
  fs.symlinkSync('/dev/zero', p('zero'));
  fs.symlinkSync(p('missing'), p('dangling'));
  fs.writeFileSync(p('big'), Buffer.alloc(5 * 1024 * 1024, 0x20));
  fs.writeFileSync(p('ok.json'), '{}');
  const started = Date.now();
  const files = await readFiles(['dir', 'loop', 'fifo', 'zero', 'dangling', 'big', 'ok.json', 'none'].map(p), configFileMaxBytes);
  assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  assert.deepEqual(
    files.map((f) => [path.basename(f.path), f.content === null ? null : f.content.length, f.unreadable]),
    [
      ['dir', null, 'is a directory'],
      ['loop', null, 'is a symbolic link loop'],
      ['fifo', null, 'is a FIFO (named pipe)'],
      ['zero', null, 'is a character device'],
      ['dangling', null, 'is a symbolic link to a file that does not exist'],
      ['big', null, 'is larger than 4 MB (5 MB)'],
      ['ok.json', 2, undefined],
      ['none', null, undefined],
    ],
  );
});
