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

/** Calls get-roots-list until it names `dir` (the server asks for roots 350 ms after its handshake); every answer on the way is kept. */
async function ownRootsSeen(s, dir, seen) {
  await waitFor(`roots naming ${dir}`, async () => {
    const roots = await rootsOf(s);
    seen.push(roots);
    return new RegExp(`${dir}\\b`).test(roots);
  }, 15_000).catch(() => undefined);
  return seen;
}

async function everythingRows(w) {
  const { code, stdout, stderr } = await runCli(['daemon', 'status', '--json'], { env: w.env });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout).processes.filter((p) => p.server === 'everything');
}

test('two projects\' first calls at once to a freshly catalogued server that asks for roots late: one process per project, each sees its own roots, no error', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-roots-split-');
  const { sessions } = await firstCallsAtOnce(w);
  const [a, b] = [w.dirs.a, w.dirs.b];
  const seen = await Promise.all([ownRootsSeen(sessions[0], a, []), ownRootsSeen(sessions[1], b, [])]);
  for (const roots of seen[0]) assert.doesNotMatch(roots, new RegExp(b), `project a's session sees b's roots: ${roots}`);
  for (const roots of seen[1]) assert.doesNotMatch(roots, new RegExp(a), `project b's session sees a's roots: ${roots}`);
  assert.match(seen[0].at(-1), new RegExp(`${a}\\b`), `project a's session never saw its roots: ${seen[0].join(' | ')}`);
  assert.match(seen[1].at(-1), new RegExp(`${b}\\b`), `project b's session never saw its roots: ${seen[1].join(' | ')}`);
  const rows = await everythingRows(w);
  assert.deepEqual(rows.map((p) => p.clients), [1, 1], `one everything process per project: ${JSON.stringify(rows)}`);
  assert.notEqual(rows[0].pid, rows[1].pid);
  await waitFor('two everything processes', () => live(w).length === 2, 15_000).catch(() => undefined);
  assert.equal(live(w).length, 2, `everything processes: ${live(w)}`);
  for (const s of sessions) assert.doesNotMatch(s.stderr(), /refused|error/i, s.stderr());
  await nothingLeft(w, sessions);
});

test('two sessions of one project, one knowing the server asks for roots and one not, call it 0.7 s apart: one process for both, with the project\'s roots', { skip: !posix, timeout: 180_000 }, async () => {
  // The tests' short handover grace (300 ms): processes that have ended are not there to be reused.
  const w = world('lazy-mcp-shared-roots-known-');
  assert.equal(w.env.LAZY_MCP_HANDOVER_GRACE_MS, '300');
  const a = w.dirs.a;
  const [knowing, unaware] = [await session(w, a), await session(w, a)];
  for (const s of [knowing, unaware]) await s.client.listTools();
  await waitFor('the cataloguing processes to stop', () => live(w).length === 0, 20_000);
  // The first session's call sees the server ask: its catalogue (the project's file) records it.
  assert.match((await ownRootsSeen(knowing, a, [])).at(-1), new RegExp(`${a}\\b`));
  await knowing.client.close();
  await waitFor('the first session to exit', () => !isAlive(knowing.pid), 20_000);
  await waitFor('its process to stop', () => live(w).length === 0, 20_000);
  await waitFor('the owner to exit', () => {
    const pid = ownerPid(w.socketDir);
    return pid === undefined || !isAlive(pid);
  }, 20_000);
  // A new session reads the recorded ask; the other still has the catalogue it read at its start.
  const informed = await session(w, a);
  await informed.client.listTools();
  const spawnedBefore = spawnedPids(w.log).length;
  const first = informed.client.callTool({ name: 'everything__echo', arguments: { message: 'informed' } });
  await new Promise((r) => setTimeout(r, 700));
  const second = unaware.client.callTool({ name: 'everything__echo', arguments: { message: 'unaware' } });
  assert.deepEqual([text(await first), text(await second)], ['Echo: informed', 'Echo: unaware']);
  await new Promise((r) => setTimeout(r, 1_000)); // the server's ask (350 ms after its handshake) is answered
  assert.equal(spawnedPids(w.log).length - spawnedBefore, 1, `spawned for the two first calls: ${spawnedPids(w.log).slice(spawnedBefore)}`);
  const rows = await everythingRows(w);
  assert.deepEqual(rows.map((p) => p.clients), [2], `one everything process held by both: ${JSON.stringify(rows)}`);
  for (const s of [informed, unaware]) {
    const roots = (await ownRootsSeen(s, a, [])).at(-1);
    assert.match(roots, new RegExp(`${a}\\b`), roots);
    assert.doesNotMatch(roots, new RegExp(w.dirs.b), roots);
  }
  await nothingLeft(w, [informed, unaware]);
});
