// `lazy-mcp serve` under hostile or unlucky input (issue 11): JSON nested at any
// depth, in a batch next to `initialize` or inside tools/call arguments, over
// HTTP and stdio, while an official-SDK control client keeps being served and
// the process stays up; ids recovered from unreadable requests; strict
// JSON-RPC envelopes; the bearer scheme in any case; idle and surplus sessions
// ended; oversized stdin lines answered; piped one-shot stdio; a server's stderr
// kept out of client errors.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from './helpers/bundle.mjs';
import { groupMembers, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { initialize, initialized, nested, post, rssOf, stdioServe } from './helpers/rawMcp.mjs';
import { isAlive, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'servers');
const w = tempWorld('lazy-mcp-hostile-');
const spawnLog = path.join(w.root, 'spawns.log');
const counted = (script, ...args) => ({
  command: process.execPath,
  args: [path.join(fixtures, 'counting-launcher.mjs'), spawnLog, process.execPath, path.join(fixtures, script), ...args],
});
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: { tiny: counted('tiny-server.mjs', 'tiny'), faulty: counted('faulty-tools.mjs', 'ok'), deep: counted('deep-reply.mjs') },
});

const depths = [100, 129, 1000, 5000, 100_000];
/** Envelope levels around the nesting of `callWith`: {params:{arguments:{message:…}}}. */
const tooDeep = (depth) => depth + 3 > 127;
const callWith = (id, depth) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"tiny__echo","arguments":{"message":${nested(depth)}}}}`;

const cleanup = [];
after(() => {
  for (const c of cleanup) c();
  killSpawnedGroups(spawnLog);
});

async function serveHttp(extra = []) {
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws, ...extra], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const [, url, token] = await serve.started;
  return { serve, url, token };
}

async function sdkClient(url, token, scheme = 'Bearer') {
  const client = new Client({ name: 'control', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `${scheme} ${token}` } } }));
  return client;
}

/** A control client calling a tool in a loop until stopped; counts its answered calls. */
function controlLoop(client) {
  const state = { served: 0, failure: undefined, running: true };
  state.done = (async () => {
    while (state.running) {
      try {
        const r = await client.callTool({ name: 'tiny__echo', arguments: { message: `control ${state.served}` } });
        assert.match(r.content[0].text, /Echo: control/);
        state.served += 1;
      } catch (err) {
        state.failure = err;
        return;
      }
    }
  })();
  return state;
}

async function stopControl(state, before) {
  await waitFor('the control client to be served again', () => state.failure !== undefined || state.served > before, 30_000);
  state.running = false;
  await state.done;
  assert.equal(state.failure, undefined, `the control client failed: ${state.failure}`);
}

test('HTTP: JSON nested at any depth, in a batch with initialize or in tools/call arguments, is answered with its id; the gateway serves on', async () => {
  const { serve, url, token } = await serveHttp();
  const control = await sdkClient(url, token);
  const loop = controlLoop(control);
  const init = await post(url, initialize(), { token });
  const session = init.headers.get('mcp-session-id');
  await post(url, initialized, { token, session });

  for (const depth of depths) {
    // Next to an initialize, without a session: both answered, each with its own id.
    const batch = await post(url, `[${initialize(`init-${depth}`)},${callWith(`batch-${depth}`, depth)}]`, { token });
    assert.equal(batch.status, 200, `depth ${depth}: ${batch.text.slice(0, 300)}`);
    const byId = new Map(batch.replies.map((r) => [r.id, r]));
    assert.ok(byId.get(`init-${depth}`)?.result, `depth ${depth}: initialize answered: ${batch.text.slice(0, 300)}`);
    const call = byId.get(`batch-${depth}`);
    assert.ok(call, `depth ${depth}: the deep call is answered with its id: ${batch.text.slice(0, 300)}`);
    if (tooDeep(depth)) assert.equal(call.error?.code, -32600, JSON.stringify(call));

    // Inside tools/call arguments, in a session.
    const single = await post(url, callWith(`call-${depth}`, depth), { token, session });
    assert.equal(single.status, 200);
    assert.equal(single.replies.length, 1, single.text.slice(0, 300));
    const [reply] = single.replies;
    assert.equal(reply.id, `call-${depth}`, 'answered with the request id, not null');
    if (tooDeep(depth)) {
      assert.equal(reply.error.code, -32600);
      assert.match(reply.error.message, /nests \d+ levels deep; Lazy MCP reads at most 127/);
    } else {
      assert.ok(reply.result, JSON.stringify(reply));
    }
    assert.equal(serve.child.exitCode, null, `alive after depth ${depth}`);
  }
  // Unreadable JSON at the top level: a parse error with the id when the top level shows one.
  const broken = await post(url, '{"jsonrpc":"2.0","id":"broken-1","method":"tools/list","params":{', { token, session });
  assert.deepEqual([broken.replies[0].id, broken.replies[0].error.code], ['broken-1', -32700]);

  await stopControl(loop, loop.served);
  assert.ok(loop.served > 0);
  await control.close();
  assert.equal(serve.child.exitCode, null, serve.out.stderr);
  assert.doesNotMatch(serve.out.stderr, /internal error|RangeError/i);
  serve.child.kill('SIGTERM');
  assert.equal((await serve.exited).code, 0);
});

test('HTTP: jsonrpc "1.0" and ids of type null/bool/object/array get -32600; a lower-case bearer scheme is accepted', async () => {
  const { serve, url, token } = await serveHttp();
  const lower = await sdkClient(url, token, 'bearer');
  assert.ok((await lower.listTools()).tools.length > 0);
  await lower.close();
  const init = await post(url, initialize(), { token, headers: { Authorization: `bEaReR ${token}` } });
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  const v1 = await post(url, '{"jsonrpc":"1.0","id":5,"method":"tools/list"}', { token, session });
  assert.deepEqual([v1.replies[0].id, v1.replies[0].error?.code], [5, -32600]);
  for (const id of ['null', 'true', '{"a":1}', '[1]']) {
    const r = await post(url, `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`, { token, session, timeoutMs: 10_000 });
    assert.equal(r.status, 200, `id ${id}: ${r.status} ${r.text}`);
    assert.deepEqual([r.replies[0]?.id, r.replies[0]?.error?.code], [null, -32600], `id ${id}: ${r.text}`);
  }
  serve.child.kill('SIGTERM');
  await serve.exited;
});

test('HTTP: idle sessions expire, the session count is capped (least recently used first), SDK clients that vanish are reclaimed', async () => {
  const { serve, url, token } = await serveHttp(['--session-idle-timeout', '400', '--verbose']);
  const sid = async () => (await post(url, initialize(), { token })).headers.get('mcp-session-id');
  const list = (session) => post(url, '{"jsonrpc":"2.0","id":9,"method":"tools/list"}', { token, session });
  const idle = await sid();
  assert.equal((await list(idle)).status, 200);
  // The SDK client's close() sends no DELETE: its session must go the same way.
  const sdk = await sdkClient(url, token);
  await sdk.listTools();
  await sdk.close();
  // Polling the session would keep it alive: wait for the gateway's own log line.
  const ended = () => [...serve.out.stderr.matchAll(/ended (\d+) idle session/g)].reduce((n, m) => n + Number(m[1]), 0);
  await waitFor('both sessions to expire', () => ended() >= 2, 20_000);
  assert.equal((await list(idle)).status, 404, 'an expired session is unknown (the client starts a new one)');
  serve.child.kill('SIGTERM');
  await serve.exited;

  const capped = await serveHttp(['--max-sessions', '3']);
  const sessions = [];
  for (let i = 0; i < 5; i++) sessions.push((await post(capped.url, initialize(), { token: capped.token })).headers.get('mcp-session-id'));
  const statuses = [];
  for (const s of sessions) statuses.push((await post(capped.url, '{"jsonrpc":"2.0","id":9,"method":"tools/list"}', { token: capped.token, session: s })).status);
  assert.deepEqual(statuses, [404, 404, 200, 200, 200]);
  capped.serve.child.kill('SIGTERM');
  await capped.serve.exited;
});

/** A session's GET stream, open until `close()` (the client stops listening). */
async function listen(url, token, session) {
  const stop = new AbortController();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': session, Accept: 'text/event-stream' }, signal: stop.signal });
  let open = true;
  // Reads until the gateway ends the stream (its session ended) or the client stops.
  const reading = (async () => {
    try {
      for await (const chunk of res.body) void chunk;
    } catch {
      // aborted by close()
    }
    open = false;
  })();
  return { status: res.status, isOpen: () => open, close: async () => (stop.abort(), await reading) };
}

test('HTTP: a session whose client listens (GET stream open) outlives the idle timeout; once it stops listening, the session ends a full idle timeout later', async () => {
  const idleMs = 2000;
  const { serve, url, token } = await serveHttp(['--session-idle-timeout', String(idleMs), '--verbose']);
  const ended = () => [...serve.out.stderr.matchAll(/ended (\d+) idle session/g)].reduce((n, m) => n + Number(m[1]), 0);
  const session = (await post(url, initialize(), { token })).headers.get('mcp-session-id');
  const stream = await listen(url, token, session);
  assert.equal(stream.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 2.5 * idleMs));
  assert.equal(ended(), 0, `no session ended while its client listened:\n${serve.out.stderr}`);
  assert.ok(stream.isOpen());
  await stream.close();
  const stoppedAt = Date.now();
  await waitFor('the session to end after its client stopped listening', () => ended() >= 1, 20_000);
  const after = Date.now() - stoppedAt;
  assert.ok(after >= idleMs, `ended ${after} ms after its client stopped listening, before the idle timeout of ${idleMs} ms`);
  assert.equal((await post(url, '{"jsonrpc":"2.0","id":9,"method":"tools/list"}', { token, session })).status, 404);
  serve.child.kill('SIGTERM');
  await serve.exited;
});

test('HTTP: beyond --max-sessions an unused session ends before one whose client listens, even if the listener came first', async () => {
  const { serve, url, token } = await serveHttp(['--max-sessions', '2']);
  const open = async () => (await post(url, initialize(), { token })).headers.get('mcp-session-id');
  const listening = await open();
  const stream = await listen(url, token, listening);
  const quiet = await open();
  await open();
  const list = async (session) => (await post(url, '{"jsonrpc":"2.0","id":9,"method":"tools/list"}', { token, session })).status;
  assert.deepEqual([await list(quiet), await list(listening)], [404, 200]);
  assert.ok(stream.isOpen(), 'the listening client keeps its stream');
  await stream.close();
  serve.child.kill('SIGTERM');
  await serve.exited;
});

test('stdio: JSON nested at any depth is answered with its id and the session goes on', async () => {
  const s = stdioServe(['--cwd', w.ws], w.env);
  cleanup.push(() => s.child.kill('SIGKILL'));
  await s.send(initialize(1));
  await s.reply(1);
  await s.send(initialized);
  for (const depth of depths) {
    await s.send(callWith(`d-${depth}`, depth));
    const reply = await s.reply(`d-${depth}`);
    if (tooDeep(depth)) assert.equal(reply.error.code, -32600, JSON.stringify(reply));
    else assert.ok(reply.result, JSON.stringify(reply));
    await s.send(`{"jsonrpc":"2.0","id":"after-${depth}","method":"tools/call","params":{"name":"tiny__echo","arguments":{"message":"still here"}}}`);
    assert.match((await s.reply(`after-${depth}`)).result.content[0].text, /still here/);
  }
  await s.send('{"jsonrpc":"1.0","id":"v1","method":"tools/list"}');
  assert.equal((await s.reply('v1')).error.code, -32600);
  await s.send('{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}');
  await waitFor('the bad-id answer', () => s.messages.some((m) => m.id === null && m.error?.code === -32600), 20_000);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0, s.stderr());
});

test('stdio: an oversized line is answered with its id and memory stays bounded; the session goes on', async () => {
  const s = stdioServe(['--cwd', w.ws], w.env);
  cleanup.push(() => s.child.kill('SIGKILL'));
  await s.send(initialize(1));
  await s.reply(1);
  const baseline = rssOf(s.child.pid);
  const size = 200 * 1024 * 1024;
  const head = '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"tiny__echo","arguments":{"message":"';
  const chunk = 'a'.repeat(1024 * 1024);
  const write = (text) => new Promise((resolve) => (s.child.stdin.write(text) ? resolve() : s.child.stdin.once('drain', resolve)));
  await write(head);
  let peak = 0;
  for (let sent = 0; sent < size; sent += chunk.length) {
    await write(chunk);
    if (sent % (16 * chunk.length) === 0) peak = Math.max(peak, rssOf(s.child.pid));
  }
  await write('"}}}\n');
  const reply = await s.reply('big');
  assert.equal(reply.error?.code, -32600, JSON.stringify(reply).slice(0, 300));
  assert.match(reply.error.message, /limit is 16777216 bytes/);
  peak = Math.max(peak, rssOf(s.child.pid));
  await s.send('{"jsonrpc":"2.0","id":"next","method":"tools/list"}');
  assert.ok((await s.reply('next')).result.tools.length > 0);
  const growth = peak - baseline;
  assert.ok(growth < 100 * 1024 * 1024, `RSS grew by ${Math.round(growth / 2 ** 20)} MB for a 200 MB line`);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0, s.stderr());
});

test('stdio: piped one-shot use answers every request read (blank lines skipped), then exits leaving no process', async () => {
  const s = stdioServe(['--cwd', w.ws], w.env);
  cleanup.push(() => s.child.kill('SIGKILL'));
  const before = spawnedPids(spawnLog).length;
  // Blank lines (ASCII or Unicode spaces, a lone BOM) are skipped, never answered; CRLF ends a line too.
  s.child.stdin.end(
    `${initialize(1)}\r\n\n   \t\n${initialized}\n\u00A0\u2003\n\uFEFF\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n` +
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tiny__echo","arguments":{"message":"piped"}}}\n`,
  );
  const { code } = await s.exited;
  assert.equal(code, 0, s.stderr());
  assert.deepEqual(s.messages.map((m) => m.id), [1, 2, 3], JSON.stringify(s.messages).slice(0, 500));
  assert.match(s.messages[2].result.content[0].text, /Echo: piped/);
  const started = spawnedPids(spawnLog).slice(before);
  await waitFor('no server process left', () => started.every((p) => !isAlive(p) && groupMembers(p).length === 0), 15_000);
});

test('a server reply nested at any depth ends its call (with an error beyond 127 levels) and the gateway serves on', async () => {
  const { serve, url, token } = await serveHttp();
  const client = await sdkClient(url, token);
  const loop = controlLoop(await sdkClient(url, token));
  for (const depth of [10, 1000, 100_000]) {
    const before = loop.served;
    // The SDK's own request timeout is far shorter than the engine's 120 s: an unanswered call fails here.
    const result = await client.callTool({ name: 'deep__deep', arguments: { depth } }, undefined, { timeout: 20_000 }).then(
      (r) => ({ ok: r }),
      (err) => ({ error: String(err.message) }),
    );
    if (depth + 3 > 127) assert.match(result.error ?? '', /sent a reply Lazy MCP cannot read/, JSON.stringify(result).slice(0, 300));
    else assert.ok(result.ok && !result.ok.isError, JSON.stringify(result).slice(0, 300));
    await waitFor('the control client to be served', () => loop.failure !== undefined || loop.served > before, 30_000);
    assert.equal(loop.failure, undefined, String(loop.failure));
    assert.equal(serve.child.exitCode, null);
  }
  await stopControl(loop, loop.served);
  await client.close();
  serve.child.kill('SIGTERM');
  assert.equal((await serve.exited).code, 0);
});

test("a crashing server's stderr stays out of the client's error (it is in the log)", async () => {
  const { serve, url, token } = await serveHttp();
  const client = await sdkClient(url, token);
  const result = await client.callTool({ name: 'faulty__crash', arguments: {} }).then(
    (r) => JSON.stringify(r),
    (err) => String(err.message),
  );
  assert.match(result, /faulty/);
  assert.doesNotMatch(result, /crashing mid-call on purpose/);
  await waitFor('the stderr tail in the log', () => /crashing mid-call on purpose/.test(serve.out.stderr), 15_000);
  await client.close();
  serve.child.kill('SIGTERM');
  await serve.exited;
});
