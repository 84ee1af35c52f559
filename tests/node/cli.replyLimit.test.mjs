// Issue 23 §5: a remote (HTTP) server's reply bodies are capped. A hostile server that
// streams a body without end (one JSON reply, or one SSE event whose data never ends) must
// not grow lazy-mcp without bound: reading stops at the core's limit (64 MiB, the `open`
// effect's `maxMessageBytes`), the call fails with an error naming the server and the limit,
// and the same server's other calls and the other servers keep working.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startEndlessHttp } from '../fixtures/servers/endless-http.mjs';
import { cliJs, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';
import { waitFor } from './helpers/realServers.mjs';

const MiB = 1024 * 1024;
const cleanup = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** Peak resident memory of a process so far (Linux VmHWM), in bytes. */
function peakRss(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

test('an endless reply body (JSON, and one SSE event) fails its call at 64 MiB naming the server; memory stays bounded; everything else keeps working', { skip: process.platform !== 'linux', timeout: 180_000 }, async () => {
  const endless = await startEndlessHttp();
  cleanup.push(() => endless.stop());
  const w = tempWorld('lazy-mcp-reply-limit-');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      endless: { type: 'http', url: endless.url },
      tiny: { command: process.execPath, args: [path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs')] },
    },
  });
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws], env: w.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'reply-limit-test', version: '1' });
  await client.connect(transport);
  cleanup.push(() => client.close());
  const pid = transport.pid;

  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'endless__endless_json'), tools.map((t) => t.name).join(', '));
  const before = peakRss(pid);

  for (const [tool, what] of [
    ['endless__endless_json', /MCP server 'endless' sent the reply from http:\/\/127\.0\.0\.1:\d+\/mcp larger than 64 MiB, the most Lazy MCP takes in one message from a server/],
    ['endless__endless_sse', /MCP server 'endless' sent an event of the reply stream from http:\/\/127\.0\.0\.1:\d+\/mcp larger than 64 MiB/],
  ]) {
    const cutBefore = endless.stats.cut;
    const sentBefore = endless.stats.sent;
    const started = Date.now();
    const result = await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 120_000 }).then(
      (r) => r,
      (err) => ({ thrown: err }),
    );
    const text = result.thrown ? String(result.thrown.message) : JSON.stringify(result);
    assert.ok(result.thrown || result.isError, `${tool}: the call must fail: ${text.slice(0, 300)}`);
    assert.match(text, what, `${tool}: ${text.slice(0, 500)}`);
    // lazy-mcp stopped reading (it closed the connection; the server notices a moment later).
    await waitFor(`${tool}: the endless reply to be cut off`, () => endless.stats.cut === cutBefore + 1, 10_000);
    const streamed = endless.stats.sent - sentBefore;
    assert.ok(streamed >= 64 * MiB, `${tool}: ${streamed} bytes streamed before the cut`);
    console.log(`${tool}: failed after ${Date.now() - started} ms, ${Math.round(streamed / MiB)} MiB streamed before the cut`);
  }
  // Bounded: the peak grew by the limit plus its copies, not by what the server kept sending.
  const grown = peakRss(pid) - before;
  console.log(`serve peak RSS ${Math.round(peakRss(pid) / MiB)} MiB (grew ${Math.round(grown / MiB)} MiB)`);
  assert.ok(grown < 512 * MiB, `peak RSS grew by ${Math.round(grown / MiB)} MiB`);

  // The same server's other calls, and the other server, still work.
  const small = await client.callTool({ name: 'endless__small', arguments: {} });
  assert.equal(small.content[0].text, 'small answer');
  const echo = await client.callTool({ name: 'tiny__echo', arguments: { message: 'still here' } });
  assert.match(echo.content[0].text, /still here/);
  assert.doesNotMatch(stderr, /internal error/);
});
