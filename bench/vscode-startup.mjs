// `npm run bench:vscode`: Lazy MCP against VS Code's own MCP support, side by side in the real
// VS Code (code-server's VS Code server + headless Chromium, the integration runner's machinery).
// Same three real servers (everything, memory, filesystem from node_modules), same VS Code, same
// run; sides interleaved. Per window start it measures, inside the extension host
// (bench/lib/vscodeStartupProbe.cjs), when every expected tool is in vscode.lm.tools and how many
// server processes were spawned. Configurations:
//   lazy           servers in .copilot/mcp-config.json, Lazy MCP with a warm persisted catalogue
//   native         servers in .vscode/mcp.json, no Lazy MCP; the probe starts them at once with
//                  workbench.mcp.startServer('*', {waitForLiveTools}) (what a chat request does
//                  when VS Code decides to start them)
//   native-cached  the same window, nothing started: what VS Code shows from its own tool cache
//   lazy-uncached, native-uncached  lazy / native again on a new page origin: VS Code's web
//                  workbench keeps its tool cache in per-origin browser storage, so it is empty
// One warm-up launch per workspace first (catalogue / VS Code's tool cache); every measured
// launch reuses that workspace's user data, server data and Chromium profile.
//
// Env: BENCH_RUNS (5) launches per configuration; BENCH_CONFIGS (all) comma-separated subset;
// BENCH_KEEP=1 keeps the run dir under .test-runs/. Writes bench/results/vscode-startup.{json,md}.
import fs from 'node:fs';
import path from 'node:path';
import { HARNESS, REPO, endEverything, freePort, mkdirs, runPhaseHeadless, say } from '../tests/integration/harness.mjs';
import { ensureIntegrationTools } from '../scripts/tools/index.mjs';
import { startupTable } from './lib/vscodeStartupTable.mjs';
import { serverPathMark, writeLazyWorkspace, writeNativeWorkspace } from './lib/vscodeWorkspaces.mjs';

const RUNS = Number(process.env.BENCH_RUNS || 5);
const ONLY = process.env.BENCH_CONFIGS?.split(',');
const PROBE = path.join(REPO, 'bench', 'lib', 'vscodeStartupProbe.cjs');
const MARK = serverPathMark(REPO);
const RESULTS = path.join(REPO, 'bench', 'results');

const CONFIGS = {
  lazy: { side: 'lazy', devPath: REPO, start: false },
  native: { side: 'native', devPath: HARNESS, start: true },
  'native-cached': { side: 'native', devPath: HARNESS, start: false, timeoutMs: 20_000 },
  // a new page origin = empty browser storage: VS Code's tool cache is empty, Lazy MCP's
  // catalogue (in the server's user data) is still warm; as in a new profile or browser
  'lazy-uncached': { side: 'lazy', devPath: REPO, start: false, freshOrigin: true },
  'native-uncached': { side: 'native', devPath: HARNESS, start: true, freshOrigin: true },
};

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    say(`${sig}: ending started processes`);
    endEverything().finally(() => process.exit(1));
  });
}

/** Live server processes of THIS checkout (the path names our node_modules). */
function serverProcesses() {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2] !== 'Z' && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MARK);
    } catch {
      return false;
    }
  });
}

async function launch(runDir, name, config, mode) {
  const sideDir = path.join(runDir, config.side);
  const phaseDir = path.join(runDir, name);
  mkdirs(phaseDir);
  const resultFile = path.join(phaseDir, 'bench.json');
  const testEnv = {
    LAZY_MCP_BENCH_MODE: mode,
    LAZY_MCP_BENCH_START: config.start ? '1' : '0',
    LAZY_MCP_BENCH_SERVERS: '3',
    LAZY_MCP_BENCH_MATCH: MARK,
    LAZY_MCP_BENCH_EXPECTED: path.join(sideDir, 'expected-tools.json'),
    LAZY_MCP_BENCH_RESULT_FILE: resultFile,
    LAZY_MCP_BENCH_TIMEOUT_MS: String(config.timeoutMs ?? 60_000),
  };
  const stateDir = path.join(sideDir, 'state');
  const r = await runPhaseHeadless({
    phase: name,
    tools: launch.tools,
    devPath: config.devPath,
    workspace: path.join(sideDir, 'workspace'),
    phaseDir,
    stateDir,
    testEnv,
    testsPath: PROBE,
    profileDir: path.join(stateDir, 'chromium-profile'),
    // VS Code's web workbench keeps its state (e.g. its MCP tool cache) per page origin
    port: config.freshOrigin ? await freePort() : (launch.ports[config.side] ??= await freePort()),
  });
  // Every server process must be gone once VS Code has stopped.
  const deadline = Date.now() + 5000;
  while (serverProcesses().length > 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  const leftover = serverProcesses();
  for (const pid of leftover) process.kill(Number(pid), 'SIGKILL');
  const probe = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : { error: `no result (exit code ${r.code})` };
  return { name, mode, ...probe, openedAt: r.openedAt, exitCode: r.code, leftover: leftover.length };
}

/** Milliseconds from opening the window / from the extension host's start, per run. */
function metrics(r) {
  const fromOpen = (hostMs) => (hostMs == null ? null : Math.round(r.hostStartEpoch + hostMs - r.openedAt));
  return {
    toolsFromOpen: fromOpen(r.toolsMs),
    toolsFromHost: r.toolsMs == null ? null : Math.round(r.toolsMs),
    liveFromOpen: fromOpen(r.liveMs),
    activeFromHost: r.activeMs == null ? null : Math.round(r.activeMs),
    presentAtRun: r.presentAtRun,
    spawnedAtTools: r.atTools?.spawned,
    spawned: r.end?.spawned,
    aliveAtEnd: r.end?.alive,
    leftover: r.leftover,
    error: r.error?.split('\n')[0],
  };
}

async function main() {
  if (!fs.existsSync(path.join(REPO, 'dist', 'extension.js'))) throw new Error('dist/ is not built (run: npm run build)');
  launch.tools = ensureIntegrationTools();
  launch.ports = {};
  const runDir = path.join(REPO, '.test-runs', `bench-vscode-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  writeLazyWorkspace(REPO, path.join(runDir, 'lazy', 'workspace'));
  writeNativeWorkspace(REPO, path.join(runDir, 'native', 'workspace'));
  const load = [fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]];
  const all = [];
  for (const [name, config] of [['warmup-lazy', CONFIGS.lazy], ['warmup-native', CONFIGS.native]].filter(([, c]) => !ONLY || ONLY.some((x) => x.startsWith(c.side)))) {
    const r = await launch(runDir, name, config, 'warmup');
    say(`${name}: ${r.error ? `ERROR ${r.error.split('\n')[0]}` : `${r.tools} tools, ${r.spawned} server processes spawned`}`);
    if (r.error) throw new Error(`warm-up failed: ${r.error}`);
    all.push(r);
  }
  const byConfig = {};
  for (let i = 0; i < RUNS; i++) {
    // interleaved, order flipped every run, so machine noise and warm caches hit every side alike
    const forward = Object.keys(CONFIGS);
    const order = i % 2 === 0 ? forward : forward.reverse();
    for (const c of order.filter((x) => !ONLY || ONLY.includes(x))) {
      const r = await launch(runDir, `${c}-${i + 1}`, CONFIGS[c], 'measure');
      const m = metrics(r);
      say(`${r.name}: ${JSON.stringify(m)}`);
      all.push(r);
      (byConfig[c] ??= []).push({ name: r.name, ...m });
    }
  }
  load.push(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const expectedOf = (side) => path.join(runDir, side, 'expected-tools.json');
  const expected = Object.fromEntries(['lazy', 'native'].filter((s) => fs.existsSync(expectedOf(s))).map((s) => [s, JSON.parse(fs.readFileSync(expectedOf(s), 'utf8')).length]));
  const lazyCol = (config) => ({ config, label: 'Lazy MCP (warm catalogue)', kind: 'lazy' });
  const md = [
    `VS Code 1.139.1 (code-server 4.139.1's server + headless Chromium), ${new Date().toISOString().slice(0, 16)} UTC, 1-min load ${load.join(' → ')}. \`npm run bench:vscode\`, BENCH_RUNS=${RUNS}: median (min–max) of ${RUNS} launches per column, configurations interleaved. Tools expected in \`vscode.lm.tools\` (names \`mcp_…\`): lazy ${expected.lazy}, native ${expected.native}.`,
    '',
    '**VS Code\'s tool cache warm** (a window reopened on a workspace whose servers ran before):',
    '',
    startupTable({
      byConfig,
      columns: [lazyCol('lazy'), { config: 'native', label: '`.vscode/mcp.json`, started at once', kind: 'started' }, { config: 'native-cached', label: '`.vscode/mcp.json`, nothing started', kind: 'idle' }],
      ratios: [['lazy', 'native'], ['lazy', 'native-cached']],
    }),
    '',
    '**VS Code\'s tool cache empty** (new browser origin, i.e. empty workbench storage; Lazy MCP\'s catalogue still warm):',
    '',
    startupTable({
      byConfig,
      columns: [lazyCol('lazy-uncached'), { config: 'native-uncached', label: '`.vscode/mcp.json`, started at once', kind: 'started' }],
      ratios: [['lazy-uncached', 'native-uncached']],
    }),
    '',
  ].join('\n');
  mkdirs(RESULTS);
  fs.writeFileSync(path.join(RESULTS, 'vscode-startup.json'), `${JSON.stringify({ runs: RUNS, load, expected, byConfig, raw: all }, null, 1)}\n`);
  fs.writeFileSync(path.join(RESULTS, 'vscode-startup.md'), md);
  process.stdout.write(`\n${md}`);
  const leftovers = Object.values(byConfig).flat().reduce((n, m) => n + (m.leftover || 0), 0);
  if (leftovers === 0 && !process.env.BENCH_KEEP) fs.rmSync(runDir, { recursive: true, force: true });
  else say(`run dir kept: ${runDir}`);
}

main().then(
  async () => {
    await endEverything();
    process.exit(0);
  },
  async (err) => {
    await endEverything();
    process.stderr.write(`bench:vscode: ERROR: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
