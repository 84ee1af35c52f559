// The owner of shared servers under load (issue 26, found by bench/shared-scale.mjs): 20 sessions ×
// 50 servers attach 1,000 sockets at once, and sessions start while an idle owner is about to exit.
// The real `lazy-mcp daemon` from dist/cli.js and the host's own connectOwner.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { isAlive, waitFor } from './helpers/realServers.mjs';

const { connectOwner } = await loadHostModule('host/shared/ownerLauncher');
const { nextTryOf } = await loadHostModule('host/coreWaits');
/** The core's waits (host_waits.rs), as the CLI and VS Code pass them. */
const core = createRequire(import.meta.url)(builtCoreModule);
const nextTry = nextTryOf({ call: (fn) => fn(core) });
const posix = process.platform !== 'win32';
const cliJs = path.join(repoRoot, 'dist', 'cli.js');
const owners = [];
after(() => {
  for (const pid of owners) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function spec(lingerMs) {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-owner-load-')), 'sock');
  return { dir, protocol: 2, command: process.execPath, args: [cliJs], lingerMs, nextTry };
}

/**
 * The owner's pid from its log (the last "listening" line). The owner may accept a client
 * before its log line is on disk, so wait for the line rather than read once.
 */
async function ownerPid(dir) {
  const log = path.join(dir, 'owner-v2.log');
  const line = await waitFor('the owner\'s "listening" line in its log', () => {
    const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l)) : [];
    return lines[lines.length - 1];
  }, 10_000);
  const pid = Number(line.split(' ')[1]);
  owners.push(pid);
  return pid;
}

test('a thousand attachments connecting at once all reach the owner', { skip: !posix, timeout: 120_000 }, async () => {
  const s = spec(60_000);
  (await connectOwner(s)).destroy(); // the owner is up
  const outcomes = await Promise.allSettled(Array.from({ length: 1000 }, () => connectOwner(s)));
  const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason.code ?? o.reason.message);
  for (const o of outcomes) if (o.status === 'fulfilled') o.value.destroy();
  assert.deepEqual(refused, [], `refused: ${[...new Set(refused)].join(', ')}`);
  process.kill(await ownerPid(s.dir), 'SIGKILL');
});

test('an owner whose listen queue is full for a moment (EAGAIN) is tried again, not reported as unreachable', { skip: !posix, timeout: 60_000 }, async () => {
  // A listener that accepts slowly behind a queue of 8, as a busy owner does under a burst.
  const s = spec(60_000);
  fs.mkdirSync(s.dir, { mode: 0o700 });
  const slow = spawn(process.execPath, ['-e', `
    const net = require('node:net');
    net.createServer((c) => { const t = Date.now(); while (Date.now() - t < 2); c.on('error', () => {}); })
      .listen({ path: process.argv[1], backlog: 8 }, () => console.log('up'));
  `, path.join(s.dir, 'owner-v2.sock')], { stdio: ['ignore', 'pipe', 'inherit'] });
  owners.push(slow.pid);
  await new Promise((r) => slow.stdout.once('data', r));
  const outcomes = await Promise.allSettled(Array.from({ length: 300 }, () => connectOwner(s)));
  const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason.code ?? o.reason.message);
  for (const o of outcomes) if (o.status === 'fulfilled') o.value.destroy();
  slow.kill('SIGKILL');
  assert.deepEqual(refused, [], `refused: ${refused.length} (${[...new Set(refused)].join(', ')})`);
});

test('an idle owner does not exit under a client that connected and has not attached yet', { skip: !posix, timeout: 60_000 }, async () => {
  const s = spec(300);
  const socket = await connectOwner(s);
  const pid = await ownerPid(s.dir);
  await new Promise((r) => setTimeout(r, 1_500)); // five times its linger
  assert.ok(isAlive(pid), 'the owner exited under a connected client');
  assert.ok(!socket.destroyed);
  socket.destroy();
  await waitFor('the owner to exit once nothing is connected', () => !isAlive(pid), 10_000);
});
