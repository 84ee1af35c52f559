// The version the engine negotiated reaches the HTTP server: every upstream request after
// `initialize` carries the MCP-Protocol-Version the engine accepted, in the headers of its
// `send` effect (the engine owns the version; the connection keeps none). (0.1.0's
// hand-written Effect union dropped the `negotiated` effect of the time; the header only
// worked because the connection sniffed `initialize` replies itself.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import * as http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

/** The official SDK's Streamable HTTP server, recording each request's JSON-RPC method and version header. */
async function recordingServer() {
  const seen = [];
  const sessions = new Map();
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    seen.push({ method: req.method, rpc: body?.method, version: req.headers['mcp-protocol-version'] });
    let transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport) });
      const mcp = new McpServer({ name: 'recording', version: '1.0.0' });
      mcp.registerTool('echo', { description: 'Echo text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      await mcp.connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, seen, close: () => new Promise((r) => server.close(r)) };
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-negotiated-'));
const upstream = await recordingServer();
const host = new LazyHost({
  core: new WasmCore(builtCoreModule, () => {}),
  discovery: { home: path.join(root, 'home'), workspaceFolders: [root], platform: 'linux', env: { PATH: process.env.PATH ?? '' } },
  // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
  policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
  store: new BlobFile(path.join(root, 'catalogue.json')),
  log: () => {},
  gateway: {},
});
fs.writeFileSync(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: upstream.url } } }));
after(async () => {
  await host.stop();
  await upstream.close();
});

test('requests after initialize carry the version the engine negotiated', { timeout: 60000 }, async () => {
  await host.start();
  const client = new Client({ name: 'negotiated-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.endpointUrl('remote')), { requestInit: { headers: { Authorization: `Bearer ${host.gatewayToken}` } } }),
  );
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  assert.equal(result.content[0].text, 'hi');
  await client.close();

  const posts = upstream.seen.filter((r) => r.method === 'POST');
  const inits = posts.filter((r) => r.rpc === 'initialize');
  assert.ok(inits.length >= 1, 'the server was initialized');
  assert.ok(inits.every((r) => r.version === undefined), 'initialize itself carries no version header');
  // The era probe is a 2026-07-28 request (it names its own version); this legacy
  // server refuses it, and everything after `initialize` carries the legacy version.
  const probes = posts.filter((r) => r.rpc === 'server/discover');
  assert.equal(probes.length, 1, 'one era probe');
  assert.equal(probes[0].version, '2026-07-28');
  const later = posts.filter((r) => r.rpc !== 'initialize' && r.rpc !== 'server/discover');
  assert.ok(later.some((r) => r.rpc === 'tools/call'), 'the call reached the server');
  for (const r of later) assert.equal(r.version, '2025-11-25', `${r.rpc} carries the negotiated version`);
});
