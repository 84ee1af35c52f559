// Verifies `lazy-mcp serve` against real third-party MCP clients and prints the counts:
//   1. the official MCP Inspector CLI: tools/list and tools/call through `serve --stdio` and `serve --http`;
//   2. the MCP conformance suite (`conformance server --url`) against `lazy-mcp serve --http`
//      fronting server-everything AND against server-everything directly, in the same run;
//   3. the same with the conformance suite's newest version that has 2026-07-28 scenarios,
//      scored for that revision (`--requirements 2026-07-28`): the gateway speaks the modern
//      era to its clients while server-everything itself speaks only the legacy one; and a
//      server of that era (the official SDK v2, dual era, Streamable HTTP, offering what the
//      scenarios call: tests/fixtures/servers/sdk2-conformance-server.mjs) directly and through
//      `lazy-mcp serve` (`/mcp/sdk2`), so the 2026-07-28 scenarios compare like for like.
// Both tools need Node >= 22: they run on the Node 24 of scripts/tools/node24.mjs and are
// installed (pinned) into $LAZY_MCP_TOOLS_DIR/verify-clients, never into package.json.
// Usage: node scripts/verify-clients.mjs [--json FILE]     (run `node scripts/build.mjs` first)
// Exit 1 on a regression (see the end of this file), else 0.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24 } from './tools/node24.mjs';
import { toolsDir } from './tools/common.mjs';

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
// Its own prefix: one npm prefix holds one version of a package.
const CONFORMANCE_2026 = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repoRoot, 'dist', 'cli.js');
const everythingJs = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const memoryJs = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const sdk2ConformanceJs = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'sdk2-conformance-server.mjs');
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;

if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run node scripts/build.mjs first');
const node24 = ensureNode24().node;
const prefix = path.join(toolsDir(), 'verify-clients');
const inspectorJs = path.join(prefix, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const conformanceJs = path.join(prefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const prefix2026 = path.join(toolsDir(), 'verify-clients-modern');
const conformance2026Js = path.join(prefix2026, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
function install(where, packages) {
  console.error(`• installing ${packages.join(' and ')} into ${where}`);
  fs.mkdirSync(where, { recursive: true });
  execFileSync('npm', ['install', '--prefix', where, '--no-audit', '--no-fund', '--no-save', ...packages], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PATH: `${path.dirname(node24)}${path.delimiter}${process.env.PATH}` },
  });
}
if (!fs.existsSync(inspectorJs) || !fs.existsSync(conformanceJs)) install(prefix, [INSPECTOR, CONFORMANCE]);
if (!fs.existsSync(conformance2026Js)) install(prefix2026, [CONFORMANCE_2026]);

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

const results = { inspector: [], conformance: {}, conformance2026: {} };

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

// The workspaces are this script's own fixtures: their project servers are approved
// up front (--trust-project), as a user approves a repository they trust.
await inspector('serve --stdio', ['--cwd', ws, process.execPath, cli, 'serve', '--stdio', '--trust-project', '--cwd', ws]);
{
  const { child, match } = await start(process.execPath, [cli, 'serve', '--http', '127.0.0.1:0', '--trust-project', '--cwd', ws], {
    ready: /serving \d+ servers? at (\S+)\n.*Bearer ([\w-]+)"/,
  });
  await inspector('serve --http', [match[1], '--transport', 'http', '--header', `Authorization: Bearer ${match[2]}`]);
  results.httpExit = await stop(child);
}

// ── 2. Conformance suite: direct server-everything vs through lazy-mcp ───────
// Results are read from the per-scenario checks.json files the runner writes.
function readConformance(outDir) {
  const scenarios = {};
  for (const dir of fs.existsSync(outDir) ? fs.readdirSync(outDir) : []) {
    const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    const file = path.join(outDir, dir, 'checks.json');
    // A scenario that did not finish (e.g. the server hung up on it) leaves no checks.json.
    const checks = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [{ status: 'FAILURE', errorMessage: 'the scenario did not finish (no checks.json)' }];
    const failed = checks.filter((c) => c.status === 'FAILURE');
    scenarios[name] = {
      passed: failed.length === 0,
      checks: checks.length,
      failedChecks: failed.length,
      errors: failed.map((c) => c.errorMessage ?? c.description).filter(Boolean),
    };
  }
  const list = Object.values(scenarios);
  return {
    scenarios,
    scenariosPassed: list.filter((x) => x.passed).length,
    scenariosFailed: list.filter((x) => !x.passed).length,
    checksPassed: list.reduce((n, x) => n + x.checks - x.failedChecks, 0),
    checksFailed: list.reduce((n, x) => n + x.failedChecks, 0),
  };
}

async function conformance(label, url) {
  const outDir = path.join(root, `conformance-${label}`);
  const r = await runNode24([conformanceJs, 'server', '--url', url, '-o', outDir], 900_000);
  results.conformance[label] = { exit: r.code, url, outDir, ...readConformance(outDir) };
}

/** The 2026-07-28 requirements (scored scenarios only; extensions and pending ones are left out). */
async function conformance2026(label, url) {
  const outDir = path.join(root, `conformance-2026-${label.replaceAll('/', '_')}`);
  const r = await runNode24([conformance2026Js, 'server', '--url', url, '--requirements', '2026-07-28', '-o', outDir], 900_000);
  const unscored = new Set([...r.stdout.matchAll(/^\s+[✗✓] (\S+) \((?:extension|pending)\)$/gmu)].map((m) => m[1]));
  const all = readConformance(outDir);
  const scenarios = Object.fromEntries(Object.entries(all.scenarios).filter(([name]) => !unscored.has(name)));
  const list = Object.values(scenarios);
  results.conformance2026[label] = {
    exit: r.code,
    url,
    outDir,
    unscored: [...unscored].sort(),
    scenarios,
    scenariosPassed: list.filter((x) => x.passed).length,
    scenariosFailed: list.filter((x) => !x.passed).length,
    checksPassed: list.reduce((n, x) => n + x.checks - x.failedChecks, 0),
    checksFailed: list.reduce((n, x) => n + x.failedChecks, 0),
  };
}

// The gateway fronts server-everything only, so the suite sees one server's tools, prompts and resources.
const cws = path.join(root, 'conformance-ws');
fs.mkdirSync(cws, { recursive: true });
fs.writeFileSync(path.join(cws, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingJs, 'stdio'] } } }));
const port = 30_000 + Math.floor(Math.random() * 20_000);
{
  const direct = await start(process.execPath, [everythingJs, 'streamableHttp'], { ready: /listening on port|Server is running|port \d+/i, extraEnv: { PORT: String(port) } });
  await conformance('direct', `http://localhost:${port}/mcp`);
  await conformance2026('direct', `http://localhost:${port}/mcp`);
  await stop(direct.child);
}
{
  // The conformance runner cannot send an Authorization header: --no-auth (loopback, testing only).
  const gw = await start(process.execPath, [cli, 'serve', '--http', '127.0.0.1:0', '--trust-project', '--no-auth', '--cwd', cws], { ready: /serving \d+ servers? at (\S+)/ });
  const base = gw.match[1].replace('127.0.0.1', 'localhost');
  await conformance('lazy-mcp /mcp', base);
  await conformance('lazy-mcp /mcp/everything', `${base}/everything`);
  await conformance2026('lazy-mcp /mcp', base);
  await conformance2026('lazy-mcp /mcp/everything', `${base}/everything`);
  results.gatewayExit = await stop(gw.child);
}
{
  // A 2026-07-28 server, directly and behind the gateway (its own, so /mcp above is unchanged).
  const sdk2 = await start(process.execPath, [sdk2ConformanceJs], { ready: /listening (\d+)/ });
  const sdk2Url = `http://localhost:${sdk2.match[1]}/mcp`;
  await conformance2026('sdk2 direct', sdk2Url);
  const sws = path.join(root, 'conformance-sdk2-ws');
  fs.mkdirSync(sws, { recursive: true });
  fs.writeFileSync(path.join(sws, '.mcp.json'), JSON.stringify({ mcpServers: { sdk2: { type: 'http', url: sdk2Url } } }));
  const gw = await start(process.execPath, [cli, 'serve', '--http', '127.0.0.1:0', '--trust-project', '--no-auth', '--cwd', sws], { ready: /serving \d+ servers? at (\S+)/ });
  await conformance2026('lazy-mcp /mcp/sdk2', `${gw.match[1].replace('127.0.0.1', 'localhost')}/sdk2`);
  results.sdk2GatewayExit = await stop(gw.child);
  await stop(sdk2.child);
}

// ── Report ───────────────────────────────────────────────────────────────────
console.log('\n## Inspector CLI\n');
console.log('| transport | tools/list exit | tools | everything__echo | memory__read_graph | tools/call exit | echoed |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results.inspector) console.log(`| ${r.label} | ${r.listExit} | ${r.tools} | ${r.hasEverythingEcho} | ${r.hasMemoryReadGraph} | ${r.callExit} | ${r.echoed} |`);
for (const r of results.inspector) if (r.output) console.log(`\n${r.label} output:\n${r.output}`);

console.log('\n## Conformance (server scenarios, one run)\n');
console.log('| target | scenarios passed | scenarios failed | checks passed | checks failed |');
console.log('|---|---|---|---|---|');
for (const [label, c] of Object.entries(results.conformance)) console.log(`| ${label} (${c.url}) | ${c.scenariosPassed} | ${c.scenariosFailed} | ${c.checksPassed} | ${c.checksFailed} |`);
const labels = Object.keys(results.conformance);
const d = results.conformance.direct;
const names = [...new Set(labels.flatMap((l) => Object.keys(results.conformance[l].scenarios)))].sort();
const differ = names.filter((n) => new Set(labels.map((l) => results.conformance[l].scenarios[n]?.passed)).size > 1);
console.log(`\nScenarios whose outcome differs (${differ.length}):\n`);
console.log(`| scenario | ${labels.join(' | ')} |`);
console.log(`|---|${labels.map(() => '---').join('|')}|`);
const cell = (s) => (!s ? '—' : s.passed ? 'pass' : `FAIL: ${(s.errors[0] ?? '').slice(0, 90).replaceAll('|', '\\|')}`);
for (const n of differ) console.log(`| ${n} | ${labels.map((l) => cell(results.conformance[l].scenarios[n])).join(' | ')} |`);
console.log(`\nConformance reports: ${labels.map((l) => results.conformance[l].outDir).join(', ')}`);

console.log(`\n## Conformance ${CONFORMANCE_2026.split('@').pop()}, 2026-07-28 requirements (scored scenarios, one run)\n`);
console.log('| target | scenarios passed | scenarios failed | checks passed | checks failed |');
console.log('|---|---|---|---|---|');
for (const [label, c] of Object.entries(results.conformance2026)) console.log(`| ${label} (${c.url}) | ${c.scenariosPassed} | ${c.scenariosFailed} | ${c.checksPassed} | ${c.checksFailed} |`);
const differing = (labels) => {
  const all = [...new Set(labels.flatMap((l) => Object.keys(results.conformance2026[l].scenarios)))].sort();
  return { all, differ: all.filter((n) => new Set(labels.map((l) => results.conformance2026[l].scenarios[n]?.passed)).size > 1) };
};
const labels2026 = ['direct', 'lazy-mcp /mcp', 'lazy-mcp /mcp/everything'];
const { all: names2026, differ: differ2026 } = differing(labels2026);
const sdk2Labels = ['sdk2 direct', 'lazy-mcp /mcp/sdk2'];
const { all: sdk2Names, differ: sdk2Differ } = differing(sdk2Labels);
for (const [what, labels, differ] of [
  ['server-everything (legacy)', labels2026, differ2026],
  ['the SDK v2 server (2026-07-28)', sdk2Labels, sdk2Differ],
]) {
  console.log(`\n2026-07-28 scenarios whose outcome differs for ${what} (${differ.length}):\n`);
  console.log(`| scenario | ${labels.join(' | ')} |`);
  console.log(`|---|${labels.map(() => '---').join('|')}|`);
  for (const n of differ) console.log(`| ${n} | ${labels.map((l) => cell(results.conformance2026[l].scenarios[n])).join(' | ')} |`);
}
// Differences by design, with the reason (docs/protocol-eras.md): not regressions.
const SDK2_BY_DESIGN = {
  'input-required-result-basic-list-roots': 'Lazy MCP answers roots/list itself (the workspace folders), so the client is not asked',
  'input-required-result-multiple-input-requests': 'the roots request of the round is answered by Lazy MCP; the client gets the other two',
};
for (const [n, why] of Object.entries(SDK2_BY_DESIGN)) if (sdk2Differ.includes(n)) console.log(`\n${n}: by design: ${why}.`);
console.log(`\nNot scored for 2026-07-28 (extensions, pending): ${results.conformance2026.direct?.unscored.join(', ') ?? '—'}`);
console.log(`lazy-mcp exit codes after SIGTERM: http ${results.httpExit}, conformance gateways ${results.gatewayExit}, ${results.sdk2GatewayExit}`);
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 2));

// Exit 1 on a regression: an inspector run failed, or lazy-mcp's per-server endpoint fails a
// scenario the server passes directly, or the DNS-rebinding check fails through lazy-mcp.
const perServer = results.conformance['lazy-mcp /mcp/everything'].scenarios;
const regressions = [
  ...results.inspector.filter((r) => r.listExit !== 0 || !r.echoed).map((r) => `inspector ${r.label}`),
  ...names.filter((n) => d.scenarios[n]?.passed && !perServer[n]?.passed).map((n) => `conformance ${n} (direct passes, /mcp/everything fails)`),
  ...(perServer['dns-rebinding-protection']?.passed ? [] : ['conformance dns-rebinding-protection through lazy-mcp']),
  // 2026-07-28: what the server passes directly, the gateway passes too.
  ...names2026
    .filter((n) => results.conformance2026.direct.scenarios[n]?.passed && !results.conformance2026['lazy-mcp /mcp/everything'].scenarios[n]?.passed)
    .map((n) => `conformance 2026-07-28 ${n} (direct passes, /mcp/everything fails)`),
  // The same for a server of the 2026-07-28 era, less the differences by design.
  ...sdk2Names
    .filter((n) => !(n in SDK2_BY_DESIGN))
    .filter((n) => results.conformance2026['sdk2 direct'].scenarios[n]?.passed && !results.conformance2026['lazy-mcp /mcp/sdk2'].scenarios[n]?.passed)
    .map((n) => `conformance 2026-07-28 ${n} (sdk2 direct passes, /mcp/sdk2 fails)`),
];
console.log(regressions.length ? `\nREGRESSIONS:\n  ${regressions.join('\n  ')}` : '\nNo regressions.');
process.exit(regressions.length ? 1 : 0);
