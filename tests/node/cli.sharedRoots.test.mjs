// Shared servers never mix workspace roots (issue 26 item 2, docs/shared-servers.md
// "The sharing key"): real `lazy-mcp serve --stdio --shared` sessions in two
// projects and the real server-everything at user level, whose
// `get-roots-list` shows the roots it got from its client (it asks for them
// 350 ms after `initialized`, too late for cataloguing to see).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, groupMembers, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const { cleanup, spawnLogs } = endWhenDone(after);

function world(prefix) {
  const w = tempWorld(prefix);
  const log = path.join(w.root, 'everything.log');
  spawnLogs.push(log);
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: { everything: countedServer(log, 'server-everything', ['stdio']) } });
  const dirs = {};
  for (const name of ['a', 'b']) {
    dirs[name] = path.join(w.root, name);
    fs.mkdirSync(dirs[name]);
  }
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  cleanup.push(() => {
    for (const pid of [ownerPid(socketDir)]) if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { ...w, log, dirs, socketDir, env };
}

function ownerPid(socketDir) {
  const file = path.join(socketDir, 'owner-v2.log');
  if (!fs.existsSync(file)) return undefined;
  const last = fs.readFileSync(file, 'utf8').split('\n').filter((l) => / listening on /.test(l)).pop();
  return last ? Number(last.split(' ')[1]) : undefined;
}

async function session(w, cwd) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--stdio', '--shared', '--cwd', cwd],
    env: w.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'roots-test', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
  return { client, pid, stderr: () => stderr };
}

const live = (w) => spawnedPids(w.log).filter((p) => groupMembers(p).length > 0);
const text = (result) => result.content.map((c) => c.text ?? '').join('\n');
const rootsOf = (s) => s.client.callTool({ name: 'everything__get-roots-list', arguments: {} }).then(text);

async function nothingLeft(w, sessions) {
  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('every everything process to be gone', () => live(w).length === 0, 20_000);
  await waitFor('the owner to exit', () => {
    const pid = ownerPid(w.socketDir);
    return pid === undefined || !isAlive(pid);
  }, 20_000);
}

/** Two sessions, one per project, each catalogued and nothing running, then their first calls at the same moment. */
async function firstCallsAtOnce(w) {
  const sessions = [await session(w, w.dirs.a), await session(w, w.dirs.b)];
  for (const s of sessions) {
    const { tools } = await s.client.listTools();
    assert.ok(tools.some((t) => t.name === 'everything__get-roots-list'), tools.map((t) => t.name).join(', '));
  }
  await waitFor('the cataloguing processes to stop', () => live(w).length === 0, 20_000);
  const seen = await Promise.all(sessions.map(rootsOf));
  return { sessions, seen };
}

test('two projects call a user-level server that asks for roots at the same moment: neither ever sees the other\'s roots; once recorded, each gets a process of its own roots', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-roots-');
  const a = w.dirs.a, b = w.dirs.b;

  // Catalogued as never asking (its ask comes after cataloguing): the two
  // first calls may share one process. Whatever happens, no session is given
  // the other project's roots.
  const first = await firstCallsAtOnce(w);
  assert.doesNotMatch(first.seen[0], new RegExp(b), `project a's session sees b's roots: ${first.seen[0]}`);
  assert.doesNotMatch(first.seen[1], new RegExp(a), `project b's session sees a's roots: ${first.seen[1]}`);
  const again = await Promise.all(first.sessions.map(rootsOf));
  assert.doesNotMatch(again[0], new RegExp(b), again[0]);
  assert.doesNotMatch(again[1], new RegExp(a), again[1]);
  await nothingLeft(w, first.sessions);

  // The ask was recorded in each session's catalogue: new sessions' first
  // calls at once get one process per project, each with its own roots.
  const second = await firstCallsAtOnce(w);
  assert.match(second.seen[0], new RegExp(`${a}\\b`), second.seen[0]);
  assert.doesNotMatch(second.seen[0], new RegExp(b), second.seen[0]);
  assert.match(second.seen[1], new RegExp(`${b}\\b`), second.seen[1]);
  assert.doesNotMatch(second.seen[1], new RegExp(a), second.seen[1]);
  const { code, stdout, stderr } = await runCli(['daemon', 'status', '--json'], { env: w.env });
  assert.equal(code, 0, stderr);
  const rows = JSON.parse(stdout).processes.filter((p) => p.server === 'everything');
  assert.deepEqual(rows.map((p) => p.clients), [1, 1], JSON.stringify(rows));
  await nothingLeft(w, second.sessions);
});
