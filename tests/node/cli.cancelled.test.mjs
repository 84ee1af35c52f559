// A request the client cancels (`notifications/cancelled`) gets no answer (MCP), and the real
// `lazy-mcp serve` stops waiting for one because the core says so (stdio: `clientSettled`; HTTP:
// the body's routing names what a cancellation cancels): over stdio the
// process exits promptly at stdin EOF instead of waiting 150 s for an answer that never comes;
// over HTTP the cancelled call's POST ends its SSE stream without an answer. The slow call is
// server-everything's `trigger-long-running-operation` (100 s), cancelled once its first
// progress notification arrived, so the call is known to be running upstream.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { initialize, initialized, stdioServe } from './helpers/rawMcp.mjs';
import { countedServer } from './helpers/realServers.mjs';

const w = tempWorld('lazy-mcp-cli-cancelled-');
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: { everything: countedServer(path.join(w.root, 'spawns.log'), 'server-everything', ['stdio']) },
});
const cleanup = [];
after(() => {
  for (const c of cleanup) c();
});

const slowCall = (id, token) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'everything__trigger-long-running-operation', arguments: { duration: 100, steps: 100 }, _meta: { progressToken: token } },
  });
const cancel = (id) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the user gave up' } });
/** Resolves with `value`, or with 'timeout' after `ms`. */
const within = (promise, ms) => Promise.race([promise, new Promise((r) => setTimeout(() => r('timeout'), ms).unref())]);

test('serve --stdio: stdin EOF right after a cancelled call exits within seconds, with no answer to it', { timeout: 120_000 }, async () => {
  const serve = stdioServe(['--cwd', w.ws], w.env);
  cleanup.push(() => serve.child.kill('SIGKILL'));
  await serve.send(initialize(1));
  await serve.reply(1);
  await serve.send(initialized);
  await serve.send(slowCall(2, 'slow'));
  const progressed = () => serve.messages.some((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'slow');
  for (const deadline = Date.now() + 60_000; !progressed(); ) {
    if (Date.now() > deadline) throw new Error(`the call never progressed: ${serve.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await serve.send(cancel(2));
  const eof = Date.now();
  serve.child.stdin.end();
  const exit = await within(serve.exited, 10_000);
  assert.notEqual(exit, 'timeout', `still running 10 s after stdin EOF: it waits for the cancelled call's answer\n${serve.stderr()}`);
  assert.equal(exit.code, 0, serve.stderr());
  assert.ok(!serve.messages.some((m) => m.id === 2), 'a cancelled request is not answered');
  assert.doesNotMatch(serve.stderr(), /stopped waiting for the last answers/);
  console.log(`exited ${Date.now() - eof} ms after stdin EOF`);
});

test('serve --http: the POST of a cancelled call ends its stream without an answer', { timeout: 120_000 }, async () => {
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const [, url, token] = await serve.started;
  const post = (body, session) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${token}`,
        ...(session ? { 'Mcp-Session-Id': session } : {}),
      },
      body,
    });
  const init = await post(initialize(1));
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'a legacy session');
  await init.text();
  assert.equal((await post(initialized, session)).status, 202);

  const call = await post(slowCall(2, 'slow'), session);
  assert.match(call.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = call.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const events = () => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  while (!events().some((m) => m.method === 'notifications/progress')) {
    const chunk = await within(reader.read(), 60_000);
    assert.notEqual(chunk, 'timeout', 'no progress from the running call');
    assert.ok(!chunk.done, 'the stream ended before the call progressed');
    text += decoder.decode(chunk.value, { stream: true });
  }
  assert.equal((await post(cancel(2), session)).status, 202);
  // The rest of the stream: it must end, soon, with no answer to the cancelled call.
  for (;;) {
    const chunk = await within(reader.read(), 10_000);
    assert.notEqual(chunk, 'timeout', 'the stream of the cancelled call is still open 10 s after the cancellation');
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  assert.ok(!events().some((m) => m.id === 2), `no answer to a cancelled request: ${text}`);

  // The session serves on.
  const list = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), session);
  assert.ok((await list.json()).result.tools.some((t) => t.name === 'everything__echo'));
  serve.child.kill('SIGTERM');
  assert.equal((await serve.exited).code, 0, serve.out.stderr);
});
