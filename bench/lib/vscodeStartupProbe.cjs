// extensionTestsPath module for `npm run bench:vscode` (bench/vscode-startup.mjs): runs inside
// VS Code's extension host instead of the test suite, measures one window start and writes
// JSON to LAZY_MCP_BENCH_RESULT_FILE. Plain CommonJS, no build step.
//
// Env (set by bench/vscode-startup.mjs):
//   LAZY_MCP_BENCH_MODE     warmup: start/catalogue everything, wait until the tool list is
//                           stable, record it in LAZY_MCP_BENCH_EXPECTED; measure: time one start
//   LAZY_MCP_BENCH_START    1: ask VS Code to start every MCP server at once
//                           (workbench.mcp.startServer '*' with waitForLiveTools)
//   LAZY_MCP_BENCH_SERVERS  how many server processes a full start spawns (3)
//   LAZY_MCP_BENCH_MATCH    substring of a server process's command line (our node_modules path)
'use strict';

const fs = require('node:fs');
const vscode = require('vscode');

const env = process.env;
const mode = env.LAZY_MCP_BENCH_MODE || 'measure';
const startAll = env.LAZY_MCP_BENCH_START === '1';
const serverCount = Number(env.LAZY_MCP_BENCH_SERVERS) || 3;
const match = env.LAZY_MCP_BENCH_MATCH || '@modelcontextprotocol/server-';
const timeoutMs = Number(env.LAZY_MCP_BENCH_TIMEOUT_MS) || 60_000;
/** Time on the extension host's own clock: ms since its process started. */
const hostMs = () => process.uptime() * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Server processes seen so far (pid → first seen), by scanning /proc: nothing is wrapped. */
function processSampler() {
  const seen = new Map();
  const skipped = new Set();
  const scan = () => {
    let pids;
    try {
      pids = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
    } catch {
      return;
    }
    for (const pid of pids) {
      if (seen.has(pid) || skipped.has(pid)) continue;
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        continue;
      }
      if (cmd.includes(match)) seen.set(pid, { firstSeenMs: hostMs(), cmd: cmd.slice(cmd.indexOf(match)).split(' ')[0] });
      else if (cmd) skipped.add(pid);
    }
  };
  const alive = () => [...seen.keys()].filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2] !== 'Z';
    } catch {
      return false;
    }
  }).length;
  scan();
  // 50 ms: frequent enough to see even a brief cataloguing process (they live 0.4 s and more)
  const timer = setInterval(scan, 50);
  return { scan, alive, spawned: () => seen.size, list: () => [...seen.values()], stop: () => clearInterval(timer) };
}

const mcpToolNames = () => vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('mcp_')).sort();

function lazyState() {
  const ext = vscode.extensions.getExtension('lazy-mcp.lazy-mcp');
  if (!ext) return undefined;
  const api = ext.isActive ? ext.exports : undefined;
  return { active: ext.isActive, servers: api ? api.snapshot().servers.map((s) => `${s.name}:${s.state.kind}`) : [] };
}

/**
 * Asks VS Code to start every server it knows, until the full set of processes runs and the
 * call returns with live tools. Right after start-up the definitions may not be registered
 * yet, and then the call returns at once having started nothing: retry.
 */
async function startEverything(procs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    procs.scan();
    if (procs.alive() >= serverCount) return hostMs();
    if (Date.now() > deadline) throw new Error(`only ${procs.alive()} of ${serverCount} servers started`);
    await sleep(50);
  }
}

async function waitFor(what, predicate, ms = timeoutMs) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
  return hostMs();
}

/** Warm-up: bring everything up once (cataloguing / VS Code's tool cache), record the tools. */
async function warmup(procs) {
  if (startAll) await startEverything(procs);
  else await waitFor('Lazy MCP to catalogue every server', () => (lazyState()?.servers || []).filter((s) => s.endsWith(':CATALOGUED')).length === serverCount);
  let names = mcpToolNames();
  let stableSince = Date.now();
  while (names.length === 0 || Date.now() - stableSince < 3000) {
    await sleep(100);
    const now = mcpToolNames();
    if (now.join() !== names.join()) [names, stableSince] = [now, Date.now()];
  }
  fs.writeFileSync(env.LAZY_MCP_BENCH_EXPECTED, JSON.stringify(names, null, 1));
  // VS Code writes its MCP tool cache only when it saves state (the web workbench: every 5 s
  // when idle, and at shutdown): stay long enough for that to happen.
  await sleep(Number(env.LAZY_MCP_BENCH_LINGER_MS) || 12_000);
  return { tools: names.length, spawned: procs.spawned() };
}

async function measure(procs, runAtMs) {
  const expected = JSON.parse(fs.readFileSync(env.LAZY_MCP_BENCH_EXPECTED, 'utf8'));
  const hasAll = () => {
    const have = new Set(mcpToolNames());
    return expected.every((n) => have.has(n));
  };
  const presentAtRun = hasAll();
  let activeMs = lazyState()?.active ? runAtMs : null;
  const watchActivation = setInterval(() => {
    if (activeMs === null && lazyState()?.active) activeMs = hostMs();
  }, 10);
  const live = startAll ? startEverything(procs) : Promise.resolve(null);
  live.catch(() => {});
  const toolsMs = presentAtRun ? runAtMs : await waitFor(`all ${expected.length} expected tools in vscode.lm.tools`, hasAll);
  procs.scan();
  const atTools = { spawned: procs.spawned(), alive: procs.alive(), lazy: lazyState() };
  const liveMs = await live;
  await sleep(3000); // anything spawned shortly after the tools appeared still counts
  clearInterval(watchActivation);
  procs.scan();
  return {
    expectedTools: expected.length,
    presentAtRun,
    toolsMs,
    liveMs,
    activeMs,
    atTools,
    end: { spawned: procs.spawned(), alive: procs.alive(), lazy: lazyState() },
  };
}

async function run() {
  const runAtMs = hostMs();
  const runAtEpoch = Date.now();
  const procs = processSampler();
  const out = { mode, startAll, runAtMs, runAtEpoch, hostStartEpoch: runAtEpoch - runAtMs };
  try {
    Object.assign(out, mode === 'warmup' ? await warmup(procs) : await measure(procs, runAtMs));
    out.processes = procs.list();
  } catch (err) {
    out.error = String((err && err.stack) || err);
  } finally {
    procs.stop();
    fs.writeFileSync(env.LAZY_MCP_BENCH_RESULT_FILE, JSON.stringify(out, null, 1));
  }
  if (out.error) throw new Error(out.error);
}

module.exports = { run };
