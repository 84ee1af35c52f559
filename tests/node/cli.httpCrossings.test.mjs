// A warm call to an HTTP server crosses into the WASM core twice, as over stdio
// (cli.stdioCrossings): the client's line in, the server's answer in
// (`messageReceived` with the request's id, which says whether it still awaits its answer, so
// the end of a POST's reply crosses only when it matters). A real `serve --stdio`
// process against the official SDK's Streamable HTTP server, with SSE replies
// (the SDK's default) and JSON replies; every call into the core is counted by a
// preload (helpers/countCrossings.cjs). A reply that ends without the answer
// still fails its call at once.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { tempWorld, writeJson } from './helpers/cliRun.mjs';
import { initialize, initialized, stdioServe } from './helpers/rawMcp.mjs';

const w = tempWorld('lazy-mcp-cli-http-crossings-');
const crossingsFile = path.join(w.root, 'crossings.log');
const helpers = path.join(path.dirname(new URL(import.meta.url).pathname), 'helpers');
const hook = path.join(helpers, 'countCrossings.cjs');
const cleanup = [];
let server;
let base;

before(async () => {
  const sessions = new Map();
  server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    // A reply stream that ends without the answer (a server bug the call must not wait out).
    if (body?.params?.name === 'cut') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end();
    }
    const sid = req.headers['mcp-session-id'];
    let transport = sid !== undefined ? sessions.get(sid) : undefined;
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: req.url.includes('json=1'),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      const mcp = new McpServer({ name: 'crossings', version: '1.0.0' });
      mcp.registerTool('echo', { description: 'Echo text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
      mcp.registerTool('cut', { description: 'Never answered', inputSchema: {} }, async () => ({ content: [] }));
      cleanup.push(() => mcp.close().catch(() => {}));
      await mcp.connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}/mcp`;
  // A static Authorization header: no OAuth (nothing to sign in to).
  const remote = (json) => ({ type: 'http', url: `${base}?json=${json}`, headers: { Authorization: 'Bearer static' } });
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { sse: remote(0), json: remote(1) } });
});

after(async () => {
  for (const c of cleanup) await c();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r());
});

/** The crossings made so far, by name (a JSON event's with its type: `Engine.handleSplit:replyEnded`). */
const crossings = () => (fs.existsSync(crossingsFile) ? fs.readFileSync(crossingsFile, 'utf8').split('\n').filter(Boolean) : []);
/**
 * Those a call makes: its messages, and the end of a POST's reply. Not the host's own
 * work meanwhile (a config file's watch firing late, the engine's timer, a connection's
 * log line masked: `maskText`, e.g. its GET stream opening).
 */
const ofCalls = (names) => names.filter((n) => n !== 'Engine.maskText' && (!n.startsWith('Engine.handleSplit:') || n === 'Engine.handleSplit:replyEnded'));

const call = (id, tool, args = {}) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } });

test('serve --stdio: a warm call to an HTTP server crosses into the core twice (SSE and JSON replies); a reply without the answer still fails the call', { timeout: 120_000 }, async () => {
  const s = stdioServe(['--cwd', w.ws], { ...w.env, LAZY_MCP_TEST_CROSSINGS: crossingsFile }, ['-r', hook]);
  cleanup.push(() => s.child.kill('SIGKILL'));
  s.send(initialize(1));
  await s.reply(1);
  s.send(initialized);
  for (const server of ['sse', 'json']) {
    const warm = await s.reply((s.send(call(`${server}-w0`, `${server}__echo`, { text: 'w0' })), `${server}-w0`));
    assert.equal(warm.result?.content?.[0]?.text, 'echo: w0', JSON.stringify(warm));
    for (const n of [1, 2, 3]) {
      const id = `${server}-w${n}`;
      const before = crossings().length;
      s.send(call(id, `${server}__echo`, { text: `w${n}` }));
      const answer = await s.reply(id);
      assert.equal(answer.result?.content?.[0]?.text, `echo: w${n}`);
      // The reply's end may land a moment after the answer: give it the time to cross, if it would.
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(ofCalls(crossings().slice(before)), ['Engine.clientMessage', 'Engine.messageReceived'], `crossings for warm call ${id}`);
    }
  }
  // The reply stream ended without the answer: the call fails now, naming why (not at its timeout).
  const started = Date.now();
  const cut = await s.reply((s.send(call('cut', 'sse__cut')), 'cut'));
  assert.match(cut.error?.message ?? '', /ended before the response/, JSON.stringify(cut));
  assert.ok(Date.now() - started < 10_000, `failed after ${Date.now() - started} ms`);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0, s.stderr());
});
