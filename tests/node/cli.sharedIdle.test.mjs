// Idle stop that follows use (issue 26 items 5 and 7), with real `lazy-mcp
// serve --stdio` sessions and the real server-memory: the owner counts a shared
// process's calls from every client and keeps it, after its last client left,
// until nobody has used it for the idle time of that rate; `daemon status` and
// `lazy-mcp diagnostics` show that idle time. And a server's own idle ceiling
// (`--server-idle-timeout NAME=MS`). Sessions that end (not an idle stop) leave the
// process only the handover grace.
//
// The tiers are real minutes (under 5 calls an hour 1 min, 5–20 3 min), so the
// first test takes about 80 s: with a ceiling of 75 s each session (3 calls) idles
// out after 60 s, while the process (6 calls) is kept 75 s after its last use.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, groupMembers, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const { cleanup, spawnLogs } = endWhenDone(after);
const live = (log) => spawnedPids(log).filter((p) => groupMembers(p).length > 0);
const text = (result) => result.content.map((c) => c.text ?? '').join('\n');

function world(prefix) {
  const w = tempWorld(prefix);
  const log = path.join(w.root, 'memory.log');
  spawnLogs.push(log);
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: { memory: countedServer(log, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }) } });
  // The handover grace short, so that only the idle time can keep the process.
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: path.join(w.root, 'sock'), LAZY_MCP_HANDOVER_GRACE_MS: '500' };
  cleanup.push(async () => {
    await runCli(['daemon', 'stop'], { env }).catch(() => undefined);
  });
  return { ...w, log, env };
}

async function session(w, extra) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--stdio', '--cwd', w.ws, ...extra], env: w.env, stderr: 'pipe' });
  const client = new Client({ name: 'idle-test', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
  return { client, pid };
}

async function memoryRow(w) {
  const { code, stdout, stderr } = await runCli(['daemon', 'status', '--json'], { env: w.env });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout).processes?.find((p) => p.server === 'memory');
}

test('two sessions calling alternately keep one shared process for the tier of its calls from both, then it stops; status and diagnostics show its idle time', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-idle-');
  const flags = ['--idle-timeout', '75000'];
  const sessions = [await session(w, flags), await session(w, flags)];
  let lastUse = 0;
  for (let i = 0; i < 6; i++) {
    const answer = await sessions[i % 2].client.callTool({ name: 'memory__read_graph', arguments: {} });
    assert.ok(!answer.isError, text(answer));
    lastUse = Date.now();
  }
  // The sessions' start-up cataloguing may still be ending: then one process serves both.
  await waitFor('one memory process for both sessions', () => live(w.log).length === 1, 10_000);
  const [pid] = live(w.log);
  const held = await memoryRow(w);
  assert.deepEqual([held.clients, held.callsLastHour, held.idleMs], [2, 6, 75_000], JSON.stringify(held));

  // Each session idles out 60 s after its own last call (3 calls: the 1-min tier).
  await waitFor('both sessions to let go of memory (or the process to be gone)', async () => ((await memoryRow(w))?.clients ?? 0) === 0, 90_000);
  const detachedAfter = Date.now() - lastUse;
  assert.ok(detachedAfter >= 59_000, `a session let go ${detachedAfter} ms after the last call`);
  // Past the handover grace, the process is still up: kept 75 s after its last use (6 calls: the 3-min tier, under the ceiling).
  await new Promise((r) => setTimeout(r, 2_000));
  assert.ok(isAlive(pid) && groupMembers(pid).length > 0, 'the process outlives its clients by its own idle time');
  const lingering = await memoryRow(w);
  assert.equal(lingering.clients, 0);
  assert.ok(Math.abs(lingering.stopsAtMs - (lastUse + 75_000)) < 3_000, `stops ${lingering.stopsAtMs - lastUse} ms after the last call`);
  const { stdout: statusText } = await runCli(['daemon', 'status'], { env: w.env });
  assert.match(statusText, /memory {2}pid \d+ {2}0 clients {2}idle time 1 min 15 s \(6 calls in the last hour\), no client: stops in \d+ s/, statusText);
  const diagnostics = await runCli(['diagnostics', '--cwd', w.ws], { env: w.env });
  assert.equal(diagnostics.code, 0, diagnostics.stderr);
  assert.match(diagnostics.stdout, /Shared servers:[^]*memory {2}pid \d+ {2}0 clients {2}idle time 1 min 15 s \(6 calls in the last hour\)/, diagnostics.stdout);

  await waitFor('the process to stop', () => live(w.log).length === 0, 30_000);
  const stoppedAfter = Date.now() - lastUse;
  assert.ok(stoppedAfter >= 74_000 && stoppedAfter < 85_000, `stopped ${stoppedAfter} ms after the last call`);

  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('nothing left of memory', () => live(w.log).length === 0, 5_000);
});

test('--server-idle-timeout NAME=MS is that server\'s own idle ceiling', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-server-idle-');
  const bad = await runCli(['serve', '--stdio', '--server-idle-timeout', 'memory'], { env: w.env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--server-idle-timeout memory: expected NAME=MS/);

  // The user's ceiling is 10 min (1 call: the 1-min tier); memory's own is 1.5 s.
  const s = await session(w, ['--isolated', '--idle-timeout', '600000', '--server-idle-timeout', 'memory=1500']);
  const answer = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!answer.isError, text(answer));
  const calledAt = Date.now();
  assert.ok(live(w.log).length >= 1, 'memory runs');
  await waitFor('memory to stop after its own idle time', () => live(w.log).length === 0, 15_000);
  assert.ok(Date.now() - calledAt < 15_000);
  await s.client.close();
  await waitFor('serve to exit', () => !isAlive(s.pid), 20_000);
});

test('sessions that end leave their shared process only the handover grace, not its idle time', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-ended-');
  // The same busy process as above (6 calls, ceiling 75 s), but its sessions exit instead of idling out.
  const flags = ['--idle-timeout', '75000'];
  const sessions = [await session(w, flags), await session(w, flags)];
  for (let i = 0; i < 6; i++) {
    const answer = await sessions[i % 2].client.callTool({ name: 'memory__read_graph', arguments: {} });
    assert.ok(!answer.isError, text(answer));
  }
  await waitFor('one memory process for both sessions', () => live(w.log).length === 1, 10_000);
  assert.equal((await memoryRow(w)).idleMs, 75_000);
  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  const exited = Date.now();
  // Grace 500 ms: gone within a few seconds (with the idle time it would run 75 s more).
  await waitFor('the process to stop after the grace', () => live(w.log).length === 0, 10_000);
  assert.ok(Date.now() - exited < 10_000, `stopped ${Date.now() - exited} ms after the sessions exited`);
});
