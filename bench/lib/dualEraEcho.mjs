// A dual-era MCP server (official SDK v2, `serveStdio`): one `echo` tool, for
// bench/gateway-eras.mjs — the same server answers the direct clients of both
// eras and sits behind the gateway.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'dual-era-echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the message back.', inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  return server;
});
