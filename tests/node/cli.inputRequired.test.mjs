// Servers that ask the user for input during a call (elicitation, sampling),
// through `lazy-mcp serve`, all real peers: the official SDK v2 client in auto
// mode (MCP 2026-07-28) with elicitation and sampling handlers, the SDK v2
// server (a 2026-07-28 `input_required` result) and server-everything (a legacy
// server sending `elicitation/create` / `sampling/createMessage` requests
// mid-call, which Lazy MCP turns into `input_required` for the modern client and
// answers with the client's retry). A legacy (v1) client and a modern client
// that did not declare the capability get a clear error at once, never a hang.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';
import { countedServer, killSpawnedGroups } from './helpers/realServers.mjs';

const w = tempWorld('lazy-mcp-cli-input-');
const spawnLog = path.join(w.root, 'spawns.log');
const sdk2 = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'sdk2-server.mjs');
const sdk2Server = (name, confirm) => ({
  command: process.execPath,
  args: [sdk2, 'stdio', 'modern', name],
  env: { SDK2_CONFIRM_TOOL: confirm },
});
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: {
    modern: sdk2Server('sdk2-modern', '1'),
    rooted: sdk2Server('sdk2-rooted', 'roots'),
    everything: countedServer(spawnLog, 'server-everything', ['stdio']),
  },
});
const serveArgs = [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws];
const closers = [];
after(async () => {
  for (const close of closers) await close().catch(() => {});
  killSpawnedGroups(spawnLog);
});

/** The SDK v2 client in auto mode, answering elicitation (and sampling when `sampling`). */
function modernClient({ sampling = true } = {}) {
  const asked = [];
  const capabilities = { elicitation: { form: {} }, ...(sampling ? { sampling: {} } : {}) };
  const client = new ModernClient({ name: 'asks-back', version: '2' }, { versionNegotiation: { mode: 'auto' }, capabilities });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(`elicit: ${request.params.message}`);
    return { action: 'accept', content: { sure: true, name: 'Ada' } };
  });
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push(`sample: ${request.params.messages[0].content.text}`);
      return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
    });
  }
  return { client, asked };
}

async function connectStdio(client) {
  const transport = new ModernStdio({ command: process.execPath, args: serveArgs, env: w.env, stderr: 'pipe' });
  const out = { stderr: '' };
  transport.stderr?.on('data', (d) => (out.stderr += d));
  await client.connect(transport);
  closers.push(() => client.close());
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return out;
}

const text = (result) => result.content.map((c) => c.text).join('\n');

test('catalogue: the servers are catalogued once, so calls below start them on first use', async () => {
  const catalogued = await runCli(['catalogue', '--trust-project', '--cwd', w.ws], { env: w.env });
  assert.equal(catalogued.code, 0, catalogued.stderr);
});

test('serve --stdio: a modern client answers a modern server\'s elicitation and gets the real result', async () => {
  const { client, asked } = modernClient();
  const out = await connectStdio(client);
  const result = await client.callTool({ name: 'modern__confirm', arguments: { what: 'deploy' } });
  assert.ok(!result.isError, `${JSON.stringify(result)}\n${out.stderr}`);
  assert.equal(text(result), 'deploy: accept {"sure":true,"name":"Ada"}');
  assert.deepEqual(asked, ['elicit: Confirm deploy?'], 'the user was asked once, with the server\'s question');

  // Roots asked in the same round: answered by Lazy MCP (the workspace), the user only confirms.
  const rooted = await client.callTool({ name: 'rooted__confirm', arguments: { what: 'ship' } });
  assert.ok(!rooted.isError, `${JSON.stringify(rooted)}\n${out.stderr}`);
  assert.equal(text(rooted), `ship in ${pathToFileURL(w.ws).href}: accept {"sure":true,"name":"Ada"}`);
  assert.deepEqual(asked, ['elicit: Confirm deploy?', 'elicit: Confirm ship?']);
});

test('serve --stdio: a legacy server\'s elicitation and sampling reach a modern client as input_required', async () => {
  const { client, asked } = modernClient();
  const out = await connectStdio(client);
  const elicited = await client.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
  assert.ok(!elicited.isError, `${JSON.stringify(elicited)}\n${out.stderr}`);
  assert.match(text(elicited), /User provided the requested information/);
  assert.match(text(elicited), /- Name: Ada/);
  assert.deepEqual(asked, ['elicit: Please provide inputs for the following fields:']);

  const sampled = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'the answer?' } });
  assert.ok(!sampled.isError, `${JSON.stringify(sampled)}\n${out.stderr}`);
  assert.match(text(sampled), /LLM sampling result/);
  assert.match(text(sampled), /forty-two/);
  assert.equal(asked.length, 2);
  assert.match(asked[1], /^sample: .*the answer\?/);
});

test('serve --stdio: a modern client that did not declare sampling gets the spec\'s -32021 at once', async () => {
  const { client, asked } = modernClient({ sampling: false });
  await connectStdio(client);
  const started = Date.now();
  const error = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'x' } }).then(
    (result) => assert.fail(`answered ${JSON.stringify(result)}`),
    (error) => error,
  );
  // MissingRequiredClientCapabilityError: what to declare when it sends the call again.
  assert.equal(error.code, -32021, String(error));
  assert.deepEqual(error.data?.requiredCapabilities, { sampling: {} });
  assert.match(error.message, /sampling\/createMessage/);
  assert.ok(Date.now() - started < 30_000, 'not a timeout');
  assert.deepEqual(asked, []);
});

test('serve --stdio: a legacy client gets a clear error from a modern server, not a hang', async () => {
  const client = new LegacyClient({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
  const transport = new LegacyStdio({ command: process.execPath, args: serveArgs, env: w.env, stderr: 'pipe' });
  await client.connect(transport);
  closers.push(() => client.close());
  const outcome = await client.callTool({ name: 'modern__confirm', arguments: { what: 'deploy' } }).then(
    (result) => JSON.stringify(result),
    (error) => String(error),
  );
  // Lazy MCP declared elicitation upstream only for modern clients that declared it.
  assert.match(outcome, /-32021.*elicitation\/create.*capabilit/s);
});

test('serve --http: each round is a request of its own (no session), for both kinds of server', async () => {
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  closers.push(async () => serve.child.kill('SIGKILL'));
  const [, url, , token] = await serve.started;
  const { client, asked } = modernClient();
  await client.connect(new ModernHttp(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  closers.push(() => client.close());
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const confirmed = await client.callTool({ name: 'modern__confirm', arguments: { what: 'over http' } });
  assert.equal(text(confirmed), 'over http: accept {"sure":true,"name":"Ada"}', serve.out.stderr);
  const elicited = await client.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
  assert.match(text(elicited), /- Name: Ada/, serve.out.stderr);
  const sampled = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'http?' } });
  assert.match(text(sampled), /forty-two/, serve.out.stderr);
  assert.equal(asked.length, 3);
});
