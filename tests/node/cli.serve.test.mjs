// `lazy-mcp serve` driven by the official SDK client against real npm servers
// (server-memory, server-everything): stdio and Streamable HTTP, the bearer
// token, a port in use, and no server process left behind on exit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliJs, groupMembers, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, isAlive, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const w = tempWorld('lazy-mcp-cli-serve-');
const spawnLog = path.join(w.root, 'spawns.log');
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: {
    memory: countedServer(spawnLog, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }),
    everything: countedServer(spawnLog, 'server-everything', ['stdio']),
  },
});

const nothingLeft = () =>
  waitFor('every server process (and its group) to be gone', () => spawnedPids(spawnLog).every((p) => !isAlive(p) && groupMembers(p).length === 0), 15_000).catch((err) => {
    const left = spawnedPids(spawnLog).map((p) => `${p}: alive ${isAlive(p)}, group ${groupMembers(p).join(' ')}`);
    throw new Error(`${err.message}\n${left.join('\n')}`);
  });

const cleanup = [];
const spawnLogs = [spawnLog];
after(() => {
  for (const c of cleanup) c();
  // Should a test fail midway: end every process group it spawned.
  killSpawnedGroups(...spawnLogs);
});

test('serve --stdio: the SDK client lists server__tool names, calls one, and closing stdin ends everything', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws],
    env: w.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'cli-stdio-test', version: '1' });
  await client.connect(transport);
  const cliPid = transport.pid;
  cleanup.push(() => isAlive(cliPid) && process.kill(cliPid, 'SIGKILL'));

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('memory__read_graph'), names.join(', '));
  assert.ok(names.includes('everything__echo'), names.join(', '));
  assert.ok(names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)), 'valid names');

  const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'through lazy-mcp' } });
  assert.match(result.content[0].text, /through lazy-mcp/);
  const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!graph.isError, JSON.stringify(graph));

  await client.close();
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
  await nothingLeft();
  assert.doesNotMatch(stderr, /error/i, stderr);
});

async function httpClient(url, token) {
  const client = new Client({ name: 'cli-http-test', version: '1' });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

test('serve --http: bearer token from a 0600 file, SDK client lists and calls; 401 without it; a port in use exits 1; SIGTERM ends everything', async () => {
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n.*Bearer ([\w-]+)" \(token stored in (\S+), mode 0600\)/,
  });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const [, url, port, token, tokenFile] = await serve.started;
  const fs = await import('node:fs');
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  assert.equal(fs.readFileSync(tokenFile, 'utf8').trim(), token);

  const client = await httpClient(url, token);
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'everything__echo'));
  const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'over http' } });
  assert.match(result.content[0].text, /over http/);
  await client.close();

  const unauthorized = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(unauthorized.status, 401);
  await assert.rejects(httpClient(url, 'wrong-token'));

  const second = startCli(['serve', '--trust-project', '--http', `127.0.0.1:${port}`, '--cwd', w.ws], { env: w.env, ready: /never/ });
  const { code } = await second.exited;
  assert.equal(code, 1);
  assert.match(second.out.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
  assert.equal(second.out.stderr.trim().split('\n').length, 1, second.out.stderr);
  second.started.catch(() => undefined);

  // The same token is reused by the next start (registered clients keep working).
  serve.child.kill('SIGTERM');
  const exit = await serve.exited;
  assert.equal(exit.code, 0, serve.out.stderr);
  await nothingLeft();
});

test('a config that registers lazy-mcp itself does not recurse: the nested instance serves nothing', async () => {
  const n = tempWorld('lazy-mcp-cli-nested-');
  const log = path.join(n.root, 'spawns.log');
  spawnLogs.push(log);
  writeJson(path.join(n.ws, '.mcp.json'), {
    mcpServers: {
      lazy: { command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio'] },
      memory: countedServer(log, 'server-memory', [], { MEMORY_FILE_PATH: path.join(n.root, 'memory.jsonl') }),
    },
  });
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', n.ws], env: n.env, stderr: 'pipe' });
  const client = new Client({ name: 'cli-nested-test', version: '1' });
  await client.connect(transport);
  const cliPid = transport.pid;
  cleanup.push(() => isAlive(cliPid) && process.kill(cliPid, 'SIGKILL'));
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'memory__read_graph'));
  assert.ok(!tools.some((t) => t.name.startsWith('lazy__')), tools.map((t) => t.name).join(', '));
  await client.close();
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
  await waitFor('no server left', () => spawnedPids(log).every((p) => !isAlive(p) && groupMembers(p).length === 0), 15_000);
});

test('--idle-timeout: an unused server is stopped, its tools stay listed, the next call starts it again', async () => {
  const i = tempWorld('lazy-mcp-cli-idle-');
  const log = path.join(i.root, 'spawns.log');
  spawnLogs.push(log);
  writeJson(path.join(i.ws, '.mcp.json'), { mcpServers: { everything: countedServer(log, 'server-everything', ['stdio']) } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--idle-timeout', '700', '--cwd', i.ws], env: i.env, stderr: 'pipe' });
  const client = new Client({ name: 'cli-idle-test', version: '1' });
  await client.connect(transport);
  const cliPid = transport.pid;
  cleanup.push(() => isAlive(cliPid) && process.kill(cliPid, 'SIGKILL'));
  assert.equal(spawnedPids(log).length, 1, 'catalogued once');
  await client.callTool({ name: 'everything__echo', arguments: { message: 'a' } });
  const connected = spawnedPids(log);
  assert.equal(connected.length, 2, 'the first call started the server');
  await waitFor('the idle server to be stopped', () => !isAlive(connected[1]), 15_000);
  assert.ok(isAlive(cliPid), 'lazy-mcp keeps serving');
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'everything__echo'));
  assert.equal(spawnedPids(log).length, 2, 'listing does not start it');
  const again = await client.callTool({ name: 'everything__echo', arguments: { message: 'b' } });
  assert.match(again.content[0].text, /b/);
  assert.equal(spawnedPids(log).length, 3);
  await client.close();
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
  await waitFor('no server left', () => spawnedPids(log).every((p) => !isAlive(p) && groupMembers(p).length === 0), 15_000);
});

test('exiting right after cataloguing still ends a server that ignores stdin EOF and SIGTERM', async () => {
  const s = tempWorld('lazy-mcp-cli-stubborn-');
  const log = path.join(s.root, 'spawns.log');
  spawnLogs.push(log);
  const stubborn = path.join(path.dirname(cliJs), '..', 'tests', 'fixtures', 'servers', 'stubborn.mjs');
  writeJson(path.join(s.ws, '.mcp.json'), { mcpServers: { stubborn: { command: process.execPath, args: [path.join(path.dirname(cliJs), '..', 'tests', 'fixtures', 'servers', 'counting-launcher.mjs'), log, process.execPath, stubborn] } } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', s.ws], env: s.env, stderr: 'pipe' });
  const client = new Client({ name: 'cli-stubborn-test', version: '1' });
  await client.connect(transport); // answered once catalogued: the close of the cataloguing process has just begun
  const cliPid = transport.pid;
  cleanup.push(() => isAlive(cliPid) && process.kill(cliPid, 'SIGKILL'));
  const [pid] = spawnedPids(log);
  assert.ok(pid !== undefined && groupMembers(pid).length > 0, 'the cataloguing process is still shutting down');
  await client.close();
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 20_000);
  // The CLI SIGKILLs the group as it exits; on a loaded machine the kernel may take a moment to
  // run the killed processes' exit, so allow that moment (bounded), not a surviving server.
  await waitFor('nothing of the stubborn server to survive the CLI', () => groupMembers(pid).length === 0, 5_000);
});

test("a SIGTERM while the CLI is still stopping a server that ignores EOF and SIGTERM ends it and the CLI at once (the client's SIGKILL would orphan it)", async () => {
  const s = tempWorld('lazy-mcp-cli-stubborn-term-');
  const log = path.join(s.root, 'spawns.log');
  spawnLogs.push(log);
  const fixtures = path.join(path.dirname(cliJs), '..', 'tests', 'fixtures', 'servers');
  writeJson(path.join(s.ws, '.mcp.json'), {
    mcpServers: { stubborn: { command: process.execPath, args: [path.join(fixtures, 'counting-launcher.mjs'), log, process.execPath, path.join(fixtures, 'stubborn.mjs')] } },
  });
  // --isolated: this CLI's own stop sequence (a shared server is stopped by the owner).
  const serve = startCli(['serve', '--trust-project', '--stdio', '--isolated', '--cwd', s.ws], { env: s.env, ready: /"id":1/ });
  cleanup.push(() => isAlive(serve.child.pid) && serve.child.kill('SIGKILL'));
  serve.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
  await serve.started; // answered once catalogued: the cataloguing process's close (EOF, 2 s, SIGTERM, 2 s, SIGKILL) has begun
  const [pid] = spawnedPids(log);
  serve.child.stdin.end(); // what an SDK client's close() does first; the CLI starts stopping
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(isAlive(serve.child.pid) && groupMembers(pid).length > 0, 'still stopping the stubborn server');
  const t0 = Date.now();
  serve.child.kill('SIGTERM'); // the client's next step; its SIGKILL would come 2 s later
  const exit = await serve.exited;
  const exitedAfterMs = Date.now() - t0;
  assert.equal(exit.code, 0);
  assert.ok(exitedAfterMs < 1500, `the CLI exits at once, not after the stubborn server's graceful stop (${exitedAfterMs} ms)`);
  await waitFor('nothing of the stubborn server to survive the CLI', () => groupMembers(pid).length === 0, 2_000);
  assert.match(serve.out.stderr, /asked again to stop/);
});

test('serve --stdio --verbose: stdout carries only JSON-RPC messages (logs go to stderr); SIGINT ends everything', async () => {
  const v = tempWorld('lazy-mcp-cli-stdout-');
  const log = path.join(v.root, 'spawns.log');
  spawnLogs.push(log);
  writeJson(path.join(v.ws, '.mcp.json'), { mcpServers: { everything: countedServer(log, 'server-everything', ['stdio']) } });
  // --isolated: "ends everything" at once is this CLI's own servers (a shared one stays for the handover grace).
  const serve = startCli(['serve', '--trust-project', '--stdio', '--verbose', '--isolated', '--cwd', v.ws], { env: v.env, ready: /"id":2/ });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const send = (m) => serve.child.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'raw' } } });
  await serve.started;
  serve.child.kill('SIGINT');
  const { code } = await serve.exited;
  assert.equal(code, 0);
  const lines = serve.out.stdout.split('\n').filter(Boolean);
  assert.ok(lines.length >= 2);
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', `not a protocol message on stdout: ${line}`);
  assert.match(serve.out.stderr, /lazy-mcp info/, 'the --verbose logs are on stderr');
  assert.match(lines.find((l) => l.includes('"id":2')), /raw/);
  for (const pid of spawnedPids(log)) assert.deepEqual(groupMembers(pid), [], `group ${pid} ended`);
});
