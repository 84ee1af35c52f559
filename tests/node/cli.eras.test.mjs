// Upstream servers of both MCP protocol eras through `lazy-mcp`, all real peers:
// a modern-only server (official TypeScript SDK v2, `legacy: 'reject'`) over stdio
// and Streamable HTTP, dual-era servers (SDK v2 without reject; Python `mcp` 2.3.0
// `MCPServer`; `fastmcp` 4.1.0, which on `mcp` 2.3.0 answers `server/discover` too),
// and legacy servers (Python `mcp` 1.30.0, which answers the probe with -32602, and
// server-everything, which answers it with -32601). Each is
// catalogued (one `server/discover` probe), listed from the warm catalogue with zero
// probes and zero spawns, called on first use with its real result (again zero
// probes), and its era shows in `diagnostics`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, groupMembers, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';
import { isAlive, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';
import { ensurePythonEraServers } from '../../scripts/lib/pythonServers.mjs';

const w = tempWorld('lazy-mcp-cli-eras-');
const spawnLog = path.join(w.root, 'spawns.log');
const methodLog = path.join(w.root, 'methods.log');
const httpLog = path.join(w.root, 'http-methods.log');
const cache = path.join(w.root, 'catalogue.json');
const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'servers');
const sdk2 = path.join(fixtures, 'sdk2-server.mjs');
const everything = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const logged = (command, ...args) => ({
  command: process.execPath,
  args: [path.join(fixtures, 'method-log-launcher.mjs'), spawnLog, methodLog, command, ...args],
});

const MODERN = ['modern', 'dual', 'pydual', 'fastmcp', 'web'];
const LEGACY = ['pylegacy', 'everything'];
const STDIO = ['modern', 'dual', 'pydual', 'fastmcp', 'pylegacy', 'everything'];
let httpServer;

before(async () => {
  const py = ensurePythonEraServers();
  httpServer = spawn(process.execPath, [sdk2, 'http', 'modern', 'sdk2-web'], {
    env: { ...process.env, SDK2_METHOD_LOG: httpLog },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise((resolve, reject) => {
    httpServer.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    httpServer.on('exit', (code) => reject(new Error(`the HTTP fixture exited with ${code}`)));
  });
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      modern: logged(process.execPath, sdk2, 'stdio', 'modern', 'sdk2-modern'),
      dual: logged(process.execPath, sdk2, 'stdio', 'dual', 'sdk2-dual'),
      pydual: logged(py.bin('py-eras', 'python'), path.join(fixtures, 'py_mcpserver_dual.py')),
      fastmcp: logged(py.bin('py-eras', 'python'), path.join(fixtures, 'py_fastmcp_dual.py')),
      pylegacy: logged(py.bin('py-legacy', 'python'), path.join(fixtures, 'py_mcp1_legacy.py')),
      everything: logged(process.execPath, everything, 'stdio'),
      web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
    },
  });
});

after(() => {
  httpServer?.kill('SIGKILL');
  // Should a test fail midway: end every process group it spawned.
  killSpawnedGroups(spawnLog);
});

/** Methods each stdio server received so far, by server (through the launcher's pid). */
function methodsBy() {
  const lines = fs.existsSync(methodLog) ? fs.readFileSync(methodLog, 'utf8').split('\n').filter(Boolean) : [];
  return lines.map((l) => l.split(' ')).map(([pid, method]) => ({ pid: Number(pid), method }));
}
const count = (method) => methodsBy().filter((m) => m.method === method).length;
const httpCount = (method) =>
  (fs.existsSync(httpLog) ? fs.readFileSync(httpLog, 'utf8').split('\n') : []).filter((l) => l === `http ${method}`).length;

const args = ['--cwd', w.ws, '--cache', cache];

test('catalogue: each server is probed once, modern ones never see initialize, the era is persisted', async () => {
  const res = await runCli(['catalogue', '--trust-project', ...args], { env: w.env, timeoutMs: 120_000 });
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, /7 of 7 servers ok/);
  assert.equal(spawnedPids(spawnLog).length, STDIO.length, 'one process per stdio server: the probe costs no spawn');
  assert.equal(count('server/discover'), STDIO.length, 'one probe each');
  assert.equal(httpCount('server/discover'), 1, 'one probe for the HTTP server');
  assert.equal(count('initialize'), LEGACY.length, 'initialize only for the legacy servers');
  assert.equal(httpCount('initialize'), 0);
  const entries = JSON.parse(fs.readFileSync(cache, 'utf8')).entries;
  for (const name of MODERN) assert.equal(entries[name].era, 'modern', name);
  for (const name of LEGACY) assert.equal(entries[name].era ?? 'legacy', 'legacy', name);
  assert.deepEqual(entries.modern.tools.map((t) => t.name), ['shout', 'slow', 'roots']);
  assert.deepEqual(entries.web.tools.map((t) => t.name), ['shout', 'slow', 'roots']);
  assert.deepEqual(entries.pydual.tools.map((t) => t.name), ['reverse']);
  assert.deepEqual(entries.fastmcp.tools.map((t) => t.name), ['double']);
  assert.deepEqual(entries.pylegacy.tools.map((t) => t.name), ['triple']);
  assert.equal(entries.modern.cache.ttlMs, 0, 'the SDK v2 server says ttlMs 0');
  await waitFor('every catalogued process to be gone', () => spawnedPids(spawnLog).every((p) => !isAlive(p)), 15_000);
});

test('diagnostics: the era of each server, from the catalogue, without starting anything', async () => {
  const spawnsBefore = spawnedPids(spawnLog).length;
  const probesBefore = count('server/discover') + httpCount('server/discover');
  const table = await runCli(['diagnostics', '--trust-project', ...args], { env: w.env });
  assert.equal(table.code, 0, table.stderr);
  for (const name of MODERN) assert.match(table.stdout, new RegExp(`^${name}\\s+CATALOGUED ONLY\\s+\\S+\\s+modern 2026-07-28`, 'm'), table.stdout);
  assert.match(table.stdout, /^everything\s+CATALOGUED ONLY\s+stdio\s+legacy 2025-/m, table.stdout);
  assert.match(table.stdout, /^pylegacy\s+CATALOGUED ONLY\s+stdio\s+legacy 2025-/m, table.stdout);
  // Issue 23: ttlMs 0 ("may change at any time") is not staleness; the entry is listed again at each connection.
  assert.doesNotMatch(table.stdout, /Stale \(older than the ttlMs .*modern/, 'a fresh ttlMs 0 entry is not called stale');
  const json = JSON.parse((await runCli(['diagnostics', '--trust-project', '--json', ...args], { env: w.env })).stdout);
  assert.equal(json.servers.find((s) => s.name === 'modern').cacheTtlMs, 0);
  assert.equal(json.servers.find((s) => s.name === 'modern').cacheStale, false);
  assert.equal(json.servers.find((s) => s.name === 'web').era, 'modern');
  assert.equal(json.servers.find((s) => s.name === 'pylegacy').era, 'legacy');
  assert.equal(spawnedPids(spawnLog).length, spawnsBefore, 'zero spawns');
  assert.equal(count('server/discover') + httpCount('server/discover'), probesBefore, 'zero probes');
});

test('serve --stdio: warm lists spawn nothing and probe nothing; first calls get real results with zero probes', async () => {
  const spawnsBefore = spawnedPids(spawnLog).length;
  const probesBefore = count('server/discover') + httpCount('server/discover');
  const initsBefore = count('initialize');
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', ...args], env: w.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'cli-eras-test', version: '1' });
  await client.connect(transport);
  const cliPid = transport.pid;
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const tool of ['modern__shout', 'dual__shout', 'web__shout', 'pydual__reverse', 'fastmcp__double', 'pylegacy__triple', 'everything__echo']) {
      assert.ok(names.includes(tool), `${tool} in ${names.join(', ')}`);
    }
    assert.equal(spawnedPids(spawnLog).length, spawnsBefore, 'listing spawned nothing');

    const text = async (name, a) => {
      const result = await client.callTool({ name, arguments: a });
      assert.ok(!result.isError, `${name}: ${JSON.stringify(result)}`);
      return result.content[0].text;
    };
    assert.equal(await text('modern__shout', { text: 'hi' }), 'sdk2-modern: HI');
    // The server asks for roots with an input_required result: Lazy MCP answers
    // with the workspace folder and asks again.
    assert.equal(await text('modern__roots', {}), pathToFileURL(w.ws).href);
    assert.equal(await text('dual__shout', { text: 'hi' }), 'sdk2-dual: HI');
    assert.equal(await text('web__shout', { text: 'hi' }), 'sdk2-web: HI');
    assert.equal(await text('pydual__reverse', { text: 'abc' }), 'py-dual: cba');
    assert.equal(await text('fastmcp__double', { n: 21 }), 'py-fastmcp: 42');
    assert.equal(await text('pylegacy__triple', { n: 5 }), 'py-legacy: 15');
    assert.match(await text('everything__echo', { message: 'legacy' }), /legacy/);

    // Cancelling a call to the modern HTTP server aborts its POST (the era's cancellation).
    const abort = new AbortController();
    const slow = client.callTool({ name: 'web__slow', arguments: { ms: 60_000 } }, undefined, { signal: abort.signal });
    await waitFor('the slow call to reach the server', () => httpCount('tools/call') >= 2, 15_000);
    abort.abort();
    await assert.rejects(slow);
    await waitFor('the POST of the cancelled call to be closed', () => httpCount('aborted tools/call') === 1, 15_000);

    assert.equal(count('server/discover') + httpCount('server/discover'), probesBefore, 'zero probe round trips');
    assert.equal(count('initialize') - initsBefore, LEGACY.length, 'initialize only for the legacy servers');
    assert.equal(httpCount('initialize'), 0);
    assert.equal(spawnedPids(spawnLog).length - spawnsBefore, STDIO.length, 'one spawn per first use');
    const modernMethods = methodsBy().filter((m) => !spawnedPids(spawnLog).slice(0, spawnsBefore).includes(m.pid));
    assert.ok(modernMethods.some((m) => m.method === 'subscriptions/listen'), 'modern servers are listened to');
  } finally {
    await client.close();
  }
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
  await waitFor('every server process (and its group) to be gone', () => spawnedPids(spawnLog).every((p) => !isAlive(p) && groupMembers(p).length === 0), 15_000);
  assert.doesNotMatch(stderr, /panic|engine bug/i, stderr);
});
