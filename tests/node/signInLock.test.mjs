// One sign-in per server across processes (VS Code windows, `lazy-mcp auth login` runs): the
// lock file another process has just created, and not yet written its pid into, is held, not
// stale. Taking it over made two `auth login` runs started together both register and both
// ask for a browser consent (seen in cli.oauthProcesses under load).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

const { signInLock: lockOf } = await loadHostModule('host/auth/signInLock');
const { WasmCore } = await loadHostModule('core/wasmCore');
/** How long an empty lock file is its creator's, as the hosts run it (the core's `limits().signIn`). */
const unwrittenGraceMs = new WasmCore(builtCoreModule, () => {}).limits().signIn.lockUnwrittenGraceMs;
const signInLock = (dir, url, maxAgeMs) => lockOf(dir, url, maxAgeMs, unwrittenGraceMs);

function lockDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-sign-in-lock-'));
}

test('a lock file created a moment ago and still empty is held by its creator: no second sign-in', () => {
  const dir = lockDir();
  const first = signInLock(dir, 'https://mcp.example/mcp', 600_000);
  const mine = first.tryAcquire();
  assert.ok(mine, 'the first process takes the lock');
  // The creator's state between its exclusive create and its write of the pid.
  const [file] = fs.readdirSync(dir);
  fs.writeFileSync(path.join(dir, file), '');
  const second = signInLock(dir, 'https://mcp.example/mcp', 600_000);
  assert.equal(second.tryAcquire(), undefined, 'the other process waits');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a lock file left empty for long, or one whose process is gone, is taken over', () => {
  const dir = lockDir();
  const lock = signInLock(dir, 'https://mcp.example/mcp', 600_000);
  const held = lock.tryAcquire();
  assert.ok(held);
  const [file] = fs.readdirSync(dir);
  const full = path.join(dir, file);
  fs.writeFileSync(full, '');
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(full, old, old);
  assert.ok(signInLock(dir, 'https://mcp.example/mcp', 600_000).tryAcquire(), 'an empty file a minute old is garbage');
  fs.writeFileSync(full, '999999999 0 x'); // no such process
  assert.ok(signInLock(dir, 'https://mcp.example/mcp', 600_000).tryAcquire(), 'a dead holder is replaced');
  fs.rmSync(dir, { recursive: true, force: true });
});
