// Verifies `lazy-mcp serve` against real third-party MCP clients and prints the counts:
//   1. the official MCP Inspector CLI: tools/list and tools/call through `serve --stdio` and `serve --http`;
//   2. the MCP conformance suite (`conformance server --url`) against `lazy-mcp serve --http`
//      fronting server-everything AND against server-everything directly, in the same run.
// Both tools need Node >= 22: they run on the Node 24 of scripts/tools/node24.mjs and are
// installed (pinned) into $LAZY_MCP_TOOLS_DIR/verify-clients, never into package.json.
// Usage: node scripts/verify-clients.mjs [--json FILE]     (run `node scripts/build.mjs` first)
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24 } from './tools/node24.mjs';
import { toolsDir } from './tools/common.mjs';

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repoRoot, 'dist', 'cli.js');
const everythingJs = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const memoryJs = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;

if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run node scripts/build.mjs first');
const node24 = ensureNode24().node;
const prefix = path.join(toolsDir(), 'verify-clients');
const inspectorJs = path.join(prefix, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const conformanceJs = path.join(prefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
if (!fs.existsSync(inspectorJs) || !fs.existsSync(conformanceJs)) {
  console.error(`• installing ${INSPECTOR} and ${CONFORMANCE} into ${prefix}`);
  fs.mkdirSync(prefix, { recursive: true });
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', INSPECTOR, CONFORMANCE], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PATH: `${path.dirname(node24)}${path.delimiter}${process.env.PATH}` },
  });
}

// A throwaway world: home, config and cache dirs, and a workspace with two real servers.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-verify-'));
const ws = path.join(root, 'ws');
fs.mkdirSync(ws, { recursive: true });
const env = {
  PATH: process.env.PATH ?? '',
  HOME: path.join(root, 'home'),
  XDG_CONFIG_HOME: path.join(root, 'home', '.config'),
  XDG_CACHE_HOME: path.join(root, 'home', '.cache'),
};
fs.writeFileSync(
  path.join(ws, '.mcp.json'),
  JSON.stringify({
    mcpServers: {
      everything: { command: process.execPath, args: [everythingJs, 'stdio'] },
      memory: { command: process.execPath, args: [memoryJs], env: { MEMORY_FILE_PATH: path.join(root, 'memory.jsonl') } },
    },
  }),
);

const children = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

function start(command, args, { ready, extraEnv = {} }) {
  const child = spawn(command, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} not ready:\n${out}`)), 60_000);
    const check = () => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`)));
  });
}

async function stop(child) {
  if (child.exitCode !== null) return child.exitCode;
  const done = new Promise((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return done;
}

function runNode24(args, timeoutMs = 300_000) {
  return new Promise((resolve) => {
    const child = spawn(node24, args, { env: { ...env, PATH: `${path.dirname(node24)}${path.delimiter}${env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const results = { inspector: [], conformance: {} };

// ── 1. Inspector CLI ─────────────────────────────────────────────────────────
async function inspector(label, target) {
  const list = await runNode24([inspectorJs, '--cli', ...target, '--method', 'tools/list']);
  let tools = [];
  try {
    tools = JSON.parse(list.stdout).tools.map((t) => t.name);
  } catch {
    // reported below
  }
  const call = await runNode24([inspectorJs, '--cli', ...target, '--method', 'tools/call', '--tool-name', 'everything__echo', '--tool-arg', 'message=hello from the inspector']);
  const echoed = call.code === 0 && call.stdout.includes('hello from the inspector');
  const row = { label, listExit: list.code, tools: tools.length, hasEverythingEcho: tools.includes('everything__echo'), hasMemoryReadGraph: tools.includes('memory__read_graph'), callExit: call.code, echoed };
  if (list.code !== 0 || !echoed) row.output = `${list.stderr}\n${call.stdout}\n${call.stderr}`.slice(0, 2000);
  results.inspector.push(row);
}

await inspector('serve --stdio', ['--cwd', ws, process.execPath, cli, 'serve', '--stdio', '--cwd', ws]);
{
  const { child, match } = await start(process.execPath, [cli, 'serve', '--http', '127.0.0.1:0', '--cwd', ws], {
    ready: /serving \d+ servers at (\S+)\n.*Bearer ([\w-]+)"/,
  });
  await inspector('serve --http', [match[1], '--transport', 'http', '--header', `Authorization: Bearer ${match[2]}`]);
  results.httpExit = await stop(child);
}

// ── 2. Conformance suite: direct server-everything vs through lazy-mcp ───────
function parseConformance(stdout) {
  const scenarios = {};
  let current;
  for (const line of stdout.split('\n')) {
    const head = /^=== (.+?) ===$/.exec(line) ?? /^Running (?:scenario|test):?\s+(\S+)/.exec(line);
    if (head) current = head[1];
    const counts = /Passed:\s*(\d+)\/(\d+),\s*(\d+) failed(?:,\s*(\d+) warnings)?/.exec(line);
    if (current && counts) scenarios[current] = { passed: Number(counts[1]), total: Number(counts[2]), failed: Number(counts[3]), warnings: Number(counts[4] ?? 0) };
  }
  const total = /Total:\s*(\d+) passed,\s*(\d+) failed(?:,\s*(\d+) warnings)?/.exec(stdout);
  return { scenarios, total: total ? { passed: Number(total[1]), failed: Number(total[2]), warnings: Number(total[3] ?? 0) } : undefined };
}

async function conformance(label, url) {
  const outDir = path.join(root, `conformance-${label}`);
  const r = await runNode24([conformanceJs, 'server', '--url', url, '-o', outDir], 900_000);
  const parsed = parseConformance(r.stdout);
  results.conformance[label] = { exit: r.code, url, ...parsed, outDir };
  if (!parsed.total) results.conformance[label].output = `${r.stdout}\n${r.stderr}`.slice(-4000);
}

const port = 30_000 + Math.floor(Math.random() * 20_000);
{
  const direct = await start(process.execPath, [everythingJs, 'streamableHttp'], { ready: /listening on port|Server is running|port \d+/i, extraEnv: { PORT: String(port) } });
  await conformance('direct', `http://localhost:${port}/mcp`);
  await stop(direct.child);
}
{
  // The conformance runner cannot send an Authorization header: --no-auth (loopback, testing only).
  const gw = await start(process.execPath, [cli, 'serve', '--http', '127.0.0.1:0', '--no-auth', '--cwd', ws], { ready: /serving \d+ servers at (\S+)/ });
  await conformance('lazy-mcp', gw.match[1].replace('127.0.0.1', 'localhost'));
  results.gatewayExit = await stop(gw.child);
}

// ── Report ───────────────────────────────────────────────────────────────────
console.log('\n## Inspector CLI\n');
console.log('| transport | tools/list exit | tools | everything__echo | memory__read_graph | tools/call exit | echoed |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results.inspector) console.log(`| ${r.label} | ${r.listExit} | ${r.tools} | ${r.hasEverythingEcho} | ${r.hasMemoryReadGraph} | ${r.callExit} | ${r.echoed} |`);
for (const r of results.inspector) if (r.output) console.log(`\n${r.label} output:\n${r.output}`);

console.log('\n## Conformance (server scenarios)\n');
const d = results.conformance.direct;
const g = results.conformance['lazy-mcp'];
for (const [label, c] of Object.entries(results.conformance)) {
  const scenarios = Object.values(c.scenarios);
  const ok = scenarios.filter((s) => s.failed === 0).length;
  console.log(`${label}: ${c.total ? `${c.total.passed} checks passed, ${c.total.failed} failed, ${c.total.warnings} warnings` : 'no summary'}; scenarios ${ok}/${scenarios.length} fully passed (exit ${c.exit})`);
  if (c.output) console.log(c.output);
}
const names = [...new Set([...Object.keys(d.scenarios), ...Object.keys(g.scenarios)])].sort();
const differ = names.filter((n) => JSON.stringify(d.scenarios[n]) !== JSON.stringify(g.scenarios[n]));
console.log(`\nScenarios that differ (${differ.length}):`);
console.log('| scenario | direct passed/total (failed) | lazy-mcp passed/total (failed) |');
console.log('|---|---|---|');
const cell = (s) => (s ? `${s.passed}/${s.total} (${s.failed})` : '—');
for (const n of differ) console.log(`| ${n} | ${cell(d.scenarios[n])} | ${cell(g.scenarios[n])} |`);
const failedOnlyThroughGateway = names.filter((n) => (g.scenarios[n]?.failed ?? 0) > 0 && (d.scenarios[n]?.failed ?? 0) === 0);
console.log(`\nFailing only through lazy-mcp: ${failedOnlyThroughGateway.length ? failedOnlyThroughGateway.join(', ') : 'none'}`);
console.log(`Conformance reports: ${d.outDir}, ${g.outDir}`);
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 2));
process.exit(0);
