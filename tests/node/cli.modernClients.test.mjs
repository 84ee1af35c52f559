// Clients of both protocol eras against one `lazy-mcp serve`: the official SDK v2
// client (auto-negotiating, MCP 2026-07-28: `server/discover`, per-request `_meta`,
// no session) and the v1 SDK client (legacy `initialize`), on stdio and HTTP, at
// the same time, against real npm servers; the spec's errors for bad envelopes;
// the tool index's loaded tools kept apart per client.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliJs, groupMembers, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, isAlive, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const MODERN = '2026-07-28';
const w = tempWorld('lazy-mcp-cli-eras-');
const spawnLog = path.join(w.root, 'spawns.log');
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: {
    memory: countedServer(spawnLog, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }),
    everything: countedServer(spawnLog, 'server-everything', ['stdio']),
  },
});

const cleanup = [];
after(() => {
  for (const c of cleanup) c();
  killSpawnedGroups(spawnLog);
});

const modernClient = (name = 'modern-test') => new ModernClient({ name, version: '2' }, { versionNegotiation: { mode: 'auto' } });
const envelope = (extra = {}) => ({
  _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, ...extra },
});

/** The JSON-RPC answer of a POST, whether sent as JSON or on an SSE stream. */
async function answerOf(res) {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  const messages = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return messages.find((m) => 'result' in m || 'error' in m);
}

async function startHttp(extraArgs = []) {
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws, ...extraArgs], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const [, url, , token] = await serve.started;
  const post = (body, headers = {}, at = url) =>
    fetch(at, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const stop = async () => {
    serve.child.kill('SIGTERM');
    const exit = await serve.exited;
    assert.equal(exit.code, 0, serve.out.stderr);
  };
  return { serve, url, token, post, stop, requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}

test('serve --stdio: the SDK v2 client negotiates 2026-07-28, lists and calls real servers', async () => {
  const transport = new ModernStdio({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws], env: w.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = modernClient();
  await client.connect(transport);
  const cliPid = transport.pid;
  cleanup.push(() => isAlive(cliPid) && process.kill(cliPid, 'SIGKILL'));
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  assert.equal(client.getServerVersion()?.name, 'lazy-mcp');
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'memory__read_graph'));
  const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'modern over stdio' } });
  assert.match(echo.content[0].text, /modern over stdio/);
  const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!graph.isError, JSON.stringify(graph));
  await client.close();
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
  assert.doesNotMatch(stderr, /error/i, stderr);
});

test('serve --stdio: both eras on one connection, bad envelopes answered with the spec errors, the connection keeps working', async () => {
  const serve = startCli(['serve', '--trust-project', '--stdio', '--cwd', w.ws], { env: w.env, ready: /"id":9,/ });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const send = (m) => serve.child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: 'not an object' } });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } });
  send({ jsonrpc: '2.0', id: 4, method: 'server/discover', params: envelope() });
  send({ jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
  send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'modern' }, ...envelope() } });
  send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'legacy' } } });
  await waitFor('the answers to 7 and 8', () => serve.out.stdout.includes('"id":7,') && serve.out.stdout.includes('"id":8,'), 60_000);
  send({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: envelope() });
  await serve.started;
  serve.child.stdin.end();
  await serve.exited;
  const answers = new Map(serve.out.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  assert.equal(answers.get(1).error.code, -32022);
  assert.deepEqual(answers.get(1).error.data, { supported: [MODERN], requested: '2099-01-01' });
  assert.equal(answers.get(2).error.code, -32602);
  assert.equal(answers.get(3).error.code, -32602);
  assert.match(answers.get(3).error.message, /clientCapabilities/);
  assert.deepEqual(answers.get(4).result.supportedVersions, [MODERN]);
  assert.equal(answers.get(4).result.resultType, 'complete');
  assert.equal(answers.get(5).result.protocolVersion, '2025-06-18');
  assert.equal(answers.get(6).result.resultType, undefined, 'a legacy answer is not stamped');
  assert.equal(answers.get(7).result.resultType, 'complete');
  assert.match(answers.get(7).result.content[0].text, /modern/);
  assert.match(answers.get(8).result.content[0].text, /legacy/);
  assert.equal(answers.get(8).result.resultType, undefined);
  for (const id of [6, 9]) {
    assert.equal(answers.get(id).result.ttlMs, 0);
    assert.equal(answers.get(id).result.cacheScope, 'private');
  }
  assert.deepEqual(answers.get(9).result.tools, answers.get(6).result.tools);
});

test('serve --http: an SDK v2 client (2026-07-28) and a v1 client (legacy) use one process at the same time; errors do not disturb them', async () => {
  const http = await startHttp();
  const modern = modernClient();
  await modern.connect(new ModernHttp(new URL(http.url), { requestInit: http.requestInit }));
  const legacy = new LegacyClient({ name: 'legacy-test', version: '1' });
  await legacy.connect(new LegacyHttp(new URL(http.url), { requestInit: http.requestInit }));
  assert.equal(modern.getNegotiatedProtocolVersion(), MODERN);
  assert.equal(legacy.getServerVersion()?.name, 'lazy-mcp');

  const [modernEcho, legacyEcho, modernList, legacyList] = await Promise.all([
    modern.callTool({ name: 'everything__echo', arguments: { message: 'modern over http' } }),
    legacy.callTool({ name: 'everything__echo', arguments: { message: 'legacy over http' } }),
    modern.listTools(),
    legacy.listTools(),
  ]);
  assert.match(modernEcho.content[0].text, /modern over http/);
  assert.match(legacyEcho.content[0].text, /legacy over http/);
  assert.deepEqual(
    modernList.tools.map((t) => t.name),
    legacyList.tools.map((t) => t.name),
  );

  // Bad input, raw: each gets the spec's error; nothing else is disturbed.
  const unsupported = await http.post({ jsonrpc: '2.0', id: 'u', method: 'tools/list', params: envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) });
  assert.equal(unsupported.status, 400);
  const unsupportedBody = await unsupported.json();
  assert.equal(unsupportedBody.error.code, -32022);
  assert.deepEqual(unsupportedBody.error.data.supported, [MODERN]);
  assert.equal(unsupported.headers.get('mcp-session-id'), null, 'no session for the modern era');
  const malformedRes = await http.post({ jsonrpc: '2.0', id: 'm', method: 'tools/call', params: { name: 'everything__echo', _meta: [] } });
  assert.equal(malformedRes.status, 400);
  assert.equal((await malformedRes.json()).error.code, -32602);
  // Streamable HTTP of the modern era: headers must agree with the body; unknown and removed methods are 404.
  const mismatch = await http.post({ jsonrpc: '2.0', id: 'h', method: 'tools/list', params: envelope() }, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call' });
  assert.equal(mismatch.status, 400);
  assert.equal((await mismatch.json()).error.code, -32020);
  const noEnvelope = await http.post({ jsonrpc: '2.0', id: 'n', method: 'tools/list' }, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' });
  assert.equal(noEnvelope.status, 400);
  assert.equal((await noEnvelope.json()).error.code, -32602);
  const noName = await http.post({ jsonrpc: '2.0', id: 'nn', method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'x' }, ...envelope() } }, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call' });
  assert.equal(noName.status, 400, 'Mcp-Name is required when the body has a name');
  assert.equal((await noName.json()).error.code, -32020);
  for (const method of ['ping', 'no/such/method']) {
    const res = await http.post({ jsonrpc: '2.0', id: method, method, params: envelope() }, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method });
    assert.equal(res.status, 404, method);
    const answer = await res.json();
    assert.equal(answer.id, method);
    assert.equal(answer.error.code, -32601);
  }
  const unknownSession = await http.post({ jsonrpc: '2.0', id: 's', method: 'tools/list' }, { 'Mcp-Session-Id': 'no-such-session' });
  assert.equal(unknownSession.status, 404);
  assert.equal((await unknownSession.json()).error.code, -32001);
  const discover = await (await http.post({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: envelope() }, {}, `${http.url}/everything`)).json();
  assert.deepEqual(discover.result.supportedVersions, [MODERN]);
  assert.equal(discover.result._meta['io.modelcontextprotocol/serverInfo'].name, 'everything');

  // A per-server endpoint (the ones VS Code uses) serves the modern era too.
  const perServer = modernClient('modern-per-server');
  await perServer.connect(new ModernHttp(new URL(`${http.url}/memory`), { requestInit: http.requestInit }));
  assert.equal(perServer.getNegotiatedProtocolVersion(), MODERN);
  assert.ok((await perServer.listTools()).tools.some((t) => t.name === 'read_graph'));
  const graph = await perServer.callTool({ name: 'read_graph', arguments: {} });
  assert.ok(!graph.isError, JSON.stringify(graph));

  // A live per-server endpoint forwards a method it does not know to its server: the
  // server's method-not-found is 404 too (plain JSON, not a 200 stream).
  const forwarded = await http.post({ jsonrpc: '2.0', id: 'f', method: 'no/such/forwarded', params: envelope() }, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'no/such/forwarded' }, `${http.url}/everything`);
  assert.equal(forwarded.status, 404);
  assert.match(forwarded.headers.get('content-type') ?? '', /application\/json/);
  const forwardedAnswer = await forwarded.json();
  assert.equal(forwardedAnswer.error.code, -32601);
  assert.equal(forwardedAnswer.error.message, 'Method not found', 'answered by server-everything, not by Lazy MCP');
  // A tool that asks for sampling, from a client that did not declare it: -32021, 400.
  const sampling = await http.post(
    { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'x' }, ...envelope() } },
    { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'trigger-sampling-request' },
    `${http.url}/everything`,
  );
  assert.equal(sampling.status, 400);
  const samplingAnswer = await sampling.json();
  assert.equal(samplingAnswer.error.code, -32021, JSON.stringify(samplingAnswer));
  assert.deepEqual(samplingAnswer.error.data.requiredCapabilities, { sampling: {} });

  const again = await legacy.callTool({ name: 'everything__echo', arguments: { message: 'still legacy' } });
  assert.match(again.content[0].text, /still legacy/);
  const modernAgain = await modern.callTool({ name: 'everything__echo', arguments: { message: 'still modern' } });
  assert.match(modernAgain.content[0].text, /still modern/);
  await Promise.all([modern.close(), legacy.close(), perServer.close()]);
  await http.stop();
  await waitFor('every server process gone', () => spawnedPids(spawnLog).every((p) => !isAlive(p) && groupMembers(p).length === 0), 15_000);
});

test('serve --http: tools/list gives the same bytes each time (prompt caches stay warm)', async () => {
  const http = await startHttp();
  const bodies = [];
  for (let i = 0; i < 3; i++) {
    const res = await http.post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: envelope({ 'io.modelcontextprotocol/clientInfo': { name: 'bytes', version: '1' } }) });
    bodies.push(await res.text());
  }
  assert.ok(JSON.parse(bodies[0]).result.tools.length > 5);
  assert.equal(bodies[1], bodies[0]);
  assert.equal(bodies[2], bodies[0]);
  await http.stop();
});

test('serve --http --tool-exposure index: a modern client\'s loaded tools are its own; one without clientInfo loads nothing', async () => {
  const http = await startHttp(['--tool-exposure', 'index']);
  const call = async (clientInfo, name, args) => {
    const meta = clientInfo ? { 'io.modelcontextprotocol/clientInfo': clientInfo } : {};
    const res = await http.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...envelope(meta) } });
    return (await answerOf(res)).result;
  };
  const list = async (clientInfo) => {
    const meta = clientInfo ? { 'io.modelcontextprotocol/clientInfo': clientInfo } : {};
    const res = await http.post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: envelope(meta) });
    return (await res.json()).result.tools.map((t) => t.name);
  };
  const alice = { name: 'alice', version: '1' };
  const bob = { name: 'bob', version: '1' };
  assert.ok(!(await list(alice)).includes('everything__echo'), 'index mode: not listed before loading');
  const loaded = await call(alice, 'load_tools', { names: ['everything/echo'] });
  assert.equal(loaded.isError, false, JSON.stringify(loaded));
  assert.ok((await list(alice)).includes('everything__echo'), 'alice sees what she loaded, on her next request');
  assert.ok(!(await list(bob)).includes('everything__echo'), 'bob does not');
  assert.ok(!(await list(undefined)).includes('everything__echo'), 'nor does a client without clientInfo');
  assert.ok(!(await list({ name: 'alice', version: '2' })).includes('everything__echo'), 'nor another version of alice');

  const legacy = new LegacyClient({ name: 'alice', version: '1' });
  await legacy.connect(new LegacyHttp(new URL(http.url), { requestInit: http.requestInit }));
  assert.ok(!(await legacy.listTools()).tools.some((t) => t.name === 'everything__echo'), 'nor a legacy client of the same name');
  await legacy.close();

  const anonymous = await call(undefined, 'load_tools', { names: ['everything/echo'] });
  assert.equal(anonymous.isError, true);
  assert.match(anonymous.content[0].text, /no clientInfo/);
  const viaCallTool = await call(undefined, 'call_tool', { name: 'everything/echo', arguments: { message: 'anonymous' } });
  assert.match(viaCallTool.content[0].text, /anonymous/);
  await http.stop();
});
