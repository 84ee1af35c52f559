// Special files where a config file (or a `{file:}` reference) is expected:
// a directory, a symbolic link loop, /dev/zero, a file over the 4 MB cap, a
// FIFO. Each is reported as what it is, naming the file, in bounded time
// (nothing hangs, nothing big is read), like any other config problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';

const bounded = { timeoutMs: 30_000 };

function mkfifo(p) {
  execFileSync('mkfifo', [p]);
}

test('a discovered config path that is a directory, a link loop, a FIFO or a device: an error naming it and what it is', { timeout: 180_000 }, async (t) => {
  const cases = [
    ['directory', (p) => fs.mkdirSync(p), /is a directory/],
    ['symbolic link loop', (p) => fs.symlinkSync(p, p), /is a symbolic link loop/],
    ['FIFO', mkfifo, /is a FIFO/],
    ['/dev/zero', (p) => fs.symlinkSync('/dev/zero', p), /is a character device/],
  ];
  for (const [what, make, message] of cases) {
    await t.test(what, async () => {
      const w = tempWorld('lazy-mcp-special-');
      const file = path.join(w.ws, '.mcp.json');
      make(file);
      writeJson(path.join(w.ws, '.vscode', 'mcp.json'), { servers: { ok: { command: 'node', args: ['-e', '0'] } } });
      const started = Date.now();
      const r = await runCli(['config', '--cwd', w.ws], { env: w.env, ...bounded });
      const line = r.stdout.split('\n').find((l) => l.includes(file) && l.includes('error'));
      assert.ok(line, `${what}: no problem naming ${file}:\n${r.stdout}\n${r.stderr}`);
      assert.match(line, message);
      assert.doesNotMatch(r.stdout, new RegExp(`${file.replace(/[.]/g, '\\.')}\\s+\\(claude-code, project\\): not found`));
      assert.equal(r.code, 3, 'an error problem makes `config` exit 3');
      assert.match(r.stdout, /\n {2}ok\n/, 'the other file still loads');
      assert.ok(Date.now() - started < 20_000, `${what} took ${Date.now() - started} ms`);
    });
  }
});

test('--config naming a directory, a link loop, a FIFO, /dev/zero or an 8 MB file: exit 3 with one clear message', { timeout: 180_000 }, async (t) => {
  const cases = [
    ['directory', (p) => fs.mkdirSync(p), /is a directory/],
    ['symbolic link loop', (p) => fs.symlinkSync(p, p), /is a symbolic link loop/],
    ['FIFO', mkfifo, /is a FIFO/],
    ['/dev/zero', (p) => fs.symlinkSync('/dev/zero', p), /is a character device/],
    ['big file', (p) => fs.writeFileSync(p, `{"mcpServers": {}, "pad": "${'x'.repeat(8 * 1024 * 1024)}"}`), /is larger than 4 MB \(8 MB\)/],
  ];
  for (const [what, make, message] of cases) {
    await t.test(what, async () => {
      const w = tempWorld('lazy-mcp-special-');
      const file = path.join(w.root, 'odd.json');
      make(file);
      const r = await runCli(['config', '--cwd', w.ws, '--config', file], { env: w.env, ...bounded });
      assert.equal(r.code, 3, `${what}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, new RegExp(`${file.replace(/[.]/g, '\\.')}: error: this path ${message.source}`));
      assert.doesNotMatch(r.stderr, /no such file|could not tell which tool/);
    });
  }
});

test('{file:} naming a directory, a FIFO or /dev/zero: an error at the reference, read in bounded time', { timeout: 120_000 }, async () => {
  const w = tempWorld('lazy-mcp-special-');
  fs.mkdirSync(path.join(w.ws, 'adir'));
  mkfifo(path.join(w.ws, 'apipe'));
  fs.symlinkSync('/dev/zero', path.join(w.ws, 'azero'));
  writeJson(path.join(w.ws, 'opencode.json'), {
    mcp: {
      dir: { type: 'local', command: ['node', '{file:adir}'] },
      pipe: { type: 'local', command: ['node', '{file:apipe}'] },
      zero: { type: 'local', command: ['node', '{file:azero}'] },
    },
  });
  const r = await runCli(['config', '--cwd', w.ws], { env: w.env, ...bounded });
  for (const [server, what] of [['dir', /adir`, which is a directory/], ['pipe', /apipe`, which is a FIFO/], ['zero', /azero`, which is a character device/]]) {
    const line = r.stdout.split('\n').find((l) => l.includes(`[${server}]`));
    assert.ok(line, `${server}: ${r.stdout}`);
    assert.match(line, /opencode\.json:\d+:\d+: error/);
    assert.match(line, what);
  }
});
