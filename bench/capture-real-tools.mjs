// `node bench/capture-real-tools.mjs`: connects to the six real servers of the
// benchmark with the official SDK client, lists their tools, and writes them to
// crates/lazy-mcp-core/tests/fixtures/tool_index/real_tools.json — the fixture
// the tool index's quality test and benchmark search over. Re-run it when a
// server's version in package.json (or the PyPI venv) changes.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchServers, repoRoot } from './lib/servers.mjs';

const out = path.join(repoRoot, 'crates', 'lazy-mcp-core', 'tests', 'fixtures', 'tool_index', 'real_tools.json');

async function listAllTools(name, spec) {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...process.env, ...(spec.env ?? {}) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'lazy-mcp-capture', version: '0.1.0' });
  await client.connect(transport);
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const version = client.getServerVersion();
  await client.close();
  console.error(`• ${name}: ${tools.length} tools (${version?.name} ${version?.version})`);
  return { server: name, serverInfo: version ?? null, tools };
}

const servers = [];
for (const [name, spec] of Object.entries(benchServers())) {
  servers.push(await listAllTools(name, spec));
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ capturedWith: 'bench/capture-real-tools.mjs', servers }, null, 2) + '\n');
console.error(`wrote ${path.relative(repoRoot, out)}`);
