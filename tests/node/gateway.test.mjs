// The loopback gateway against the official MCP SDK client as the independent peer.
// The handler here stands in for the core's driver: it answers like a tiny server,
// and routes each message as the engine's effects do (`reply` id, `notifyClient` token).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

const { HttpGateway } = await loadHostModule('host/gateway/httpGateway');
// The real core reads bodies (as in LazyHost); the handler below stands in for the engine.
const { clientBodyBytes, hostLimits } = createRequire(import.meta.url)(builtCoreModule);
/** The session policy the core gives every gateway (host_limits.rs), as LazyHost passes it. */
const limits = JSON.parse(hostLimits()).gateway;

/**
 * The gateway's `takeBody` from a stand-in's `readBody` (the routing) and
 * `onClientMessage` (one message: a batch member's text, else the body), called
 * when the gateway delivers, as the core's one crossing does (`clientPost`).
 */
function takingBodies({ readBody, onClientMessage, ...rest }) {
  return {
    ...rest,
    takeBody(session, _inSession, bytes, headers) {
      const body = readBody(bytes, headers);
      return { body, deliver: () => body.messages.forEach((m) => onClientMessage(session, m.text ?? bytes)) };
    },
  };
}

const token = 'test-secret-token';
const logs = [];
const closedSessions = [];
let gateway;
const pendingRoots = new Map();

const handler = {
  hasEndpoint: (endpoint) => endpoint === '' || endpoint === 'memory',
  readBody: (body, headers) => JSON.parse(clientBodyBytes(body, JSON.stringify(headers ?? {}))),
  onSessionClosed: (s) => closedSessions.push(s.id),
  onClientMessage(session, raw) {
    const msg = JSON.parse(raw);
    const reply = (result) => gateway.deliver(session.id, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }), { reply: true, id: msg.id });
    if (msg.method === 'initialize') {
      return reply({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: session.endpoint || 'aggregate', version: '1' } });
    }
    if (msg.method === 'tools/list') {
      return reply({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }, { name: 'ask_roots', inputSchema: { type: 'object' } }] });
    }
    if (msg.method === 'tools/call' && msg.params.name === 'echo') {
      const token = msg.params._meta?.progressToken;
      setTimeout(() => {
        if (token !== undefined) {
          const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } };
          gateway.deliver(session.id, JSON.stringify(progress), { reply: false, progressToken: token });
        }
        setTimeout(() => reply({ content: [{ type: 'text', text: `echo:${msg.params.arguments.text}` }] }), 10);
      }, 10);
      return;
    }
    if (msg.method === 'tools/call' && msg.params.name === 'later') {
      setTimeout(() => reply({ content: [{ type: 'text', text: 'later' }] }), msg.params.arguments.ms);
      return;
    }
    if (msg.method === 'tools/call' && msg.params.name === 'never') return; // answered by nothing
    // A cancelled request is answered by nothing (the engine answers no cancelled request;
    // the gateway stops waiting for it from the body's routing, `cancels`).
    if (msg.method === 'notifications/cancelled') return;
    if (msg.method === 'tools/call' && msg.params.name === 'explode') {
      throw new RangeError('a bug in the handler');
    }
    if (msg.method === 'tools/call' && msg.params.name === 'ask_roots') {
      // A server→client request in the middle of a call.
      pendingRoots.set('roots-1', (roots) => reply({ content: [{ type: 'text', text: roots.map((r) => r.uri).join(',') }] }));
      gateway.deliver(session.id, JSON.stringify({ jsonrpc: '2.0', id: 'roots-1', method: 'roots/list' }), { reply: false });
      return;
    }
    if (msg.id === 'roots-1' && msg.result) {
      pendingRoots.get('roots-1')(msg.result.roots);
    }
  },
};

gateway = new HttpGateway(takingBodies(handler), { token, limits, log: (level, message) => logs.push({ level, message }) });
const port = await gateway.start();
after(() => gateway.stop());

function connectClient(endpoint, headers = { Authorization: `Bearer ${token}` }) {
  const client = new Client({ name: 'gateway-test', version: '1' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/a' }] }));
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url(endpoint)), { requestInit: { headers } });
  return { client, transport };
}

function rawRequest({ method = 'POST', path = '/mcp', headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}

const initBody = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

test('the SDK client initializes, lists and calls through a per-server endpoint', async () => {
  const { client, transport } = connectClient('memory');
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, 'memory');
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['echo', 'ask_roots']);
  const progress = [];
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, { onprogress: (p) => progress.push(p) });
  assert.equal(result.content[0].text, 'echo:hi');
  assert.deepEqual(progress.map((p) => p.progress), [1], 'progress reached the caller on its own stream');
  await transport.terminateSession();
  await client.close();
});

test('a server→client request during a call reaches the client and its answer comes back', async () => {
  const { client, transport } = connectClient('');
  await client.connect(transport);
  const result = await client.callTool({ name: 'ask_roots', arguments: {} });
  assert.equal(result.content[0].text, 'file:///work/a');
  await client.close();
});

test('list answers are plain JSON when the handler answers at once', async () => {
  const res = await rawRequest({ path: '/mcp/memory', headers: { authorization: `Bearer ${token}` }, body: initBody });
  assert.equal(res.status, 200);
  assert.match(res.headers['content-type'], /application\/json/);
  assert.ok(res.headers['mcp-session-id'], 'initialize assigns a session id');
  assert.equal(JSON.parse(res.body).result.serverInfo.name, 'memory');
});

test('requests without the secret get 401 and are logged without the token', async () => {
  const missing = await rawRequest({ body: initBody });
  assert.equal(missing.status, 401);
  const wrong = await rawRequest({ headers: { authorization: 'Bearer nope' }, body: initBody });
  assert.equal(wrong.status, 401);
  assert.ok(logs.some((l) => /401/.test(l.message)));
  assert.ok(logs.every((l) => !l.message.includes(token)), 'the secret never reaches the log');
});

test('the bearer secret must match exactly: its length, every character, the scheme (any case), the first of repeated headers', async () => {
  const status = async (authorization) => (await rawRequest({ headers: { authorization }, body: initBody })).status;
  const last = token.at(-1);
  const other = last === 'a' ? 'b' : 'a';
  assert.equal(await status(`Bearer ${token.slice(0, -1)}${other}`), 401, 'same length, last character differs');
  assert.equal(await status(`Bearer ${other}${token.slice(1)}`), 401, 'same length, first character differs');
  assert.equal(await status(`Bearer ${token.slice(0, -1)}`), 401, 'a prefix of the secret');
  assert.equal(await status(`Bearer ${token}${last}`), 401, 'the secret and more');
  assert.equal(await status(`Basic ${token}`), 401, 'another scheme');
  assert.equal(await status(`Bearer${token}`), 401, 'no space after the scheme');
  assert.equal(await status(token), 401, 'no scheme');
  assert.equal(await status('Bearer '), 401, 'nothing after the scheme');
  assert.equal(await status(`bEaReR   ${token}`), 200, 'the scheme in any case, several spaces');
  // Node keeps the first of repeated Authorization headers.
  assert.equal((await rawRequest({ headers: { authorization: [`Bearer ${token}`, 'Bearer nope'] }, body: initBody })).status, 200);
  assert.equal((await rawRequest({ headers: { authorization: ['Bearer nope', `Bearer ${token}`] }, body: initBody })).status, 401);
});

test('a foreign Host or Origin gets 403 (DNS rebinding)', async () => {
  const auth = { authorization: `Bearer ${token}` };
  assert.equal((await rawRequest({ headers: { ...auth, host: `evil.example:${port}` }, body: initBody })).status, 403);
  assert.equal((await rawRequest({ headers: { ...auth, origin: 'http://evil.example' }, body: initBody })).status, 403);
  assert.equal((await rawRequest({ headers: { ...auth, origin: `http://localhost:${port}` }, body: initBody })).status, 200);
});

test('unknown endpoints 404; unknown sessions 404; requests before initialize 400', async () => {
  const auth = { authorization: `Bearer ${token}` };
  assert.equal((await rawRequest({ path: '/mcp/nope', headers: auth, body: initBody })).status, 404);
  const listBody = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  assert.equal((await rawRequest({ headers: { ...auth, 'mcp-session-id': 'not-a-session' }, body: listBody })).status, 404);
  assert.equal((await rawRequest({ headers: auth, body: listBody })).status, 400);
});

test('DELETE ends the session and tells the handler', async () => {
  const auth = { authorization: `Bearer ${token}` };
  const init = await rawRequest({ headers: auth, body: initBody });
  const sid = init.headers['mcp-session-id'];
  const del = await rawRequest({ method: 'DELETE', headers: { ...auth, 'mcp-session-id': sid } });
  assert.equal(del.status, 200);
  assert.ok(closedSessions.includes(sid));
  const after = await rawRequest({ headers: { ...auth, 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
  assert.equal(after.status, 404);
});

test('binds loopback only: a non-loopback address of this machine is refused', async (t) => {
  assert.match(gateway.url(), /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const external = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
  if (!external) return t.skip('this machine has no non-loopback IPv4 address to try');
  const err = await new Promise((resolve) => {
    const req = http.request({ host: external.address, port, method: 'POST', path: '/mcp', timeout: 2000 }, () => resolve(null));
    req.on('error', resolve);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
  assert.ok(err, `connecting via ${external.address} must fail`);
});

test('an exception while serving one request answers it with -32603; the gateway serves on', { timeout: 30_000 }, async () => {
  const auth = { authorization: `Bearer ${token}` };
  const init = await rawRequest({ headers: auth, body: initBody });
  const sid = init.headers['mcp-session-id'];
  const boom = await rawRequest({
    headers: { ...auth, 'mcp-session-id': sid },
    body: { jsonrpc: '2.0', id: 'boom', method: 'tools/call', params: { name: 'explode', arguments: {} } },
  });
  assert.equal(boom.status, 500);
  assert.deepEqual([JSON.parse(boom.body).id, JSON.parse(boom.body).error.code], ['boom', -32603]);
  assert.ok(logs.some((l) => l.level === 'error' && /a bug in the handler/.test(l.message)));
  const next = await rawRequest({ headers: { ...auth, 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } });
  assert.equal(next.status, 200);
  assert.equal(JSON.parse(next.body).result.tools.length, 2);
});

test('the gateway opens a session and picks a status exactly as the core says, never by a method name', { timeout: 30_000 }, async () => {
  // A gateway of its own whose "core" says which body opens a session (`opensSession`)
  // and gives an answer its status (`httpStatus`), whatever the messages are called.
  let opens;
  const own = new HttpGateway(
    takingBodies({
      hasEndpoint: () => true,
      readBody: (body, headers) => ({ ...JSON.parse(clientBodyBytes(body, JSON.stringify(headers ?? {}))), opensSession: opens }),
      onSessionClosed: () => {},
      onClientMessage(session, raw) {
        const msg = JSON.parse(raw);
        const httpStatus = msg.method === 'refused/here' ? 404 : undefined;
        own.deliver(session.id, JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no' } }), { reply: true, id: msg.id, httpStatus });
      },
    }),
    { token, limits, log: () => {} },
  );
  const ownPort = await own.start();
  const post = (body, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: ownPort, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, session: res.headers['mcp-session-id'] }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  try {
    opens = false;
    assert.equal((await post(initBody)).status, 400, 'an initialize the core says opens nothing');
    opens = true;
    const opened = await post({ jsonrpc: '2.0', id: 7, method: 'anything' });
    assert.ok(opened.session, 'a body the core says opens a session');
    const withSession = { 'mcp-session-id': opened.session };
    assert.equal((await post({ jsonrpc: '2.0', id: 8, method: 'refused/here' }, withSession)).status, 404, "the engine's httpStatus");
    assert.equal((await post({ jsonrpc: '2.0', id: 9, method: 'other' }, withSession)).status, 200);
  } finally {
    await own.stop();
  }
});

/** One POST on a raw socket: the bytes of the answer as they arrived (one entry per read), and when. */
function rawChunks(body, headers) {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const t0 = performance.now();
    socket.on('data', (d) => {
      chunks.push({ ms: performance.now() - t0, text: d.toString('utf8') });
      // The end of a chunked body: the answer is complete.
      if (chunks.map((c) => c.text).join('').endsWith('0\r\n\r\n')) {
        socket.destroy();
        resolve(chunks);
      }
    });
    socket.on('error', reject);
    const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(text), ...headers });
    socket.write(`POST /mcp/memory HTTP/1.1\r\n${head.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${text}`);
  });
}

test('an answer that comes within a second leaves in one write: headers, event and end of body together', async () => {
  const auth = { authorization: `Bearer ${token}` };
  const sid = (await rawRequest({ path: '/mcp/memory', headers: auth, body: initBody })).headers['mcp-session-id'];
  const chunks = await rawChunks({ jsonrpc: '2.0', id: 'fast', method: 'tools/call', params: { name: 'later', arguments: { ms: 30 } } }, { ...auth, 'mcp-session-id': sid });
  // Each write wakes the client (and costs a syscall): the stream used to send its
  // headers at once, then the event, then the end of the body.
  assert.equal(chunks.length, 1, `one read: ${JSON.stringify(chunks.map((c) => c.text))}`);
  assert.match(chunks[0].text, /^HTTP\/1\.1 200 OK\r\n[^]*content-type: text\/event-stream/i);
  assert.match(chunks[0].text, /event: message\ndata: \{"jsonrpc":"2\.0","id":"fast","result":\{"content":\[\{"type":"text","text":"later"\}\]\}\}\n\n/);
});

test('a call unanswered after a second gets its headers first, then the answer on the stream', { timeout: 20_000 }, async () => {
  const auth = { authorization: `Bearer ${token}` };
  const sid = (await rawRequest({ path: '/mcp/memory', headers: auth, body: initBody })).headers['mcp-session-id'];
  const chunks = await rawChunks({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'later', arguments: { ms: 2500 } } }, { ...auth, 'mcp-session-id': sid });
  const headersAt = chunks.find((c) => c.text.startsWith('HTTP/1.1 200'))?.ms;
  const answerAt = chunks.find((c) => c.text.includes('"id":"slow"'))?.ms;
  assert.ok(headersAt !== undefined && answerAt !== undefined, JSON.stringify(chunks));
  // A client with a timeout for the response headers keeps waiting for a long call.
  assert.ok(headersAt >= 900 && headersAt < 2000, `headers after ${headersAt.toFixed(0)} ms`);
  assert.ok(answerAt >= 2400, `answer after ${answerAt.toFixed(0)} ms`);
});

test('a request the client cancelled (the routing names it) ends its POST once nothing else is due on it', { timeout: 20_000 }, async () => {
  const auth = { authorization: `Bearer ${token}` };
  const sid = (await rawRequest({ path: '/mcp/memory', headers: auth, body: initBody })).headers['mcp-session-id'];
  const headers = { ...auth, 'mcp-session-id': sid };
  const call = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const cancel = (id) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  const events = (body) => body.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));

  // Cancelled while its POST is being read: the exchange ends at once, empty.
  const batch = await rawRequest({ path: '/mcp/memory', headers, body: [call('b1', 'never'), cancel('b1')] });
  assert.equal(batch.status, 200);
  assert.deepEqual(events(batch.body), []);

  // Cancelled later, from another POST: the open stream ends without an answer.
  const open = rawRequest({ path: '/mcp/memory', headers, body: call('c1', 'never') });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await rawRequest({ path: '/mcp/memory', headers, body: cancel('c1') })).status, 202);
  assert.deepEqual(events((await open).body), []);

  // One of two requests cancelled: the stream stays for the other's answer, then ends.
  const t0 = Date.now();
  const both = rawRequest({ path: '/mcp/memory', headers, body: [call('d1', 'later', { ms: 600 }), call('d2', 'never')] });
  await new Promise((r) => setTimeout(r, 100));
  await rawRequest({ path: '/mcp/memory', headers, body: cancel('d2') });
  const answered = events((await both).body);
  assert.deepEqual(answered.map((m) => m.id), ['d1']);
  assert.ok(Date.now() - t0 >= 550, 'ended with the answer, not at the cancellation');
  assert.equal(gateway.isAnswering('memory'), false, 'no exchange left open');
});

test('a modern request answered later gets the status the core gives its answer; anything streamed first opens a 200 stream', { timeout: 30_000 }, async () => {
  // Sessionless (MCP 2026-07-28) bodies: the answer comes after the handler returned
  // (forwarded upstream), with the core's `httpStatus` (a server's -32601: 404).
  const own = new HttpGateway(
    takingBodies({
      hasEndpoint: () => true,
      readBody: (body, headers) => JSON.parse(clientBodyBytes(body, JSON.stringify(headers ?? {}))),
      onSessionClosed: () => {},
      onClientMessage(session, raw) {
        const msg = JSON.parse(raw);
        setTimeout(() => {
          if (msg.method === 'streams/first') {
            const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } };
            own.deliver(session.id, JSON.stringify(progress), { reply: false, progressToken: 'p' });
          }
          const notFound = msg.method !== 'known/here';
          const answer = notFound ? { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } } : { jsonrpc: '2.0', id: msg.id, result: {} };
          own.deliver(session.id, JSON.stringify(answer), { reply: true, id: msg.id, httpStatus: notFound ? 404 : undefined });
        }, 50);
      },
    }),
    { token, limits, log: () => {} },
  );
  const ownPort = await own.start();
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, progressToken: 'p' };
  const post = async (method) => {
    const res = await fetch(`http://127.0.0.1:${ownPort}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
      body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params: { _meta: meta } }),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  try {
    const missing = await post('not/here');
    assert.equal(missing.status, 404, 'the answer that came later still sets the status');
    assert.match(missing.type ?? '', /application\/json/);
    assert.equal(JSON.parse(missing.text).error.code, -32601);
    const known = await post('known/here');
    assert.deepEqual([known.status, JSON.parse(known.text).result], [200, {}]);
    const streamed = await post('streams/first');
    assert.equal(streamed.status, 200, 'progress went first: a stream, its status sent with it');
    assert.match(streamed.type ?? '', /text\/event-stream/);
    assert.match(streamed.text, /notifications\/progress[^]*"code":-32601/);
  } finally {
    await own.stop();
  }
});
