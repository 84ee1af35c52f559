// Shared servers with a real PyPI server (issue 26, docs/shared-servers.md): four real
// `lazy-mcp serve --stdio` sessions in two projects, driven by the official SDK client, share
// one process of `mcp-server-time` (Python, from PyPI) through the per-user owner. The server
// comes from the project's own installer (scripts/lib/pythonServers.mjs: a venv in the tools
// dir, installed once; without python3 it fails at once saying so). Asserted as a user notices
// it: one process for all four sessions, each session's own answer, nothing left running.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ensurePythonServers } from '../../scripts/lib/pythonServers.mjs';
import { repoRoot } from './helpers/bundle.mjs';
import { cliJs, groupMembers, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const { cleanup, spawnLogs } = endWhenDone(after);
const launcher = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'counting-launcher.mjs');
const text = (result) => result.content.map((c) => c.text ?? '').join('\n');

/** The owner's pid from its log (the last "listening" line), or undefined. */
function ownerPid(socketDir) {
  const log = path.join(socketDir, 'owner-v2.log');
  if (!fs.existsSync(log)) return undefined;
  const last = fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l)).pop();
  return last ? Number(last.split(' ')[1]) : undefined;
}

/** What runs in a launcher's process group: the launcher and the server it started. */
const commandLines = (pgid) => groupMembers(pgid).map((pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
});

test('four serve sessions in two projects share one mcp-server-time (PyPI) process; each gets its own answer; nothing is left', { skip: !posix, timeout: 300_000 }, async () => {
  const py = ensurePythonServers(); // installed once into the tools dir (about 30 s the first time)
  const w = tempWorld('lazy-mcp-shared-pypi-');
  const log = path.join(w.root, 'time.log');
  spawnLogs.push(log);
  // User level: the same server for every project.
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: { time: { command: process.execPath, args: [launcher, log, py.bin('mcp-server-time')] } } });
  const projects = ['a', 'b'].map((name) => {
    const dir = path.join(w.root, name);
    fs.mkdirSync(dir);
    return dir;
  });
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  cleanup.push(() => {
    const pid = ownerPid(socketDir);
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  // Each project catalogued first, so the sessions start nothing until their calls.
  for (const dir of projects) {
    const catalogued = await runCli(['catalogue', '--cwd', dir], { env, timeoutMs: 120_000 });
    assert.equal(catalogued.code, 0, catalogued.stderr);
  }
  await waitFor('the cataloguing processes to end', () => spawnedPids(log).every((p) => groupMembers(p).length === 0), 20_000);
  const before = spawnedPids(log).length;

  const session = async (cwd) => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--stdio', '--cwd', cwd], env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'shared-pypi-test', version: '1' });
    await client.connect(transport);
    const pid = transport.pid;
    cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
    return { client, pid, stderr: () => stderr };
  };
  const sessions = await Promise.all([projects[0], projects[0], projects[1], projects[1]].map(session));
  assert.equal(spawnedPids(log).length, before, 'nothing started before the calls');

  // Every session's first call at once, each for its own time zone: one spawn, four right answers.
  const zones = ['UTC', 'Asia/Tokyo', 'Europe/Paris', 'America/New_York'];
  const answers = await Promise.all(sessions.map((s, i) => s.client.callTool({ name: 'time__get_current_time', arguments: { timezone: zones[i] } })));
  for (const [i, a] of answers.entries()) {
    assert.ok(!a.isError, text(a));
    assert.equal(JSON.parse(text(a)).timezone, zones[i], `session ${i}: ${text(a)}`);
  }
  const spawned = spawnedPids(log).slice(before);
  assert.equal(spawned.length, 1, `one mcp-server-time spawn for four first calls: ${spawned}`);
  const running = spawnedPids(log).filter((p) => groupMembers(p).length > 0);
  assert.deepEqual(running, spawned, 'the one process runs');
  assert.ok(commandLines(spawned[0]).some((c) => c.includes('mcp-server-time')), `a Python mcp-server-time in it: ${commandLines(spawned[0])}`);

  // The owner says so too: one time process, held by all four sessions.
  const status = await runCli(['daemon', 'status', '--json'], { env });
  assert.equal(status.code, 0, status.stderr);
  const rows = JSON.parse(status.stdout).processes.filter((p) => p.server === 'time');
  assert.deepEqual(rows.map((r) => r.clients), [4], status.stdout);

  // A second round (a conversion) reuses it: no new process.
  const converted = await Promise.all(sessions.map((s) => s.client.callTool({ name: 'time__convert_time', arguments: { source_timezone: 'UTC', time: '12:00', target_timezone: 'Asia/Tokyo' } })));
  for (const c of converted) assert.equal(JSON.parse(text(c)).target.datetime.slice(11, 16), '21:00', text(c));
  assert.equal(spawnedPids(log).length, before + 1, 'still one spawn');
  for (const s of sessions) assert.doesNotMatch(s.stderr(), / error/i, s.stderr());

  // Every session closed: the serves exit, the owner stops the server and then itself.
  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('the mcp-server-time process to be gone', () => groupMembers(spawned[0]).length === 0, 20_000);
  await waitFor('the owner to exit', () => {
    const pid = ownerPid(socketDir);
    return pid === undefined || !isAlive(pid);
  }, 20_000);
});
