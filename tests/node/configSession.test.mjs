// The core's config load through the real WASM core (configSources → readFiles →
// filesRead rounds, driven by the host's ConfigSession, which only reads files):
// several formats, {file:} references, and half-typed files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { ConfigSession } = await loadHostModule('host/config/configSession');

/** The CLI's policy: every server managed. */
function sources(home, ws) {
  return { discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home } }, explicitFiles: [], policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' } };
}

function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-config-'));
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.mcp.json'), '{\n  // Claude Code project servers\n  "mcpServers": {\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], },\n  },\n}\n');
  fs.writeFileSync(path.join(ws, 'opencode.jsonc'), '{ "mcp": { "docs": { "type": "remote", "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer {file:token.txt}" } } } }');
  fs.writeFileSync(path.join(ws, 'token.txt'), 'sekrit-token-value\n');
  fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), '{ "mcpServers": { "time": { "type": "local", "command": "uvx", "args": ["mcp-server-time"], "tools": ["*"] } } }');
  const core = new WasmCore(builtCoreModule, () => {});
  const session = new ConfigSession(core, sources(home, ws));
  return { home, ws, session };
}

test('servers from Claude Code, OpenCode and Copilot CLI files are merged into one list', async () => {
  const { ws, session } = setup();
  const result = await session.load();
  assert.deepEqual(result.servers.map((s) => s.name).sort(), ['docs', 'memory', 'time']);
  const memory = result.servers.find((s) => s.name === 'memory');
  assert.equal(memory.source.file, path.join(ws, '.mcp.json'));
  assert.equal(memory.source.line, 4, 'the entry line is reported');
  assert.equal(memory.loadedByVscode, true, 'VS Code reads a workspace-root .mcp.json itself');
  const docs = result.servers.find((s) => s.name === 'docs');
  assert.equal(docs.transport.headers.Authorization, 'Bearer sekrit-token-value', '{file:} was read by the host and substituted by the core');
  assert.ok(session.watchedPaths.includes(path.join(ws, 'token.txt')), 'referenced files are watched too');
  assert.ok(session.watchedPaths.includes(path.join(ws, '.vscode', 'mcp.json')), 'missing files are watched');
});

test('a half-typed file keeps its last good servers and reports where it broke', async () => {
  const { ws, session } = setup();
  await session.load();
  fs.writeFileSync(path.join(ws, '.mcp.json'), '{\n  "mcpServers": {\n    "memory": { "command": \n');
  const result = await session.load();
  assert.ok(result.servers.some((s) => s.name === 'memory'), 'last good version still used');
  const report = result.files.find((f) => f.path === path.join(ws, '.mcp.json'));
  assert.equal(report.usingLastGood, true);
  const problem = result.problems.find((p) => p.file === path.join(ws, '.mcp.json') && p.severity === 'error');
  assert.ok(problem, 'the syntax error is reported');
  assert.ok(problem.line >= 3, `line ${problem.line} points into the broken entry`);
  // The report keeps naming the saved file's syntax error, so VS Code can leave it to its JSON service.
  assert.deepEqual(report.error, problem);
  assert.equal(report.syntaxError, true);
});

test('a broken file with no good version contributes nothing and the others still load', async () => {
  const { ws, home } = setup();
  fs.writeFileSync(path.join(ws, '.mcp.json'), '{ "mcpServers": { oops } }');
  const core = new WasmCore(builtCoreModule, () => {});
  const session = new ConfigSession(core, sources(home, ws));
  const result = await session.load();
  assert.deepEqual(result.servers.map((s) => s.name).sort(), ['docs', 'time']);
  assert.ok(result.problems.some((p) => p.file.endsWith('.mcp.json') && p.line === 1 && p.column > 1));
});

test('a config load starts none of the servers it reads (an engine that manages no servers)', async () => {
  const { ws, session } = setup();
  const marker = path.join(ws, 'started');
  const script = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'started')`;
  fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { starts: { command: process.execPath, args: ['-e', script] } } }));
  const result = await session.load();
  assert.ok(result.servers.some((s) => s.name === 'starts'), 'the server is in the report');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  session.dispose();
  assert.equal(fs.existsSync(marker), false, 'its command never ran');
});
