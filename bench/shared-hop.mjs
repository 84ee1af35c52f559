// The hop through the owner of shared servers (issue 26): warm `tools/call`
// latency through `lazy-mcp serve --stdio` with its own server (--isolated)
// and through the owner (--shared), same real server (server-memory), same
// SDK client, interleaved rounds. Usage: node bench/shared-hop.mjs [calls=300]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const calls = Number(process.argv[2] ?? 300);
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-shared-hop-'));
const home = path.join(root, 'home');
fs.mkdirSync(home);
const memory = path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(root, 'm.jsonl') } } } }));
const env = { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_CONFIG_HOME: path.join(home, '.config'), LAZY_MCP_SOCKET_DIR: path.join(root, 'sock'), LAZY_MCP_OWNER_LINGER_MS: '500' };

async function session(flag) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(repo, 'dist', 'cli.js'), 'serve', '--stdio', flag, '--cwd', root], env, stderr: 'ignore' });
  const client = new Client({ name: 'shared-hop', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'memory__read_graph', arguments: {} }); // warm: started and connected
  return client;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const isolated = await session('--isolated');
const shared = await session('--shared');
const times = { isolated: [], shared: [] };
for (let i = 0; i < calls; i++) {
  for (const [name, client] of [['isolated', isolated], ['shared', shared]]) {
    const t0 = process.hrtime.bigint();
    await client.callTool({ name: 'memory__read_graph', arguments: {} });
    times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
await isolated.close();
await shared.close();
const mi = median(times.isolated);
const ms = median(times.shared);
console.log(`warm tools/call, median of ${calls}: isolated ${mi.toFixed(3)} ms, shared ${ms.toFixed(3)} ms, hop +${(ms - mi).toFixed(3)} ms`);
