// `subscriptions/listen` (MCP 2026-07-28) through the real `lazy-mcp serve`: over HTTP the
// listen's POST stays open as an SSE stream that first carries the acknowledgement, then a
// `notifications/tools/list_changed` tagged with the listen's id when a config edit changes the
// tools; over stdio the same lines arrive on the one channel. Closing the stream ends the listen.
// The tool lists are re-read to see the change. (The SDK v2 client 2.4.0 does not open listens
// itself, so the client here is a plain HTTP/line client.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cliJs, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';

const MODERN = '2026-07-28';
const w = tempWorld('lazy-mcp-cli-listen-');
const tiny = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
const config = path.join(w.ws, '.mcp.json');
const servers = (...names) => Object.fromEntries(names.map((n) => [n, { command: process.execPath, args: [tiny, n] }]));
writeJson(config, { mcpServers: servers('one') });

const cleanup = [];
after(() => {
  for (const c of cleanup) c();
});

const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'listen-test', version: '1' } };
const request = (id, method, params = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
const listen = (id) => request(id, 'subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: false } });
const modernHeaders = (method) => ({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method });
const subscriptionId = (m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'];

/** Reads an SSE response body message by message. */
function sseMessages(res) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue = [];
  return {
    async next(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no SSE message in time');
        // unref: a pending timer must not keep the test file alive after its tests ended.
        const chunk = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r({ timeout: true }), left).unref())]);
        if (chunk.timeout) continue;
        if (chunk.done) throw new Error('the stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          if (data) queue.push(JSON.parse(data));
        }
      }
      return queue.shift();
    },
    cancel: () => reader.cancel(),
  };
}

test('serve --http: a listen gets the acknowledgement, then the tool list change of a config edit on its own stream', async () => {
  writeJson(config, { mcpServers: servers('one') });
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  cleanup.push(() => serve.child.kill('SIGKILL'));
  const [, url, , token] = await serve.started;
  const post = (body, method) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`, ...modernHeaders(method) },
      body: JSON.stringify(body),
    });
  const names = async () => {
    const res = await post(request(2, 'tools/list'), 'tools/list');
    return (await res.json()).result.tools.map((t) => t.name).sort();
  };
  assert.deepEqual(await names(), ['one__add', 'one__echo', 'one__now']);

  const res = await post(listen('L1'), 'subscriptions/listen');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const stream = sseMessages(res);
  const ack = await stream.next();
  assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params.notifications, { toolsListChanged: true });
  assert.equal(subscriptionId(ack), 'L1');

  writeJson(config, { mcpServers: servers('one', 'two') });
  // As a client does: re-list on each change (the new server is announced when it is added,
  // and again once it is catalogued).
  for (;;) {
    const change = await stream.next(60_000);
    assert.equal(change.method, 'notifications/tools/list_changed');
    assert.equal(subscriptionId(change), 'L1');
    assert.ok(!('id' in change), 'a notification, not an answer');
    if ((await names()).includes('two__echo')) break;
  }

  await stream.cancel();
  serve.child.kill('SIGTERM');
  assert.equal((await serve.exited).code, 0, serve.out.stderr);
});

test('serve --stdio: the listen and its tagged change arrive on the one channel; a legacy-era listen is refused', async () => {
  writeJson(config, { mcpServers: servers('one') });
  const child = spawn(process.execPath, [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws], { env: w.env, stdio: ['pipe', 'pipe', 'pipe'] });
  cleanup.push(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout });
  const seen = [];
  const waiters = [];
  lines.on('line', (line) => {
    seen.push(JSON.parse(line));
    for (const w of waiters.splice(0)) w();
  });
  const until = async (what, predicate, ms = 60_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = seen.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(seen)}`);
      await new Promise((r) => {
        waiters.push(r);
        setTimeout(r, 250);
      });
    }
  };
  const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 'old', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } });
  assert.equal((await until('the legacy refusal', (m) => m.id === 'old')).error.code, -32601);
  send(listen(7));
  const ack = await until('the acknowledgement', (m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.equal(subscriptionId(ack), 7);
  writeJson(config, { mcpServers: servers('one', 'three') });
  const change = await until('the tagged change', (m) => m.method === 'notifications/tools/list_changed');
  assert.equal(subscriptionId(change), 7);
  // Re-listed on each change until the new server's tools are there (catalogued).
  let id = 100;
  for (;;) {
    const asked = id++;
    send(request(asked, 'tools/list'));
    const list = await until('the list', (m) => m.id === asked);
    if (list.result.tools.some((t) => t.name === 'three__echo')) break;
    const changes = seen.filter((m) => m.method === 'notifications/tools/list_changed').length;
    await until('another change', () => seen.filter((m) => m.method === 'notifications/tools/list_changed').length > changes);
  }
  assert.ok(seen.filter((m) => m.method === 'notifications/tools/list_changed').every((m) => subscriptionId(m) === 7), 'every change tagged');
  // Cancelled: the listen ends without an answer, and the connection keeps working.
  send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, _meta: meta } });
  send(request(8, 'tools/list'));
  assert.ok((await until('the list', (m) => m.id === 8)).result.tools.length >= 6);
  assert.ok(!seen.some((m) => m.id === 7), 'no answer to a cancelled listen');
  // Nothing is left to answer (the core said the cancelled listen gets none): stdin EOF ends it at once.
  const exited = new Promise((r) => child.on('exit', r));
  child.stdin.end();
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 10_000).unref())]);
  assert.notEqual(code, 'timeout', 'still running 10 s after stdin EOF: it waits for an answer to the cancelled listen');
  assert.equal(code, 0);
});
