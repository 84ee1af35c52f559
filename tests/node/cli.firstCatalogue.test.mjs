// `serve` answers its first client once the first catalogue is complete: it waits
// for the core's `catalogueSettled` effect (no polling), within the core's
// `firstCatalogueWaitMs` (hostLimits). A server that takes 1.5 s to start is
// still in the first tools/list.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { isAlive, waitFor } from './helpers/realServers.mjs';

const tiny = path.resolve(import.meta.dirname, '../fixtures/servers/tiny-server.mjs');
const w = tempWorld('lazy-mcp-cli-first-catalogue-');
writeJson(path.join(w.ws, '.mcp.json'), {
  mcpServers: {
    quick: { command: process.execPath, args: [tiny, 'quick'] },
    // Starts reading stdin only after 1.5 s: its first catalogue comes last.
    slow: { command: process.execPath, args: ['-e', 'setTimeout(() => import(process.argv[1]), 1500)', tiny, 'slow'] },
  },
});

const cleanup = [];
after(() => cleanup.forEach((c) => c()));

test("serve --stdio: the first tools/list waits for the slowest server's first catalogue", { timeout: 60_000 }, async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws],
    env: w.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'first-catalogue-test', version: '1' });
  const started = Date.now();
  await client.connect(transport);
  const cliPid = transport.pid;
  cleanup.push(() => isAlive(cliPid) && process.kill(cliPid, 'SIGKILL'));

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['quick__add', 'quick__echo', 'quick__now', 'slow__add', 'slow__echo', 'slow__now']);
  assert.ok(Date.now() - started >= 1500, 'answered only after the slow server was catalogued');
  assert.doesNotMatch(stderr, /still cataloguing/);

  await client.close();
  await waitFor('the CLI to exit', () => !isAlive(cliPid), 15_000);
});
