// The synthetic config of the config benchmarks: 100 servers over six files of
// all five formats, with variables, secrets and JSONC comments.
export const home = '/home/dev';
export const ws = '/home/dev/project';

// 100 servers: 20 VS Code, 20 Claude Code project + 10 user, 20 Copilot CLI, 20 OpenCode, 10 Claude Desktop.
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const stdio = (i, extra = {}) => ({ command: 'npx', args: ['-y', `@acme/server-${i}`, '--root', '${workspaceFolder}'], env: { API_TOKEN: `secret-${i}` }, ...extra });
const jsonc = (obj, comment) => `// ${comment}\n${JSON.stringify(obj, null, 2).replace(/\n}$/, ',\n}')}`;
export const files = [
  { path: `${ws}/.vscode/mcp.json`, content: jsonc({ servers: Object.fromEntries(range(20, (i) => [`vs${i}`, i % 4 === 0 ? { type: 'http', url: `https://mcp.example.com/${i}`, headers: { Authorization: 'Bearer ${env:TOKEN}' } } : stdio(i)])) }, 'VS Code') },
  { path: `${ws}/.mcp.json`, content: jsonc({ mcpServers: Object.fromEntries(range(20, (i) => [`cc${i}`, { command: 'node', args: [`server-${i}.js`, '${HOME}'], env: { KEY: '${KEY:-default}' } }])) }, 'Claude Code project') },
  { path: `${home}/.claude.json`, content: JSON.stringify({ mcpServers: Object.fromEntries(range(10, (i) => [`ccu${i}`, { type: 'sse', url: `https://sse.example.com/${i}` }])), projects: {} }) },
  { path: `${ws}/.github/mcp-config.json`, content: jsonc({ mcpServers: Object.fromEntries(range(20, (i) => [`cp${i}`, { type: 'local', command: 'uvx', args: [`mcp-server-${i}`], tools: ['*'], timeout: 20000 }])) }, 'Copilot CLI') },
  { path: `${ws}/opencode.jsonc`, content: jsonc({ mcp: Object.fromEntries(range(20, (i) => [`oc${i}`, i % 2 ? { type: 'local', command: ['bun', 'x', `srv-${i}`], environment: { T: '{env:TOKEN}' } } : { type: 'remote', url: `https://oc.example.com/${i}`, enabled: true }])) }, 'OpenCode') },
  { path: `${home}/.config/Claude/claude_desktop_config.json`, content: JSON.stringify({ mcpServers: Object.fromEntries(range(10, (i) => [`cd${i}`, { command: 'python', args: ['-m', `srv${i}`] }])) }) },
];
export const env = { HOME: home, TOKEN: 't0k3n', KEY: 'k' };
