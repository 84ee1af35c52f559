// Issue 23 §5: a project's `{file:...}` that is a symbolic link to a refused file
// (/etc/shadow, ~/.ssh/…) must be refused like the file itself: the host reports the
// file it actually opened (`realPath`), the core refuses by it. What a user sees: an
// error at the reference's file:line:col naming the server, the link and the file it
// leads to; the server is not started, the file's contents appear nowhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadHostModule } from './helpers/bundle.mjs';
import { runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';

const { readFiles } = await loadHostModule('host/config/configFiles');
/** The core's largest config file (host_limits.rs; the WASM's hostLimits is this generated JSON). */
const { configFileMaxBytes } = JSON.parse(fs.readFileSync(new URL('../../crates/lazy-mcp-wasm/src/host_limits.generated.json', import.meta.url), 'utf8'));

test('readFiles reports the file a symbolic link (or a linked folder) opened; a plain file has no realPath', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-links-'));
  const p = (name) => path.join(dir, name);
  fs.mkdirSync(p('real'));
  fs.writeFileSync(p('real/target.txt'), 'x');
  fs.symlinkSync(p('real/target.txt'), p('link.txt'));
  fs.symlinkSync(p('real'), p('linked-dir'));
  const files = await readFiles([p('link.txt'), p('linked-dir/target.txt'), p('real/target.txt')], configFileMaxBytes);
  assert.deepEqual(
    files.map((f) => [path.relative(dir, f.path), f.realPath && path.relative(dir, f.realPath)]),
    [
      ['link.txt', 'real/target.txt'],
      ['linked-dir/target.txt', 'real/target.txt'],
      ['real/target.txt', undefined],
    ],
  );
});

test('a project {file:} that links to /etc/shadow or into ~/.ssh: an error at its file:line:col naming the server, the link and its target; never read', { skip: process.platform === 'win32' }, async () => {
  const w = tempWorld('lazy-mcp-file-links-');
  const planted = 'planted-ssh-key-contents-9f8e7d';
  fs.mkdirSync(path.join(w.home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(w.home, '.ssh', 'id_ed25519'), planted);
  fs.symlinkSync('/etc/shadow', path.join(w.ws, 'token'));
  fs.symlinkSync(path.join(w.home, '.ssh', 'id_ed25519'), path.join(w.ws, 'key'));
  fs.writeFileSync(path.join(w.ws, 'fine.txt'), 'fine-value');
  const opencode = path.join(w.ws, 'opencode.json');
  writeJson(opencode, {
    mcp: {
      shadow: { type: 'local', command: ['node', 'server.js', '{file:token}'] },
      ssh: { type: 'local', command: ['node', 'server.js', '{file:./key}'] },
      fine: { type: 'local', command: ['node', 'server.js', '{file:fine.txt}'] },
    },
  });
  const r = await runCli(['config', '--cwd', w.ws], { env: w.env });
  const lineOf = (server) => r.stdout.split('\n').find((l) => l.includes(`[${server}]`) && l.includes('error'));
  const file = opencode.replace(/[.]/g, '\\.');
  // The line of each reference in the file as written.
  const lineNo = (text) => fs.readFileSync(opencode, 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;
  assert.match(lineOf('shadow') ?? '', new RegExp(`^\\s*${file}:${lineNo('{file:token}')}:\\d+: error \\[shadow\\]: .*names \`${w.ws}/token\`, a symbolic link to \`/etc/shadow\`, a system secret`), r.stdout);
  assert.match(lineOf('ssh') ?? '', new RegExp(`^\\s*${file}:${lineNo('{file:./key}')}:\\d+: error \\[ssh\\]: .*names \`${w.ws}/key\`, a symbolic link to \`${w.home}/\\.ssh/id_ed25519\`, your SSH keys folder`), r.stdout);
  assert.equal(r.code, 3, 'an error in the config is exit 3 for `config`');

  const json = await runCli(['config', '--json', '--cwd', w.ws], { env: w.env });
  const names = JSON.parse(json.stdout).servers.map((s) => s.name);
  assert.deepEqual(names, ['fine'], 'the refused servers are not started');
  const shadow = fs.readFileSync('/etc/shadow', 'utf8').split('\n')[0];
  for (const out of [r.stdout, r.stderr, json.stdout, json.stderr]) {
    assert.ok(!out.includes(planted), 'the SSH key is never read into anything shown');
    if (shadow.length > 8) assert.ok(!out.includes(shadow), '/etc/shadow is never read into anything shown');
  }
});
