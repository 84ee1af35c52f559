// HTTP connections: Streamable HTTP and legacy HTTP+SSE against server-everything
// and the official SDK's server, plus HTTP faults from tiny in-process servers.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { drive, everythingBin, freePort, httpPolicy, loadConnections, startListeningServer, waitUntil, within } from './connections.helper.mjs';

const open = [];
function tracked(transport, opts) {
  const d = drive(transport, opts);
  open.push(d);
  return d;
}
after(async () => {
  await Promise.all(open.map((d) => d.conn.close()));
});

/** A plain node:http server on 127.0.0.1 for one test; `handler` may be async. */
async function listen(handler) {
  const server = http.createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

function readBody(req) {
  return new Promise((resolve) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
  });
}

const initializeResult = (id) => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'raw', version: '0' } },
});

describe('Streamable HTTP: real server-everything', { timeout: 30000 }, () => {
  let server;
  let port;
  before(async () => {
    port = await freePort();
    server = await startListeningServer([everythingBin, 'streamableHttp'], port);
  });
  after(async () => server?.stop());

  test('initialize, initialized, tools/list, call, close sends DELETE', async () => {
    const d = tracked({ type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} });
    await within(3000, d.opened, 'onOpened');
    const init = await d.handshake();
    assert.equal(init.protocolVersion, '2025-11-25');
    const list = await d.request('tools/list');
    assert.ok(list.result.tools.length >= 10);
    const echo = await d.request('tools/call', { name: 'echo', arguments: { message: 'over http' } });
    assert.match(JSON.stringify(echo.result.content), /over http/);
    await waitUntil(() => server.output.join('').includes('Establishing new SSE stream'), 3000, 'the GET stream is opened');
    // Server-initiated messages (not tied to a request) arrive on the GET stream.
    await d.request('tools/call', { name: 'toggle-simulated-logging', arguments: {} });
    const note = await d.next((m) => m.method === 'notifications/message', 8000, 'a log notification on the GET stream');
    assert.ok(note.params.level);
    await within(4000, d.conn.close(), 'close()');
    const info = await d.closed;
    assert.equal(info.byHost, true);
    await waitUntil(() => server.output.join('').includes('Received session termination request'), 3000, 'the DELETE reaches the server');
  });
});

describe('legacy HTTP+SSE: real server-everything in sse mode', { timeout: 30000 }, () => {
  let server;
  let port;
  before(async () => {
    port = await freePort();
    server = await startListeningServer([everythingBin, 'sse'], port);
  });
  after(async () => server?.stop());

  test("type 'sse': endpoint event, POSTs, replies on the stream", async () => {
    const d = tracked({ type: 'sse', url: `http://127.0.0.1:${port}/sse`, headers: { 'X-Api-Key': 'sse-secret-value' } });
    await within(5000, d.opened, 'onOpened after the endpoint event');
    const init = await d.handshake('2024-11-05');
    assert.equal(init.protocolVersion, '2024-11-05');
    const list = await d.request('tools/list');
    assert.ok(list.result.tools.length >= 10);
    await d.conn.close();
    assert.equal((await d.closed).byHost, true);
    assert.ok(!JSON.stringify(d.logs).includes('sse-secret-value'), 'header values never logged');
    assert.ok(d.logs.some((l) => l.msg.includes('X-Api-Key')), 'header keys are logged');
  });

  test("type 'http' falls back to legacy SSE when the first POST gets 404", async () => {
    const d = tracked({ type: 'http', url: `http://127.0.0.1:${port}/sse`, headers: {} });
    const init = await d.handshake('2024-11-05');
    assert.equal(init.serverInfo.name.length > 0, true);
    const list = await d.request('tools/list');
    assert.ok(list.result.tools.length >= 10);
    assert.ok(d.logs.some((l) => /falling back to the legacy HTTP\+SSE/.test(l.msg)));
    // Reported to the engine: the probing POST's 404 (it said `legacy`), then the legacy stream's `endpoint`.
    assert.equal(d.connectStarts.length, 2);
    assert.deepEqual(d.connectAnswers, [404, 200]);
    await d.conn.close();
  });
});

describe('Streamable HTTP: official SDK server with bearer auth', { timeout: 30000 }, () => {
  const token = `tok-${randomUUID()}`;
  let fixture;
  /** Every request the server saw: method, headers, JSON-RPC method. */
  const seen = [];
  const servers = [];
  const sessions = new Map();

  before(async () => {
    fixture = await listen(async (req, res) => {
      const entry = { method: req.method, headers: req.headers };
      seen.push(entry);
      if (req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { 'www-authenticate': 'Bearer realm="lazy-mcp-test"', 'content-type': 'application/json' });
        res.end('{"error":"invalid_token"}');
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let transport = sid !== undefined ? sessions.get(sid) : undefined;
      if (transport === undefined) {
        if (sid !== undefined) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
          return;
        }
        const jsonResponse = req.url.includes('json=1');
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: jsonResponse,
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        const mcp = new McpServer({ name: 'sdk-auth-fixture', version: '1.0.0' });
        mcp.registerTool('echo', { description: 'Echo text', inputSchema: { text: z.string() } }, async ({ text }) => ({
          content: [{ type: 'text', text: `echo: ${text}` }],
        }));
        servers.push(mcp);
        await mcp.connect(transport);
      }
      const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
      entry.rpc = body?.method;
      await transport.handleRequest(req, res, body);
    });
  });
  after(async () => {
    for (const s of servers) await s.close().catch(() => {});
    await fixture?.close();
  });

  for (const mode of ['sse', 'json']) {
    test(`session, protocol version header, GET stream, DELETE (${mode} replies)`, async () => {
      const url = `${fixture.url}?json=${mode === 'json' ? 1 : 0}`;
      const d = tracked({ type: 'http', url, headers: { Authorization: `Bearer ${token}` } });
      const before = seen.length;
      const init = await d.handshake('2025-06-18');
      assert.equal(init.protocolVersion, '2025-06-18');
      assert.equal(init.serverInfo.name, 'sdk-auth-fixture');
      const list = await d.request('tools/list');
      assert.deepEqual(list.result.tools.map((t) => t.name), ['echo']);
      const call = await d.request('tools/call', { name: 'echo', arguments: { text: 'hello' } });
      assert.equal(call.result.content[0].text, 'echo: hello');

      // Server→client push on the GET stream.
      await waitUntil(() => seen.slice(before).some((r) => r.method === 'GET'), 3000, 'the GET stream is opened');
      // The server may register the stream a moment after the request arrived: push until one gets through.
      const isListChanged = (m) => m.method === 'notifications/tools/list_changed';
      for (let i = 0; i < 50 && !d.messages.some(isListChanged); i++) {
        servers.at(-1).sendToolListChanged();
        await new Promise((r) => setTimeout(r, 100));
      }
      await d.next(isListChanged, 1000, 'list_changed on the GET stream');

      await d.conn.close();
      const mine = seen.slice(before);
      const initPost = mine.find((r) => r.rpc === 'initialize');
      assert.equal(initPost.headers['mcp-session-id'], undefined);
      assert.equal(initPost.headers['mcp-protocol-version'], undefined);
      assert.match(initPost.headers.accept, /application\/json/);
      assert.match(initPost.headers.accept, /text\/event-stream/);
      const later = mine.filter((r) => r !== initPost);
      assert.ok(later.length >= 4);
      for (const r of later) {
        assert.ok(r.headers['mcp-session-id'], `${r.method} ${r.rpc ?? ''} carries the session id`);
        assert.equal(r.headers['mcp-protocol-version'], '2025-06-18', `${r.method} ${r.rpc ?? ''} carries the protocol version`);
        assert.equal(r.headers.authorization, `Bearer ${token}`);
      }
      assert.ok(mine.some((r) => r.method === 'DELETE'), 'close() sends DELETE');
      assert.ok(!JSON.stringify(d.logs).includes(token), 'the token is never logged');
    });
  }

  test('a missing bearer token: onClosed with httpStatus 401', async () => {
    const d = tracked({ type: 'http', url: fixture.url, headers: {} });
    d.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } }).catch(() => {});
    const info = await within(5000, d.closed, 'onClosed');
    assert.equal(info.httpStatus, 401);
    assert.match(info.reason, /requires authentication \(HTTP 401\)/);
    assert.equal(info.stderrTail, '');
  });

  test('a session the server forgot: onClosed "session expired" with 404', async () => {
    const d = tracked({ type: 'http', url: fixture.url, headers: { Authorization: `Bearer ${token}` } });
    await d.handshake();
    sessions.clear();
    d.request('tools/list').catch(() => {});
    const info = await within(5000, d.closed, 'onClosed');
    assert.equal(info.reason, 'session expired');
    assert.equal(info.httpStatus, 404);
  });
});

describe('HTTP faults', { timeout: 30000 }, () => {
  test('nothing listening: onClosed names the URL and the error', async () => {
    const port = await freePort();
    const d = tracked({ type: 'http', url: `http://127.0.0.1:${port}/mcp?apiKey=hunter2`, headers: {} });
    await d.opened;
    d.request('initialize', {}).catch(() => {});
    const info = await within(5000, d.closed, 'onClosed');
    assert.equal(info.reason, `cannot connect to http://127.0.0.1:${port}/mcp?apiKey=••••: ECONNREFUSED`);
    assert.ok(!info.reason.includes('hunter2'));
  });

  // The deadline is the engine's (its timer table): "timed out connecting to URL after 15000 ms"
  // is asserted in crates/lazy-mcp-core/tests/engine_http_transport_mode.rs. The connection
  // reports the exchange it bounds, and keeps no timer of its own.
  test('a server that accepts but never answers: the first exchange is reported started, never answered', async () => {
    const srv = await listen(() => new Promise(() => {}));
    try {
      const d = tracked({ type: 'http', url: srv.url, headers: {} });
      d.request('initialize', {}).catch(() => {});
      await waitUntil(() => d.connectStarts.length === 1, 3000, 'the first exchange is reported started');
      await new Promise((r) => setTimeout(r, 400));
      assert.deepEqual(d.connectAnswers, []);
      assert.equal(d.closedCount, 0);
    } finally {
      await srv.close();
    }
  });

  test('SSE replies: multi-line data, ids, comments, CRLF; 500 and cut streams fail only their request', async () => {
    const srv = await listen(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const msg = JSON.parse(await readBody(req));
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'raw-session' });
        // A keep-alive comment, a notification split over two data lines, then the response, with CRLF.
        const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }, null, 1);
        const parts = [': keep-alive\r\n\r\n', 'id: 1\r\n', ...note.split('\n').map((l) => `data: ${l}\r\n`), '\r\n'];
        parts.push(`id: 2\r\nevent: message\r\ndata: ${JSON.stringify(initializeResult(msg.id))}\r\n\r\n`);
        for (const p of parts) {
          res.write(p);
          await new Promise((r) => setTimeout(r, 2));
        }
        res.end();
      } else if (msg.method === 'notifications/initialized') {
        res.writeHead(202).end();
      } else if (msg.method === 'boom') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('internal kaboom');
      } else if (msg.method === 'cut') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(': nothing for you\n\n');
      } else if (msg.method === 'batch') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/progress', params: {} }, { jsonrpc: '2.0', id: msg.id, result: { ok: 1 } }]));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }));
      }
    });
    try {
      const d = tracked({ type: 'http', url: srv.url, headers: {} });
      const init = await d.handshake('2025-06-18');
      assert.equal(init.serverInfo.name, 'raw');
      const note = d.messages.find((m) => m.method === 'notifications/message');
      assert.equal(note.params.data, 'x');
      assert.ok(d.messages.indexOf(note) < d.messages.findIndex((m) => m.id === 1), 'stream order kept');

      const boom = await d.request('boom');
      assert.equal(boom.error.code, loadConnections().TRANSPORT_ERROR_CODE);
      assert.equal(boom.error.data.httpStatus, 500);
      assert.match(boom.error.message, /HTTP 500.*internal kaboom/);

      const cut = await d.request('cut');
      assert.match(cut.error.message, /ended before the response/);

      const batch = await d.request('batch');
      assert.deepEqual(batch.result, { ok: 1 });
      assert.ok(d.messages.some((m) => m.method === 'notifications/progress'), 'batch items delivered one by one');

      const ok = await d.request('ping');
      assert.deepEqual(ok.result, {}, 'the connection survives request-level failures');
      assert.equal(d.closedCount, 0);
      await d.conn.close();
      assert.equal(d.closedCount, 1);
    } finally {
      await srv.close();
    }
  });

  test('messages sent before the first reply wait for it, then carry its session id', async () => {
    const posts = [];
    const srv = await listen(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const msg = JSON.parse(await readBody(req));
      posts.push({ method: msg.method, session: req.headers['mcp-session-id'], version: req.headers['mcp-protocol-version'] });
      if (msg.method === 'initialize') {
        await new Promise((r) => setTimeout(r, 150));
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S1' });
        res.end(JSON.stringify(initializeResult(msg.id)));
      } else if (msg.id === undefined) {
        res.writeHead(202).end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { method: msg.method } }));
      }
    });
    try {
      const d = tracked({ type: 'http', url: srv.url, headers: {} });
      const init = d.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } });
      d.notify('notifications/initialized');
      const ping = d.request('ping');
      await init;
      await ping;
      assert.deepEqual(posts[0], { method: 'initialize', session: undefined, version: undefined });
      assert.deepEqual(new Set(posts.slice(1).map((p) => p.session)), new Set(['S1']));
      assert.deepEqual(new Set(posts.slice(1).map((p) => p.version)), new Set(['2025-06-18']), 'queued messages wait for the initialize result');
      await d.conn.close();
    } finally {
      await srv.close();
    }
  });

  test('a server that dies mid-call: the call fails at once, the next send reports the close', async () => {
    const srv = await listen(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const msg = JSON.parse(await readBody(req));
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(initializeResult(msg.id)));
      } else if (msg.method === 'crash') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': working\n\n');
        setTimeout(() => res.socket.destroy(), 20);
      } else {
        res.writeHead(202).end();
      }
    });
    const d = tracked({ type: 'http', url: srv.url, headers: {} });
    await d.handshake();
    const crash = await within(3000, d.request('crash'), 'the failed call');
    assert.equal(crash.error.code, loadConnections().TRANSPORT_ERROR_CODE);
    assert.match(crash.error.message, /ended before the response|failed/);
    assert.equal(d.closedCount, 0);
    await srv.close();
    // (A request racing the server's own close of an idle keep-alive socket gets ECONNRESET: that
    // fails the request only. Give the client a moment to see the close, so the next is refused.)
    await new Promise((r) => setTimeout(r, 100));
    const ping = await d.request('ping').catch((e) => e);
    assert.match(ping.message, /connection closed \(cannot connect to http:\/\/127\.0\.0\.1:\d+\/mcp: ECONNREFUSED\)/);
    const info = await d.closed;
    assert.equal(info.httpStatus, undefined);
  });

  test("type 'sse' answered 401: onClosed with httpStatus 401", async () => {
    const srv = await listen((req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    try {
      const d = tracked({ type: 'sse', url: srv.url, headers: { Authorization: 'Bearer wrong' } });
      const info = await within(3000, d.closed, 'onClosed');
      assert.equal(info.httpStatus, 401);
      assert.equal(d.openedInfo, undefined);
    } finally {
      await srv.close();
    }
  });

  test('a legacy endpoint on another origin is refused (headers never leave the origin)', async () => {
    const srv = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: http://evil.example/steal\n\n');
    });
    try {
      const d = tracked({ type: 'sse', url: srv.url, headers: { Authorization: 'Bearer secret' } });
      const info = await within(3000, d.closed, 'onClosed');
      assert.match(info.reason, /another origin \(http:\/\/evil\.example\)/);
    } finally {
      await srv.close();
    }
  });

  test('an invalid URL fails asynchronously with a clear reason', async () => {
    const d = tracked({ type: 'http', url: 'ftp://example.invalid/x', headers: {} });
    const info = await within(1000, d.closed, 'onClosed');
    assert.match(info.reason, /not an http\(s\) URL/);
  });
});

describe('HTTP: the connection reads nothing it carries (the core says what it needs)', { timeout: 30000 }, () => {
  test('bodies reach the core as they came; each reply\'s end goes to the core; the GET stream opens on `openEventStream`', async () => {
    const gets = [];
    const srv = await listen(async (req, res) => {
      if (req.method === 'GET') {
        gets.push(Date.now());
        res.writeHead(405).end();
        return;
      }
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const msg = JSON.parse(await readBody(req));
      if (msg.id === undefined) return void res.writeHead(202).end();
      const answer = { jsonrpc: '2.0', id: msg.id, result: { method: msg.method } };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S1' });
      // `batch`: a notification and the answer in one JSON-RPC batch body.
      res.end(msg.method === 'batch' ? ` [${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'b' } })}, ${JSON.stringify(answer)}]\n` : JSON.stringify(answer));
    });
    const { openConnection } = loadConnections();
    const texts = [];
    let answerIds = new Set();
    const answered = new Set();
    let conn;
    const events = {
      onOpened() {},
      onMessage(text) {
        texts.push(text);
        // The requests this test's "core" read an answer to.
        for (const id of answerIds) if (text.includes(`"id":${id},"result"`)) answered.add(id);
      },
      onReplyEnded(id, reason, httpStatus) {
        // As the core does (upstream.rs): a request still unanswered fails with the transport's reason.
        if (answered.has(id)) return;
        events.onMessage(JSON.stringify({ jsonrpc: '2.0', id, error: { code: loadConnections().TRANSPORT_ERROR_CODE, message: reason, data: { transport: 'http', httpStatus } } }));
      },
      // The first POST's 200 settles Streamable HTTP, as the engine says (`httpTransport`).
      onConnectAnswered() {
        conn.setTransport('streamable');
      },
      onClosed() {},
    };
    conn = openConnection({ type: 'http', url: srv.url, headers: {} }, events, { http: httpPolicy() });
    open.push({ conn });
    const sent = (id, method) => conn.send(JSON.stringify({ jsonrpc: '2.0', id, method }), { requestId: id });
    const textAbout = (id) => waitUntil(() => texts.some((t) => t.includes(`"id":${id},`)), 3000, `a message about request ${id}`);
    try {
      answerIds = new Set([1, 3]);
      sent(1, 'initialize');
      await textAbout(1);

      // A batch body arrives whole, as one text: the core splits it, the host never parses it.
      sent(2, 'batch');
      await waitUntil(() => texts.some((t) => t.includes('"method":"batch"')), 3000, 'the batch body');
      const batch = texts.find((t) => t.includes('"method":"batch"'));
      assert.equal(batch.trim()[0], '[', 'the whole batch, unsplit');
      // The "core" read no answer to 2: when its reply ended, it failed it.
      await textAbout(2);
      const failure = JSON.parse(texts.find((t) => t.includes('"id":2,"error"')));
      assert.equal(failure.error.code, loadConnections().TRANSPORT_ERROR_CODE);
      // Said for 3: no transport error follows its answer.
      sent(3, 'ping');
      await textAbout(3);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(texts.filter((t) => t.includes('"id":3,')).length, 1);

      // The GET stream opens when the core says so, never on a message's name.
      conn.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(gets.length, 0, 'no GET stream for a message the core did not mark');
      conn.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/anything' }), { openEventStream: true });
      await waitUntil(() => gets.length === 1, 3000, 'the GET stream is opened');
    } finally {
      await conn.close();
      await srv.close();
    }
  });
});
