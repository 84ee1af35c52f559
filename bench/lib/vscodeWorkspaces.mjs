// The two workspaces of `npm run bench:vscode`: the same three real servers, launched the same
// way (node + the package's dist/index.js from node_modules, no npx, no wrapper), once in a file
// Lazy MCP manages (.copilot/mcp-config.json) and once in .vscode/mcp.json (VS Code's own).
import fs from 'node:fs';
import path from 'node:path';

export const serverPathMark = (repo) => path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-');

function servers(repo, workspace) {
  const bin = (pkg) => path.join(repo, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
  return {
    everything: { command: process.execPath, args: [bin('server-everything'), 'stdio'] },
    memory: { command: process.execPath, args: [bin('server-memory')], env: { MEMORY_FILE_PATH: path.join(workspace, 'memory.jsonl') } },
    filesystem: { command: process.execPath, args: [bin('server-filesystem'), workspace] },
  };
}

/** Lazy MCP reads .copilot/mcp-config.json (Copilot CLI format); VS Code does not. */
export function writeLazyWorkspace(repo, workspace) {
  const mcpServers = Object.fromEntries(Object.entries(servers(repo, workspace)).map(([name, s]) => [name, { type: 'local', ...s, tools: ['*'] }]));
  write(path.join(workspace, '.copilot', 'mcp-config.json'), { mcpServers });
}

/** VS Code's own workspace MCP file; Lazy MCP is not installed on this side. */
export function writeNativeWorkspace(repo, workspace) {
  const entries = Object.entries(servers(repo, workspace)).map(([name, s]) => [name, { type: 'stdio', ...s }]);
  write(path.join(workspace, '.vscode', 'mcp.json'), { servers: Object.fromEntries(entries) });
}

function write(file, json) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}
