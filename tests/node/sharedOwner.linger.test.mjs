// The owner of shared servers keeps a used process for the handover grace after its last
// client left (the core's `linger` effect). Stopping the owner ends that wait too: a timer
// left behind would keep an owner run in-process alive for the whole grace after it stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { repoRoot } from './helpers/bundle.mjs';

const posix = process.platform !== 'win32';

test('a stopped owner leaves no linger timer running: its process ends at once, not after the grace', { skip: !posix, timeout: 120_000 }, async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-owner-linger-')), 'sock');
  const graceMs = 60_000;
  const child = spawn(process.execPath, [path.join(repoRoot, 'tests', 'fixtures', 'owner', 'inProcessOwner.mjs'), dir, String(graceMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let stoppedAt;
  child.stdout.on('data', (d) => {
    out += d;
    if (stoppedAt === undefined && out.includes('stopped')) stoppedAt = Date.now();
  });
  const exited = new Promise((resolve) => child.once('exit', () => resolve(Date.now())));
  const endedAt = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 45_000))]);
  const lookedAt = Date.now();
  if (endedAt === undefined) child.kill('SIGKILL');
  // The server was kept for the grace when the owner stopped (else this would prove nothing).
  assert.match(out, /lingering 1/);
  assert.ok(stoppedAt !== undefined, `the owner never stopped: ${out}`);
  assert.ok(endedAt !== undefined, `the process was still running ${lookedAt - stoppedAt} ms after the owner stopped (the grace is ${graceMs} ms)`);
  assert.ok(endedAt - stoppedAt < 10_000, `the process ended ${endedAt - stoppedAt} ms after the owner stopped`);
});
