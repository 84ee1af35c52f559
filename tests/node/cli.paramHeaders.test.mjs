// A 2026-07-28 server over Streamable HTTP (the official SDK v2, modern only) whose tool
// declares an argument as an `Mcp-Param-Region` header (`x-mcp-header`, SEP-2243): the SDK
// refuses a call without that header (400, -32020). Through `lazy-mcp serve --stdio` the
// call carries it and gets the tool's real answer, non-ASCII values included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';

const w = tempWorld('lazy-mcp-cli-param-headers-');
const cache = path.join(w.root, 'catalogue.json');
const sdk2 = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'sdk2-server.mjs');
const args = ['--cwd', w.ws, '--cache', cache];
let httpServer;

before(async () => {
  httpServer = spawn(process.execPath, [sdk2, 'http', 'modern', 'sdk2-regional'], {
    env: { ...process.env, SDK2_PARAM_HEADER_TOOL: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise((resolve, reject) => {
    httpServer.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    httpServer.on('exit', (code) => reject(new Error(`the HTTP fixture exited with ${code}`)));
  });
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
});

after(() => httpServer?.kill('SIGKILL'));

test('a tool that declares an Mcp-Param header is called with it and answers', async () => {
  const catalogued = await runCli(['catalogue', '--trust-project', ...args], { env: w.env });
  assert.equal(catalogued.code, 0, catalogued.stderr);
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', ...args], env: w.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'cli-param-headers-test', version: '1' });
  await client.connect(transport);
  try {
    const call = async (region) => {
      const result = await client.callTool({ name: 'web__regional', arguments: { region, text: 'hi' } });
      assert.ok(!result.isError, `${region}: ${JSON.stringify(result)}\n${stderr}`);
      return result.content[0].text;
    };
    assert.equal(await call('eu-west-1'), 'eu-west-1: hi');
    // Not plain ASCII: sent base64-encoded (=?base64?…?=), which the server decodes and checks.
    assert.equal(await call('zürich'), 'zürich: hi');
  } finally {
    await client.close();
  }
});
