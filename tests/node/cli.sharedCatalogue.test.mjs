// The shared catalogue (issue 26, docs/shared-servers.md "The shared
// catalogue"): real `lazy-mcp serve --stdio --shared` sessions in two projects,
// each with its own catalogue file, over the real server-memory (user level)
// and server-filesystem (per project, from .mcp.json). A server one session
// catalogued is not started again by the other just to catalogue it; a
// project's server is never reused for another project. Counted as a user
// notices it: how many times each server was spawned.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, groupMembers, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const { cleanup, spawnLogs } = endWhenDone(after);

const secret = 'sk-e2e-0123456789abcdef';

/** A user with memory at user level (with a secret in its env) and filesystem in each project's .mcp.json. */
function world(prefix) {
  const w = tempWorld(prefix);
  const logs = { memory: path.join(w.root, 'memory.log'), filesystem: path.join(w.root, 'filesystem.log') };
  spawnLogs.push(...Object.values(logs));
  const memory = countedServer(logs.memory, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl'), API_TOKEN: secret });
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: { memory } });
  const dirs = {};
  for (const name of ['a', 'b']) {
    const dir = path.join(w.root, name);
    fs.mkdirSync(dir);
    // The same launch in both projects: only the project differs.
    writeJson(path.join(dir, '.mcp.json'), { mcpServers: { filesystem: countedServer(logs.filesystem, 'server-filesystem', ['.']) } });
    dirs[name] = dir;
  }
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  const sharedDir = path.join(w.env.XDG_CACHE_HOME, 'lazy-mcp', 'shared-catalogue');
  cleanup.push(() => {
    const pid = ownerPid(socketDir);
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { ...w, logs, dirs, socketDir, sharedDir, env };
}

function ownerPid(socketDir) {
  const log = path.join(socketDir, 'owner-v2.log');
  if (!fs.existsSync(log)) return undefined;
  const lines = fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l));
  const last = lines[lines.length - 1];
  return last ? Number(last.split(' ')[1]) : undefined;
}

/** `lazy-mcp serve --stdio --shared --verbose` in `cwd` (its own catalogue file: the CLI's per-folder one), with the SDK client. */
async function session(w, cwd) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--stdio', '--shared', '--trust-project', '--verbose', '--cwd', cwd],
    env: w.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'shared-catalogue-test', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
  return { client, pid, stderr: () => stderr };
}

/** The CLI's own catalogue file of a folder (cliContext.ts `cataloguePath`). */
const ownCatalogue = (w, cwd) => path.join(w.env.XDG_CACHE_HOME, 'lazy-mcp', `catalogue-${createHash('sha256').update(cwd).digest('hex').slice(0, 16)}.json`);
const live = (log) => spawnedPids(log).filter((p) => groupMembers(p).length > 0);
const toolNames = async (s) => (await s.client.listTools()).tools.map((t) => t.name).sort();

async function closeAll(w, sessions) {
  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('every server process to be gone', () => Object.values(w.logs).every((log) => live(log).length === 0), 20_000);
}

test('a server one session catalogued is not started again by a session of another project; the project server is', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-catalogue-');
  const first = await session(w, w.dirs.a);
  const firstTools = await toolNames(first);
  assert.ok(firstTools.includes('memory__read_graph') && firstTools.includes('filesystem__list_directory'), firstTools.join(', '));
  assert.equal(spawnedPids(w.logs.memory).length, 1, 'the first session catalogued memory');
  // The cataloguing process has stopped (no one called it), so a second session could not attach to it.
  await waitFor('the cataloguing processes to stop', () => live(w.logs.memory).length === 0 && live(w.logs.filesystem).length === 0, 20_000);
  await waitFor('the shared entries to be written', () => fs.existsSync(w.sharedDir) && fs.readdirSync(w.sharedDir).filter((f) => f.endsWith('.json')).length === 2, 10_000);

  // Project b: its own catalogue file, empty.
  assert.notEqual(ownCatalogue(w, w.dirs.a), ownCatalogue(w, w.dirs.b));
  assert.ok(fs.existsSync(ownCatalogue(w, w.dirs.a)) && !fs.existsSync(ownCatalogue(w, w.dirs.b)));
  const second = await session(w, w.dirs.b);
  const secondTools = await toolNames(second);
  assert.deepEqual(secondTools, firstTools, 'the second session lists the same tools');
  assert.equal(spawnedPids(w.logs.memory).length, 1, 'memory was spawned once in total: its catalogue came from the first session');
  assert.equal(spawnedPids(w.logs.filesystem).length, 2, "project b's filesystem is its own server: catalogued again");
  assert.match(second.stderr(), /\[memory\]: catalogue taken from the shared catalogue/, second.stderr());
  assert.ok(fs.readFileSync(ownCatalogue(w, w.dirs.b), 'utf8').includes('read_graph'), 'kept in its own catalogue too');

  // The entry is enough to call: the call starts the server.
  const graph = await second.client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!graph.isError, JSON.stringify(graph));

  // Private: directory 0700, files 0600, no secret.
  assert.equal(fs.statSync(w.sharedDir).mode & 0o777, 0o700);
  for (const f of fs.readdirSync(w.sharedDir)) {
    const file = path.join(w.sharedDir, f);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, f);
    const text = fs.readFileSync(file, 'utf8');
    assert.doesNotMatch(text, new RegExp(secret), `${f} holds the secret`);
    assert.doesNotMatch(text, new RegExp(w.dirs.a), `${f} holds a project path`);
  }
  for (const s of [first, second]) assert.doesNotMatch(s.stderr(), / error/i, s.stderr());
  await closeAll(w, [first, second]);
});

test('a damaged shared catalogue file is ignored with a line naming it, and the server is catalogued', { skip: !posix, timeout: 180_000 }, async () => {
  const w = world('lazy-mcp-shared-catalogue-bad-');
  const first = await session(w, w.dirs.a);
  await toolNames(first);
  await waitFor('the cataloguing processes to stop', () => live(w.logs.memory).length === 0, 20_000);
  await waitFor('the shared entries to be written', () => fs.existsSync(w.sharedDir) && fs.readdirSync(w.sharedDir).filter((f) => f.endsWith('.json')).length === 2, 10_000);
  for (const f of fs.readdirSync(w.sharedDir)) fs.writeFileSync(path.join(w.sharedDir, f), '{"format":"lazy-mcp-shared-catalogue","vers');

  const second = await session(w, w.dirs.b);
  assert.ok((await toolNames(second)).includes('memory__read_graph'));
  assert.equal(spawnedPids(w.logs.memory).length, 2, 'catalogued again');
  const named = fs.readdirSync(w.sharedDir).some((f) => second.stderr().includes(`the shared catalogue file ${path.join(w.sharedDir, f)} was ignored`));
  assert.ok(named, second.stderr());
  await closeAll(w, [first, second]);
});
