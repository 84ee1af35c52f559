// The eager baseline, as MCP clients do it today: the official SDK client spawns
// every server, initializes it and lists its tools, and keeps them all running.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { treeRssBytes } from './servers.mjs';

export async function eagerStart(servers) {
  const t0 = performance.now();
  const sessions = await Promise.all(
    Object.entries(servers).map(async ([name, spec]) => {
      const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...process.env, ...(spec.env ?? {}) }, stderr: 'ignore' });
      const client = new Client({ name: 'eager-baseline', version: '1' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      return { name, client, transport, tools };
    }),
  );
  const ms = performance.now() - t0;
  const pids = sessions.map((s) => s.transport.pid).filter(Boolean);
  const rss = pids.reduce((sum, pid) => sum + treeRssBytes(pid), 0);
  return {
    ms,
    processes: pids.length,
    rssBytes: rss,
    tools: sessions.flatMap((s) => s.tools.map((t) => ({ server: s.name, tool: t }))),
    close: () => Promise.all(sessions.map((s) => s.client.close())),
  };
}
