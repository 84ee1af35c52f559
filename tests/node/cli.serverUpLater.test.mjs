// An HTTP server that was not listening yet when `lazy-mcp serve --http` started
// (and catalogued it), all real peers: the official SDK v2 server (dual era,
// stateless legacy serving) comes up afterwards, and a 2026-07-28 client (the
// SDK v2 client in auto mode, answering elicitation) calls its tool that asks
// the user a question. Lazy MCP must find its era when it first reaches it: had
// it used `initialize` (which the dual-era server also answers), the call would
// go without the client's capabilities and the server could not ask anything.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';

const w = tempWorld('lazy-mcp-cli-up-later-');
const sdk2 = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'sdk2-server.mjs');
const closers = [];
after(async () => {
  for (const close of closers) await close().catch(() => {});
});

/** A port nothing listens on (yet). */
async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('serve --http: a server that comes up after the gateway is spoken to in its era, and asks the client', async () => {
  const port = await freePort();
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { late: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  closers.push(async () => serve.child.kill('SIGKILL'));
  const [, url, token] = await serve.started;
  assert.match(serve.out.stderr, /could not be catalogued.*ECONNREFUSED/s, 'nothing listened at start');

  const server = spawn(process.execPath, [sdk2, 'http', 'dual', 'sdk2-late'], {
    env: { ...process.env, SDK2_PORT: String(port), SDK2_CONFIRM_TOOL: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  closers.push(async () => server.kill('SIGKILL'));
  await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      if (/listening \d+/.test(out)) resolve();
    });
    server.on('exit', (code) => reject(new Error(`the SDK v2 server exited with ${code}`)));
  });

  const asked = [];
  const client = new Client({ name: 'asks-back', version: '2' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { sure: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/late`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  closers.push(() => client.close());
  const result = await client.callTool({ name: 'confirm', arguments: { what: 'deploy' } });
  const text = result.content.map((c) => c.text).join('\n');
  assert.equal(text, 'deploy: accept {"sure":true}', `${JSON.stringify(result)}\n${serve.out.stderr}`);
  assert.deepEqual(asked, ['Confirm deploy?']);

  // The verdict kept for the next start is the server's era.
  const diagnostics = await runCli(['diagnostics', '--trust-project', '--json', '--cwd', w.ws], { env: w.env });
  const late = JSON.parse(diagnostics.stdout).servers.find((s) => s.name === 'late');
  assert.equal(late.era, 'modern', diagnostics.stdout);
});
