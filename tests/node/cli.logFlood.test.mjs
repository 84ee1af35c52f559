// A server that floods stdout with non-JSON lines (about 2,000 a second) must
// not flood the gateway's stderr: the first lines of each kind are logged,
// the rest are summarized ("… N more similar lines suppressed"). Measured over
// a fixed interval while `serve --stdio` keeps answering its client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';

const intervalMs = 12_000;
/** 10 lines of ≤ 250 bytes per kind per 10 s, plus summaries: far below this. */
const maxStderrBytes = 12_000;

// Isolated, the gateway's own stderr carries the log. Shared (the default), the owner holds the
// server and its stdout: the owner's log (owner-v2.log beside its socket) is what must stay bounded.
for (const mode of ['isolated', 'shared']) {
test(`a garbage-flooding server (${mode}): the log stays bounded over a fixed interval, with a summary of what was suppressed`, { timeout: 120_000 }, async () => {
  const w = tempWorld('lazy-mcp-flood-');
  const ownerLog = path.join(w.env.XDG_RUNTIME_DIR, 'lazy-mcp', 'owner-v2.log');
  const logBytes = () => (mode === 'isolated' ? stderrBytes : fs.existsSync(ownerLog) ? fs.statSync(ownerLog).size : 0);
  const logText = () => (mode === 'isolated' ? stderr : fs.existsSync(ownerLog) ? fs.readFileSync(ownerLog, 'utf8') : '');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: { flood: { command: process.execPath, args: [path.join(repoRoot, 'tests', 'fixtures', 'servers', 'flood-stdout.mjs')] } },
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws, '--idle-timeout', '0', `--${mode}`],
    env: w.env,
    stderr: 'pipe',
  });
  let stderrBytes = 0;
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderrBytes += d.length;
    stderr += d;
  });
  const client = new Client({ name: 'flood-test', version: '1' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'flood__noop'), JSON.stringify(tools));
    // A call connects the server; with --idle-timeout 0 it stays connected (and flooding).
    await client.callTool({ name: 'flood__noop', arguments: {} });
    const start = logBytes();
    const startedAt = Date.now();
    // The gateway keeps answering its client throughout.
    while (Date.now() - startedAt < intervalMs) {
      const result = await client.callTool({ name: 'flood__noop', arguments: {} });
      assert.equal(result.content[0].text, 'ok');
      await new Promise((r) => setTimeout(r, 500));
    }
    const bytes = logBytes() - start;
    console.log(`${mode === 'isolated' ? 'gateway stderr' : 'owner log'} over ${intervalMs} ms with a flooding server: ${bytes} bytes`);
    const log = logText();
    assert.ok(log.includes('ignored a non-JSON stdout line'), `the flood was seen:\n${log.slice(0, 2000)}`);
    assert.ok(bytes < maxStderrBytes, `the log grew by ${bytes} bytes in ${intervalMs} ms:\n${log.slice(-3000)}`);
    assert.match(log, /warn \[flood\]: … \d+ more similar lines \("stdio .*: ignored …"\) suppressed in \d+ s/);
  } finally {
    await client.close();
  }
});
}
