// Shared servers across Lazy MCP versions (issue 26, docs/shared-servers.md
// "Versions"): "A client of a different Lazy MCP version (an extension update)
// never breaks calls in flight. It either takes over cleanly or runs beside the
// old owner until that one drains." Real `serve --stdio --shared` sessions, the
// real server-everything (its long-running tool is the call in flight) and
// server-memory, the SDK client.
//
// The other version is a copy of dist/ changed in one thing, so only that differs:
// - another wire version: the copy's wasm-bindgen glue (core/lazy_mcp_wasm.js)
//   answers `sharedProtocol()` with another number; its sessions and the owner
//   they start (the copy's own cli.js) use that number, as a build with another
//   `SHARED_PROTOCOL` would. The .wasm is untouched.
// - the same wire version, another package version: the copy's .wasm has its
//   version text (Cargo's CARGO_PKG_VERSION, what `coreVersion()` returns and
//   the engine sends as clientInfo.version) replaced by another of the same
//   length, as a build of another version would have it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, groupMembers, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const require = createRequire(import.meta.url);
const distDir = path.dirname(cliJs);
const thisCore = require(path.join(distDir, 'core', 'lazy_mcp_wasm.js'));
const THIS_WIRE = thisCore.sharedProtocol();
const THIS_VERSION = thisCore.coreVersion();
const { cleanup, spawnLogs } = endWhenDone(after);

/** A copy of dist/ with another wire version (`wire`) or another package version (`version`); returns its cli.js. */
function otherBuild(root, { wire, version }) {
  const dir = path.join(root, 'other-dist');
  fs.cpSync(distDir, dir, { recursive: true });
  if (wire !== undefined) {
    const glue = path.join(dir, 'core', 'lazy_mcp_wasm.js');
    const text = fs.readFileSync(glue, 'utf8');
    const patched = text.replace(/function sharedProtocol\(\) \{[^}]*\}/, `function sharedProtocol() {\n    return ${wire};\n}`);
    assert.notEqual(patched, text, 'sharedProtocol() found in the glue');
    fs.writeFileSync(glue, patched);
  }
  if (version !== undefined) {
    assert.equal(Buffer.byteLength(version), Buffer.byteLength(THIS_VERSION), 'a version text of the same length');
    const file = path.join(dir, 'core', 'lazy_mcp_wasm_bg.wasm');
    const bytes = fs.readFileSync(file);
    const from = Buffer.from(THIS_VERSION);
    let count = 0;
    for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + from.length)) {
      Buffer.from(version).copy(bytes, at);
      count++;
    }
    assert.ok(count > 0, `${THIS_VERSION} found in the .wasm`);
    fs.writeFileSync(file, bytes);
  }
  // The copy loads and says what it is.
  const core = require(path.join(dir, 'core', 'lazy_mcp_wasm.js'));
  assert.equal(core.sharedProtocol(), wire ?? THIS_WIRE);
  assert.equal(core.coreVersion(), version ?? THIS_VERSION);
  return path.join(dir, 'cli.js');
}

/** A user with server-everything and server-memory at user level, one project folder, a socket dir of its own. */
function world(prefix) {
  const w = tempWorld(prefix);
  const logs = { memory: path.join(w.root, 'memory.log'), everything: path.join(w.root, 'everything.log') };
  spawnLogs.push(...Object.values(logs));
  writeJson(path.join(w.home, '.claude.json'), {
    mcpServers: {
      memory: countedServer(logs.memory, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }),
      everything: countedServer(logs.everything, 'server-everything', ['stdio']),
    },
  });
  const project = path.join(w.root, 'a');
  fs.mkdirSync(project);
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  const owners = new Set();
  cleanup.push(() => {
    for (const pid of owners) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { ...w, logs, project, socketDir, env, owners };
}

/** The pid of the owner of wire version `wire` from its log (the last "listening" line), or undefined. */
function ownerPid(w, wire) {
  const log = path.join(w.socketDir, `owner-v${wire}.log`);
  if (!fs.existsSync(log)) return undefined;
  const last = fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l)).pop();
  const pid = last ? Number(last.split(' ')[1]) : undefined;
  if (pid) w.owners.add(pid);
  return pid;
}

/** One agent session of the build `cli`: `serve --stdio --shared`, with the SDK client connected. */
async function session(w, cli) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'serve', '--stdio', '--shared', '--cwd', w.project],
    env: w.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'shared-versions-test', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
  return { client, pid, stderr: () => stderr };
}

/** `lazy-mcp daemon status` of the build `cli` (its wire version's owner), JSON or text. */
function daemonStatus(w, cli, json = true) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'daemon', 'status', ...(json ? ['--json'] : [])], { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(json ? JSON.parse(out) : out) : reject(new Error(`daemon status: ${code} ${err}`))));
  });
}

/** The rows of `server` the owner of `cli`'s wire version holds once `ready(rows)` holds. */
async function rowsOf(w, cli, server, ready) {
  let rows;
  await waitFor(`the owner to hold ${server}`, async () => {
    rows = ((await daemonStatus(w, cli)).processes ?? []).filter((p) => p.server === server && p.pid);
    return ready(rows);
  }, 30_000);
  return rows;
}

const text = (result) => result.content.map((c) => c.text ?? '').join('\n');
const live = (log) => spawnedPids(log).filter((p) => groupMembers(p).length > 0);

async function longTool(client) {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => /long-running/.test(t.name));
  assert.ok(tool, tools.map((t) => t.name).join(', '));
  return tool.name;
}

/** A slow call in flight: its outcome, and whether it has settled yet. */
function slowCall(client, name, seconds) {
  const call = { settled: false };
  call.outcome = client.callTool({ name, arguments: { duration: seconds, steps: seconds } }, undefined, { timeout: 120_000 }).then(
    (result) => ({ result }),
    (error) => ({ error }),
  );
  call.outcome.finally(() => (call.settled = true));
  return call;
}

/** Every session closed: the serves exit, every server process and every owner is gone. */
async function nothingLeft(w, sessions) {
  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('every server process to be gone', () => Object.values(w.logs).every((log) => live(log).length === 0), 20_000);
  await waitFor('every owner to exit', () => [...w.owners].every((pid) => !isAlive(pid)), 20_000);
  assert.deepEqual(fs.readdirSync(w.socketDir).filter((f) => f.endsWith('.sock')), [], 'no socket left');
}

test('an owner of another wire version has a call in flight: a client of this version runs its own owner beside it, the call completes, the old owner drains and exits', { skip: !posix, timeout: 240_000 }, async (t) => {
  const w = world('lazy-mcp-shared-wire-');
  const OTHER_WIRE = THIS_WIRE + 1;
  const other = otherBuild(w.root, { wire: OTHER_WIRE });

  // The old version’s session: a 20 s call in flight through its owner (long enough for a loaded machine).
  const old = await session(w, other);
  const name = await longTool(old.client);
  const callAt = Date.now();
  const slow = slowCall(old.client, name, 20);
  const oldRow = (await rowsOf(w, other, 'everything', (rows) => rows.some((p) => p.sinceMs >= callAt))).find((p) => p.sinceMs >= callAt);
  const oldOwner = ownerPid(w, OTHER_WIRE);
  assert.ok(oldOwner && isAlive(oldOwner), 'the other version’s owner runs');

  // A client of this version arrives (an update): its calls are answered at once, by its own owner.
  const fresh = await session(w, cliJs);
  const echo = await fresh.client.callTool({ name: 'everything__echo', arguments: { message: 'from the update' } });
  assert.match(text(echo), /from the update/);
  assert.ok(!(await fresh.client.callTool({ name: 'memory__read_graph', arguments: {} })).isError);
  assert.equal(slow.settled, false, 'the old call is still in flight while the new client is served');
  const newOwner = ownerPid(w, THIS_WIRE);
  assert.ok(newOwner && newOwner !== oldOwner && isAlive(newOwner), `its own owner: ${newOwner} (the other: ${oldOwner})`);
  assert.deepEqual(fs.readdirSync(w.socketDir).filter((f) => f.endsWith('.sock')).sort(), [`owner-v${OTHER_WIRE}.sock`, `owner-v${THIS_WIRE}.sock`].sort());
  const [newRow] = await rowsOf(w, cliJs, 'everything', (rows) => rows.length === 1);
  assert.notEqual(newRow.pid, oldRow.pid, 'a server process of its own: the owners share nothing');
  assert.deepEqual(newRow.holders.map((h) => h.label), [`lazy-mcp serve --stdio (pid ${fresh.pid}) · a`]);
  assert.equal((await daemonStatus(w, cliJs)).version, THIS_VERSION);

  // The call in flight completes, untouched.
  const outcome = await slow.outcome;
  assert.ok(outcome.result && !outcome.result.isError, `the old call: ${outcome.error?.message ?? text(outcome.result)}`);
  assert.match(text(outcome.result), /Long running operation completed/);
  t.diagnostic(`the old call completed ${Date.now() - callAt} ms after it started`);

  // The old version's last client leaves: its owner drains (its server stops after the
  // handover grace), then exits and removes its socket. The new client keeps working throughout.
  await old.client.close();
  await waitFor('the old session to exit', () => !isAlive(old.pid), 10_000);
  await waitFor('the old owner’s server to stop', () => groupMembers(oldRow.pid).length === 0, 20_000);
  await waitFor('the old owner to exit', () => !isAlive(oldOwner), 20_000);
  assert.ok(!fs.existsSync(path.join(w.socketDir, `owner-v${OTHER_WIRE}.sock`)), 'its socket is gone');
  const later = await fresh.client.callTool({ name: 'everything__echo', arguments: { message: 'after the old owner left' } });
  assert.match(text(later), /after the old owner left/);
  assert.equal(groupMembers(newRow.pid).length > 0, true, 'the new owner’s server runs on');
  for (const s of [old, fresh]) assert.doesNotMatch(s.stderr(), / error/i, s.stderr());
  await nothingLeft(w, [fresh]);
});

test('the same wire version, another Lazy MCP version: the client attaches to the running owner (which reports its version), the call in flight completes, the versions never share a server process', { skip: !posix, timeout: 240_000 }, async () => {
  const w = world('lazy-mcp-shared-pkgversion-');
  // Another version text of the same length (0.1.0 → 0.1.1): what the copy's core and engine say.
  const last = THIS_VERSION.at(-1);
  const OTHER_VERSION = THIS_VERSION.slice(0, -1) + (last === '9' ? '8' : String.fromCharCode(last.charCodeAt(0) + 1));
  const other = otherBuild(w.root, { version: OTHER_VERSION });

  const old = await session(w, other);
  const name = await longTool(old.client);
  const callAt = Date.now();
  const slow = slowCall(old.client, name, 20);
  const oldRow = (await rowsOf(w, other, 'everything', (rows) => rows.some((p) => p.sinceMs >= callAt))).find((p) => p.sinceMs >= callAt);
  const owner = ownerPid(w, THIS_WIRE);
  // The owner says which Lazy MCP it is, to this version's `daemon status` too.
  const status = await daemonStatus(w, cliJs);
  assert.deepEqual([status.pid, status.version, status.protocol], [owner, OTHER_VERSION, THIS_WIRE]);
  assert.match(await daemonStatus(w, cliJs, false), new RegExp(`Lazy MCP owner pid ${owner} \\(Lazy MCP ${OTHER_VERSION.replaceAll('.', '\\.')}, wire v${THIS_WIRE}\\)`));

  // A client of this version: the same wire, so it attaches to the running owner.
  const fresh = await session(w, cliJs);
  const echo = await fresh.client.callTool({ name: 'everything__echo', arguments: { message: 'from the other version' } });
  assert.match(text(echo), /from the other version/);
  assert.equal(slow.settled, false, 'the old call is still in flight while the new client is served');
  assert.equal(ownerPid(w, THIS_WIRE), owner, 'no second owner');
  assert.ok(isAlive(owner));
  assert.deepEqual(fs.readdirSync(w.socketDir).filter((f) => f.endsWith('.sock')), [`owner-v${THIS_WIRE}.sock`]);
  // The sharing key includes the engine's version (clientInfo.version, shared/launch.rs):
  // each version runs its own server process under the one owner.
  const rows = await rowsOf(w, cliJs, 'everything', (r) => r.length === 2);
  assert.ok(rows.some((r) => r.pid === oldRow.pid));
  assert.deepEqual(rows.map((r) => r.holders.map((h) => h.label)).sort(), [[`lazy-mcp serve --stdio (pid ${fresh.pid}) · a`], [`lazy-mcp serve --stdio (pid ${old.pid}) · a`]].sort());

  const outcome = await slow.outcome;
  assert.ok(outcome.result && !outcome.result.isError, `the old call: ${outcome.error?.message ?? text(outcome.result)}`);
  assert.match(text(outcome.result), /Long running operation completed/);
  for (const s of [old, fresh]) assert.doesNotMatch(s.stderr(), / error/i, s.stderr());
  await nothingLeft(w, [old, fresh]);
});
