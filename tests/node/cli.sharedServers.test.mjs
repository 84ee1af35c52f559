// Shared servers (issue 26, docs/shared-servers.md): several real `lazy-mcp
// serve --stdio --shared` processes, driven by the official SDK client, share
// one process per server and sharing key through the per-user owner
// (`lazy-mcp daemon`). Real npm servers (memory, filesystem, everything).
// Asserted as a user notices it: process counts, answers, errors, nothing
// left running.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliJs, groupMembers, runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const { cleanup, spawnLogs } = endWhenDone(after);

/**
 * A user (own HOME and socket dir) with memory at user level and, per project, filesystem from
 * the project's .mcp.json. The tests' short handover grace, except for a test of the grace
 * (`handover`). (With server-everything, which asks for roots after cataloguing, two sessions
 * calling it one after the other with that grace were once served by two processes: fixed,
 * and tested in cli.sharedRoots.)
 */
function world(prefix, { projects = ['a'], everything = false, handover = false } = {}) {
  const w = tempWorld(prefix);
  const logs = { memory: path.join(w.root, 'memory.log'), filesystem: path.join(w.root, 'filesystem.log'), everything: path.join(w.root, 'everything.log') };
  spawnLogs.push(...Object.values(logs));
  const user = { memory: countedServer(logs.memory, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }) };
  if (everything) user.everything = countedServer(logs.everything, 'server-everything', ['stdio']);
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: user });
  const dirs = {};
  for (const name of projects) {
    const dir = path.join(w.root, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `${name}-only.txt`), name);
    // The same launch in every project ("."): only the project makes the processes differ.
    writeJson(path.join(dir, '.mcp.json'), { mcpServers: { filesystem: countedServer(logs.filesystem, 'server-filesystem', ['.']) } });
    dirs[name] = dir;
  }
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  if (handover) delete env.LAZY_MCP_HANDOVER_GRACE_MS;
  cleanup.push(() => {
    const pid = ownerPid(socketDir);
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { ...w, logs, dirs, socketDir, env };
}

/** The owner's pid from its log (the last "listening" line), or undefined. */
function ownerPid(socketDir) {
  const log = path.join(socketDir, 'owner-v2.log');
  if (!fs.existsSync(log)) return undefined;
  const lines = fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l));
  const last = lines[lines.length - 1];
  return last ? Number(last.split(' ')[1]) : undefined;
}

/** One agent session: `lazy-mcp serve --stdio` (sharing is the default) in `cwd`, with the SDK client connected. */
async function session(w, cwd, extra = [], env = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--stdio', '--trust-project', '--cwd', cwd, ...extra],
    env: { ...w.env, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'shared-test', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
  return { client, pid, stderr: () => stderr };
}

const live = (log) => spawnedPids(log).filter((p) => groupMembers(p).length > 0);
const text = (result) => result.content.map((c) => c.text ?? '').join('\n');

async function daemonStatus(w) {
  const { code, stdout, stderr } = await runCli(['daemon', 'status', '--json'], { env: w.env });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}

/** Every session closed: the serves exit, the owner stops the servers and then itself; nothing is left. */
async function nothingLeft(w, sessions) {
  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('every server process to be gone', () => Object.values(w.logs).every((log) => live(log).length === 0), 20_000);
  await waitFor('the owner to exit', () => {
    const pid = ownerPid(w.socketDir);
    return pid === undefined || !isAlive(pid);
  }, 20_000);
}

test('five serve sessions in two projects: one memory process for all, one filesystem process per project, each answer its own', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-five-', { projects: ['a', 'b'] });
  const cwds = [w.dirs.a, w.dirs.a, w.dirs.a, w.dirs.b, w.dirs.b];
  const sessions = await Promise.all(cwds.map((cwd) => session(w, cwd)));

  // What one session writes to memory, a session of the other project reads: the same process.
  const created = await sessions[0].client.callTool({ name: 'memory__create_entities', arguments: { entities: [{ name: 'shared-note', entityType: 'note', observations: ['from a'] }] } });
  assert.ok(!created.isError, text(created));
  const answers = await Promise.all(sessions.map((s) => s.client.callTool({ name: 'memory__read_graph', arguments: {} })));
  for (const a of answers) assert.match(text(a), /shared-note/);
  const dirsSeen = await Promise.all(sessions.map((s) => s.client.callTool({ name: 'filesystem__list_directory', arguments: { path: '.' } })));
  for (const [i, listing] of dirsSeen.entries()) {
    const mine = cwds[i] === w.dirs.a ? 'a-only.txt' : 'b-only.txt';
    const theirs = cwds[i] === w.dirs.a ? 'b-only.txt' : 'a-only.txt';
    assert.match(text(listing), new RegExp(mine), `session ${i}: ${text(listing)}`);
    assert.doesNotMatch(text(listing), new RegExp(theirs), `session ${i} sees the other project: ${text(listing)}`);
  }

  // Processes the sessions' start-up cataloguing used are stopped once their last user left.
  await waitFor('one memory and two filesystem processes', () => live(w.logs.memory).length === 1 && live(w.logs.filesystem).length === 2, 15_000).catch(() => undefined);
  assert.equal(live(w.logs.memory).length, 1, `memory processes: ${live(w.logs.memory)}`);
  const fsPids = live(w.logs.filesystem);
  assert.equal(fsPids.length, 2, `filesystem processes: ${fsPids}`);
  assert.deepEqual(fsPids.map((p) => fs.readlinkSync(`/proc/${p}/cwd`)).sort(), [w.dirs.a, w.dirs.b].sort(), 'each runs in its own project');
  const status = await daemonStatus(w);
  const clients = Object.fromEntries(['memory', 'filesystem'].map((s) => [s, status.processes.filter((p) => p.server === s).map((p) => p.clients).sort()]));
  assert.deepEqual(clients, { memory: [5], filesystem: [2, 3] }, JSON.stringify(status));
  // Who holds the shared memory process: each session by its pid and project folder's name.
  const holders = status.processes.find((p) => p.server === 'memory').holders.map((h) => h.label).sort();
  assert.deepEqual(holders, sessions.map((s, i) => `lazy-mcp serve --stdio (pid ${s.pid}) · ${path.basename(cwds[i])}`).sort());
  for (const s of sessions) assert.doesNotMatch(s.stderr(), / error/i, s.stderr());

  await nothingLeft(w, sessions);
});

test('a shared user-level server without a cwd runs in the home folder, not in the project that started it or the socket folder', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-home-');
  const s = await session(w, w.dirs.a);
  const answer = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!answer.isError, text(answer));
  const [pid] = live(w.logs.memory);
  assert.ok(pid, 'memory runs');
  assert.equal(fs.readlinkSync(`/proc/${pid}/cwd`), fs.realpathSync(w.home));
  await nothingLeft(w, [s]);
});

test('ten sessions whose first calls come at once start one memory process', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-ten-');
  // The catalogue first (not shared), so the sessions start nothing until their calls.
  const catalogued = await runCli(['catalogue', '--trust-project', '--cwd', w.dirs.a], { env: w.env, timeoutMs: 60_000 });
  assert.equal(catalogued.code, 0, catalogued.stderr);
  const before = spawnedPids(w.logs.memory).length;
  const sessions = await Promise.all(Array.from({ length: 10 }, () => session(w, w.dirs.a)));
  assert.equal(spawnedPids(w.logs.memory).length, before, 'nothing started before the calls');
  const answers = await Promise.all(sessions.map((s) => s.client.callTool({ name: 'memory__read_graph', arguments: {} })));
  for (const a of answers) assert.ok(!a.isError && /entities/.test(text(a)), text(a));
  assert.equal(spawnedPids(w.logs.memory).length - before, 1, 'one spawn for ten first calls');
  assert.equal(fs.readdirSync(w.socketDir).filter((f) => f.endsWith('.sock')).length, 1, 'one owner socket');
  await nothingLeft(w, sessions);
});

/** The long-running tool of server-everything, as exposed through lazy-mcp. */
async function longTool(client) {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => /long-running/.test(t.name));
  assert.ok(tool, tools.map((t) => t.name).join(', '));
  return tool.name;
}

/** The owner's row for `server` once `ready(row)` holds (its pid is the server process). */
async function heldRow(w, server, ready) {
  let row;
  await waitFor(`the owner to hold ${server}`, async () => {
    row = (await daemonStatus(w)).processes?.find((p) => p.server === server && p.pid && ready(p));
    return row !== undefined;
  }, 30_000);
  return row;
}

test('SIGKILL of the owner mid-call: the call fails at once naming the owner, its servers are gone, the next call starts a new owner', { skip: !posix, timeout: 180_000 }, async (t) => {
  const w = world('lazy-mcp-shared-ownerkill-', { everything: true });
  const [one, two] = await Promise.all([session(w, w.dirs.a), session(w, w.dirs.a)]);
  const name = await longTool(one.client);
  const callAt = Date.now();
  const slow = one.client.callTool({ name, arguments: { duration: 30, steps: 30 } }, undefined, { timeout: 60_000 }).then(
    (r) => ({ result: r }),
    (e) => ({ error: e }),
  );
  // The process started for this call (not the one the start-up cataloguing used).
  const row = await heldRow(w, 'everything', (p) => p.sinceMs >= callAt);
  await new Promise((r) => setTimeout(r, 1_000)); // the call is in flight
  assert.ok(groupMembers(row.pid).length > 0, 'the server runs');
  const owner = ownerPid(w.socketDir);
  assert.ok(owner && isAlive(owner));
  const killedAt = Date.now();
  process.kill(owner, 'SIGKILL');
  const outcome = await slow;
  const failedAfter = Date.now() - killedAt;
  assert.ok(failedAfter < 5_000, `the call failed ${failedAfter} ms after the kill`);
  const message = outcome.error ? String(outcome.error.message) : text(outcome.result);
  assert.ok(outcome.error || outcome.result.isError, `the call must fail: ${message}`);
  assert.match(message, /owner/i, message);
  t.diagnostic(`failed ${failedAfter} ms after the kill with: ${message}`);
  await waitFor('the killed owner’s servers to be gone', () => groupMembers(row.pid).length === 0, 10_000);

  // The next call, from either session, starts a new owner and a new server.
  const again = await two.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!again.isError, text(again));
  const retried = await one.client.callTool({ name: 'everything__echo', arguments: { message: 'after the owner died' } });
  assert.match(text(retried), /after the owner died/);
  const next = ownerPid(w.socketDir);
  assert.ok(next && next !== owner && isAlive(next), `a new owner: ${next} (was ${owner})`);
  await nothingLeft(w, [one, two]);
});

test('a session killed mid-call: the other session and the shared server are unaffected', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-clientkill-', { everything: true });
  const [one, two] = await Promise.all([session(w, w.dirs.a), session(w, w.dirs.a)]);
  const name = await longTool(one.client);
  // Both sessions use the server (the second stays attached until its idle time).
  assert.match(text(await two.client.callTool({ name: 'everything__echo', arguments: { message: 'first' } })), /first/);
  void one.client.callTool({ name, arguments: { duration: 30, steps: 30 } }, undefined, { timeout: 60_000 }).catch(() => undefined);
  const row = await heldRow(w, 'everything', (p) => p.clients === 2);
  await new Promise((r) => setTimeout(r, 500)); // the call is in flight
  process.kill(one.pid, 'SIGKILL');
  await waitFor('the killed session to be gone', () => !isAlive(one.pid), 10_000);
  const echo = await two.client.callTool({ name: 'everything__echo', arguments: { message: 'still here' } });
  assert.match(text(echo), /still here/);
  const after = await heldRow(w, 'everything', (p) => p.clients === 1);
  assert.equal(after.pid, row.pid, 'the same server process serves the other session');
  assert.ok(groupMembers(row.pid).length > 0);
  await nothingLeft(w, [two]);
});

test('two sessions with 60 calls each in flight at once through one shared server: every call gets its own answer, none lost or swapped', { skip: !posix, timeout: 120_000 }, async () => {
  // Many messages in one socket read and one batched write each way (the owner's and the
  // session's writes leave together per tick): each must still reach its own caller.
  const w = world('lazy-mcp-shared-burst-', { everything: true });
  const sessions = await Promise.all([session(w, w.dirs.a), session(w, w.dirs.a)]);
  const calls = sessions.flatMap((s, k) => Array.from({ length: 60 }, (_, i) => ({ s, message: `session ${k} call ${i}` })));
  const answers = await Promise.all(calls.map(({ s, message }) => s.client.callTool({ name: 'everything__echo', arguments: { message } })));
  assert.deepEqual(
    answers.map((a) => text(a)),
    calls.map(({ message }) => `Echo: ${message}`),
  );
  // The start-up cataloguing's process, if it still lingers, stops: one process served both.
  await waitFor('one everything process', () => live(w.logs.everything).length === 1, 15_000).catch(() => undefined);
  assert.equal(live(w.logs.everything).length, 1, `everything processes: ${live(w.logs.everything)}`);
  await nothingLeft(w, sessions);
});

test('a session that ends hands its server over: another session calling a moment later gets the same process, not a second spawn', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-handover-', { handover: true });
  const [one, two] = await Promise.all([session(w, w.dirs.a), session(w, w.dirs.a)]);
  assert.ok(!(await one.client.callTool({ name: 'memory__read_graph', arguments: {} })).isError);
  const [pid] = live(w.logs.memory);
  const spawned = spawnedPids(w.logs.memory).length;
  // The only holder leaves (as at its idle stop or exit); the other session calls right after.
  await one.client.close();
  await waitFor('the first session to exit', () => !isAlive(one.pid), 10_000);
  assert.ok(!(await two.client.callTool({ name: 'memory__read_graph', arguments: {} })).isError);
  assert.equal(spawnedPids(w.logs.memory).length, spawned, 'no second memory process');
  assert.deepEqual(live(w.logs.memory), [pid], 'the same process answered');
  await nothingLeft(w, [two]);
});

test('a stale socket (its owner SIGKILLed while idle) is replaced; two owners started at once leave one', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-stale-');
  fs.mkdirSync(w.socketDir, { mode: 0o700 });
  const socket = path.join(w.socketDir, 'owner-v2.sock');
  // Two owners started at the same moment: one listens, the other exits 0.
  const racers = [0, 1].map(() => spawn(process.execPath, [cliJs, 'daemon', 'run', '--linger-ms', '60000'], { env: w.env, stdio: 'ignore' }));
  for (const r of racers) cleanup.push(() => isAlive(r.pid) && process.kill(r.pid, 'SIGKILL'));
  const exits = racers.map((r) => new Promise((resolve) => r.on('exit', (code) => resolve(code))));
  const loser = await Promise.race(exits);
  assert.equal(loser, 0, 'the second owner exits cleanly');
  const running = racers.filter((r) => r.exitCode === null);
  assert.equal(running.length, 1, 'one owner keeps running');
  const status = await daemonStatus(w);
  assert.equal(status.pid, running[0].pid);

  // SIGKILL it: its socket file stays behind, nobody listens on it.
  running[0].kill('SIGKILL');
  await exits[racers.indexOf(running[0])];
  assert.ok(fs.existsSync(socket), 'the stale socket is left');
  await assert.rejects(new Promise((resolve, reject) => net.createConnection(socket).on('connect', resolve).on('error', reject)), /ECONNREFUSED/);

  const s = await session(w, w.dirs.a);
  const answer = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!answer.isError, text(answer));
  const fresh = ownerPid(w.socketDir);
  assert.ok(fresh && fresh !== running[0].pid && isAlive(fresh), 'a new owner replaced the stale socket');
  await nothingLeft(w, [s]);
});

/** Runs `node -e script` as another user (uid/gid 65534, "nobody"): its exit code (null if it could not start) and output. */
function runAsNobody(node, script) {
  return new Promise((resolve) => {
    const child = spawn(node, ['-e', script], { uid: 65534, gid: 65534, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', () => resolve({ code: null, out }));
    child.on('exit', (code) => resolve({ code, out: out.trim() }));
  });
}

/** Connects to `socket` as nobody: `connected` or the error code. */
async function connectAsNobody(node, socket) {
  const probe = `require('net').connect(${JSON.stringify(socket)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
  return (await runAsNobody(node, probe)).out;
}

/** A Node binary another user may run (the test's own may sit under root's 0700 home), or undefined. */
async function nodeForNobody() {
  for (const node of [process.execPath, '/usr/bin/node', '/usr/local/bin/node']) {
    if (fs.existsSync(node) && (await runAsNobody(node, '0')).code === 0) return node;
  }
  return undefined;
}

const root = posix && process.getuid?.() === 0;
test('another user cannot reach the owner: its socket directory (0700) refuses a different uid, and so does the socket itself (0600)', { skip: root ? false : 'needs root to run a probe as another user', timeout: 120_000 }, async () => {
  const node = await nodeForNobody();
  assert.ok(node, 'no Node binary the user nobody may run (tried the test\'s own, /usr/bin/node, /usr/local/bin/node)');
  const w = world('lazy-mcp-shared-uid-');
  // Only our directories stand in the way: the world's root is open to others, as /tmp or /run/user are.
  fs.chmodSync(w.root, 0o755);
  const s = await session(w, w.dirs.a);
  const answer = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!answer.isError, text(answer));
  const socket = path.join(w.socketDir, 'owner-v2.sock');
  assert.ok(fs.existsSync(socket), 'the owner listens');
  assert.equal(fs.statSync(w.socketDir).mode & 0o777, 0o700);
  assert.equal(fs.statSync(socket).mode & 0o777, 0o600);
  assert.equal(await connectAsNobody(node, socket), 'EACCES', 'the directory refuses another user');
  // Were the directory opened to others by mistake, the socket's own mode still refuses them.
  fs.chmodSync(w.socketDir, 0o711);
  try {
    assert.equal(await connectAsNobody(node, socket), 'EACCES', 'the socket refuses another user');
  } finally {
    fs.chmodSync(w.socketDir, 0o700);
  }
  // The owner's own user still gets through: the same call again is answered by the same process.
  const again = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!again.isError, text(again));
  assert.equal(live(w.logs.memory).length, 1);
  await nothingLeft(w, [s]);
});

test('a socket directory others may enter is refused: the session runs its servers itself and says why', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-mode-');
  fs.mkdirSync(w.socketDir, { mode: 0o755 });
  fs.chmodSync(w.socketDir, 0o755);
  const s = await session(w, w.dirs.a);
  const answer = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!answer.isError, text(answer));
  assert.match(s.stderr(), new RegExp(`${w.socketDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has mode 755`), s.stderr());
  assert.deepEqual(fs.readdirSync(w.socketDir), [], 'no owner started there');
  const [memory] = live(w.logs.memory);
  const parent = Number(fs.readFileSync(`/proc/${memory}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  const grandparent = Number(fs.readFileSync(`/proc/${parent}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  assert.ok([parent, grandparent].includes(s.pid), 'the server is the session’s own child');
  await nothingLeft(w, [s]);
});

test('serve --isolated never shares: each session starts its own memory process', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-isolated-');
  const sessions = await Promise.all([session(w, w.dirs.a, ['--isolated']), session(w, w.dirs.a, ['--isolated'])]);
  await Promise.all(sessions.map((s) => s.client.callTool({ name: 'memory__read_graph', arguments: {} })));
  assert.equal(live(w.logs.memory).length, 2);
  assert.ok(!fs.existsSync(w.socketDir), 'no owner, no socket directory');
  await nothingLeft(w, sessions);
});

test('serve --http --shared and serve --stdio --shared share one memory process', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-http-', { projects: ['a', 'b'] });
  // The same environment as the SDK gives the stdio session (its defaults under ours): sessions share only then.
  const serve = startCli(['serve', '--shared', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.dirs.a], {
    env: { ...getDefaultEnvironment(), ...w.env },
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const [, url, token] = await serve.started;
  const http = new Client({ name: 'shared-http-test', version: '1' });
  await http.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const stdio = await session(w, w.dirs.b);
  const created = await http.callTool({ name: 'memory__create_entities', arguments: { entities: [{ name: 'via-http', entityType: 'note', observations: ['x'] }] } });
  assert.ok(!created.isError, text(created));
  assert.match(text(await stdio.client.callTool({ name: 'memory__read_graph', arguments: {} })), /via-http/);
  await waitFor('one memory process', () => live(w.logs.memory).length === 1, 15_000).catch(() => undefined);
  assert.equal(live(w.logs.memory).length, 1, `memory processes: ${live(w.logs.memory)}`);
  await http.close();
  serve.child.kill('SIGTERM');
  await serve.exited;
  await nothingLeft(w, [stdio]);
});

test('lazy-mcp daemon status names what the owner holds; daemon stop ends it and its servers, and the next call starts a new owner', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-stop-');
  const none = await runCli(['daemon', 'status'], { env: w.env });
  assert.equal(none.code, 0);
  assert.match(none.stderr, /no Lazy MCP owner is running/);
  const s = await session(w, w.dirs.a);
  assert.ok(!(await s.client.callTool({ name: 'memory__read_graph', arguments: {} })).isError);
  const status = await runCli(['daemon', 'status'], { env: w.env });
  assert.match(status.stdout, /Lazy MCP owner pid \d+ .*: 1 shared server\n {2}memory {2}pid \d+ {2}1 client/, status.stdout);
  assert.match(status.stdout, new RegExp(`\n {4}held by lazy-mcp serve --stdio \\(pid ${s.pid}\\) · a since \\d{4}-`), status.stdout);
  const [memory] = live(w.logs.memory);
  const owner = ownerPid(w.socketDir);
  const stop = await runCli(['daemon', 'stop'], { env: w.env });
  assert.equal(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, new RegExp(`stopping the Lazy MCP owner \\(pid ${owner}\\)`));
  await waitFor('the owner and its server to be gone', () => !isAlive(owner) && groupMembers(memory).length === 0, 15_000);
  const again = await s.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!again.isError, text(again));
  assert.notEqual(ownerPid(w.socketDir), owner, 'a new owner');
  await nothingLeft(w, [s]);
});

test('lazy-mcp diagnostics shows the shared servers: owner, server pid, memory, clients and who holds them', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-diag-');
  const s = await session(w, w.dirs.a);
  assert.ok(!(await s.client.callTool({ name: 'memory__read_graph', arguments: {} })).isError);
  const diag = await runCli(['diagnostics', '--cwd', w.dirs.a, '--trust-project'], { env: w.env });
  assert.equal(diag.code, 0, diag.stderr);
  assert.match(diag.stdout, /\nShared servers: Lazy MCP owner pid \d+ [^\n]*: 1 shared server\n {2}memory {2}pid \d+ {2}1 client {2}idle time 1 min \(1 call in the last hour\) {2}since \S+ {2}RSS [1-9]\d* MB {2}key /, diag.stdout);
  assert.match(diag.stdout, new RegExp(`\n {4}held by lazy-mcp serve --stdio \\(pid ${s.pid}\\) · a since \\d{4}-`), diag.stdout);
  const json = await runCli(['diagnostics', '--json', '--cwd', w.dirs.a, '--trust-project'], { env: w.env });
  assert.equal(json.code, 0, json.stderr);
  const owner = JSON.parse(json.stdout).sharedOwner;
  assert.equal(owner.processes.length, 1);
  assert.equal(owner.processes[0].server, 'memory');
  assert.equal(owner.processes[0].clients, 1);
  // Its calls from every client in the last hour and the idle time they give it (the owner's).
  assert.deepEqual([owner.processes[0].callsLastHour, owner.processes[0].idleMs, owner.processes[0].stopsAtMs], [1, 60_000, null]);
  await nothingLeft(w, [s]);
});

test('sessions whose environments differ (another token) never share a process: each server sees its own session’s environment', { skip: !posix, timeout: 120_000 }, async () => {
  const w = world('lazy-mcp-shared-env-', { everything: true });
  const [one, two, twin] = await Promise.all([
    session(w, w.dirs.a, [], { SHARED_TEST_TOKEN: 'token-one' }),
    session(w, w.dirs.a, [], { SHARED_TEST_TOKEN: 'token-two' }),
    session(w, w.dirs.a, [], { SHARED_TEST_TOKEN: 'token-one' }),
  ]);
  const seen = await Promise.all([one, two, twin].map((s) => s.client.callTool({ name: 'everything__get-env', arguments: {} })));
  assert.match(text(seen[0]), /token-one/);
  assert.doesNotMatch(text(seen[0]), /token-two/);
  assert.match(text(seen[1]), /token-two/);
  assert.doesNotMatch(text(seen[1]), /token-one/);
  assert.match(text(seen[2]), /token-one/);
  await waitFor('two everything processes', () => live(w.logs.everything).length === 2, 15_000).catch(() => undefined);
  assert.equal(live(w.logs.everything).length, 2, 'one per environment: the twin sessions share one');
  await nothingLeft(w, [one, two, twin]);
});
