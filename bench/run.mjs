// `npm run bench`: eager MCP startup (the official SDK client, as clients do it
// today) against Lazy MCP (the real host: WASM engine + loopback gateway), side
// by side in one run on the same real servers, interleaved so machine noise hits
// both sides. Prints markdown tables with ratios and targets, writes
// bench/results/bench.json and draws bench/results/startup.svg.
//
// Environment: BENCH_RUNS (5) repetitions of every comparison; BENCH_CALLS (300)
// sequential warm calls per side per run; BENCH_THROUGHPUT_CALLS (300) and
// BENCH_CONCURRENCY (8); BENCH_GROWTH_N ("10,50,100"); BENCH_GROWTH_RUNS (2);
// BENCH_EAGER_BOUND_MS (60000) bound on one eager start in the growth rows;
// BENCH_CATALOGUE_CONCURRENCY (6); BENCH_SECTIONS ("startup,first,warm,growth,hot");
// BENCH_HOT_CPU_CALLS (2000) calls whose gateway CPU is measured; BENCH_LARGE_RUNS (5);
// BENCH_CPU_PROF_DIR: write a --cpu-prof profile of the section-6 gateway process there.
import { spawn as spawnChild } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import net from 'node:net';
import http from 'node:http';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { eagerStart } from './lib/eager.mjs';
import { benchServers, descendantPids, repoRoot, rssOfPids } from './lib/servers.mjs';
import { bundleHost, connectGateway, lazyStart, makeWorkspace, newHost, spawnCounter, waitForAll } from './lib/lazy.mjs';
import { median, summary } from './lib/stats.mjs';
import { renderChart } from './lib/chart.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';
import { bigMessage, echoedIntact, processCpuNs, rawStdioSession, startGatewayProcess, startMinimalProxy } from './lib/hotPath.mjs';

const env = process.env;
const cfg = {
  runs: Number(env.BENCH_RUNS || 5),
  calls: Number(env.BENCH_CALLS || 300),
  throughputCalls: Number(env.BENCH_THROUGHPUT_CALLS || 300),
  concurrency: Number(env.BENCH_CONCURRENCY || 8),
  growthN: (env.BENCH_GROWTH_N || '10,50,100').split(',').map(Number).filter((n) => n > 0),
  growthRuns: Number(env.BENCH_GROWTH_RUNS || 2),
  eagerBoundMs: Number(env.BENCH_EAGER_BOUND_MS || 60_000),
  catalogueConcurrency: Number(env.BENCH_CATALOGUE_CONCURRENCY || 6),
  sections: new Set((env.BENCH_SECTIONS || 'startup,first,warm,growth,hot').split(',')),
  hotCpuCalls: Number(env.BENCH_HOT_CPU_CALLS || 2000),
  largeRuns: Number(env.BENCH_LARGE_RUNS || 5),
  cpuProfDir: env.BENCH_CPU_PROF_DIR || undefined,
};
// Eager clients start all servers at once; the lazy host gets the same parallelism
// for cataloguing (its default is 2) so the cold row compares like with like.
const settings = { catalogueConcurrency: cfg.catalogueConcurrency };

const distCore = path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js');
if (!fs.existsSync(distCore)) {
  console.error('dist/core is missing: run `npm run build` first.');
  process.exit(1);
}

const resultsDir = path.join(repoRoot, 'bench', 'results');
const tinyServer = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
const workerScript = path.join(repoRoot, 'bench', 'lib', 'lazyWarmWorker.mjs');
const benchT0 = performance.now();
const log = (msg) => process.stderr.write(`[${((performance.now() - benchT0) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);
const tokens = (value) => encode(JSON.stringify(value)).length;
const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- processes

const closers = new Set();
/** Register something to close if the run fails; returns a function that closes and forgets it. */
function track(close) {
  const entry = { close };
  closers.add(entry);
  return async () => {
    closers.delete(entry);
    await close();
  };
}

let strayKills = 0;
/** Wait until no process started by this benchmark is alive; SIGKILL stragglers after `graceMs`. */
async function settle(graceMs = 15_000) {
  const deadline = Date.now() + graceMs;
  while (descendantPids(process.pid).length && Date.now() < deadline) await sleep(20);
  const left = descendantPids(process.pid);
  for (const pid of left) {
    let cmd = '?';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160);
    } catch {
      // gone
    }
    log(`still alive ${graceMs} ms after close, killing: ${pid} ${cmd}`);
    try {
      process.kill(pid, 'SIGKILL');
      strayKills++;
    } catch {
      // gone meanwhile
    }
  }
  if (left.length) log(`killed ${left.length} process(es) still alive ${graceMs} ms after close`);
  while (descendantPids(process.pid).length) await sleep(20);
}

async function cleanupAll() {
  for (const entry of [...closers].reverse()) await Promise.race([entry.close().catch(() => {}), sleep(5_000)]);
  closers.clear();
  for (const pid of descendantPids(process.pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping everything`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- measurements

async function measureEager(servers) {
  const run = await eagerStart(servers);
  const close = track(run.close);
  await close();
  await settle();
  return run;
}

/** Cold lazy start: empty catalogue store; until every server is CATALOGUED and listed via the gateway. */
async function measureCold(workspace, catalogueFile) {
  fs.rmSync(catalogueFile, { force: true });
  const spawnsBefore = spawnCounter.count;
  const run = await lazyStart(mods, workspace, catalogueFile, settings);
  const spawns = spawnCounter.count - spawnsBefore;
  const close = track(run.close);
  const after = descendantPids(process.pid);
  const processesAfter = after.length;
  const rssAfter = rssOfPids(after);
  const tList = performance.now();
  while (descendantPids(process.pid).length && performance.now() - tList < 10_000) await sleep(5);
  const msToZero = performance.now() - tList;
  await close();
  await settle();
  return { ms: run.ms, tools: run.tools, spawns, processes: processesAfter, rssBytes: rssAfter, msToZeroProcesses: msToZero };
}

/** Warm lazy start in this process (a fresh WASM instance; JIT as warm as the eager client's). */
async function measureWarm(workspace, catalogueFile) {
  const copy = `${catalogueFile}.warm.json`;
  fs.copyFileSync(catalogueFile, copy);
  const spawnsBefore = spawnCounter.count;
  const run = await lazyStart(mods, workspace, copy, settings, { timeoutMs: 10_000 });
  const close = track(run.close);
  const spawns = spawnCounter.count - spawnsBefore;
  const pids = descendantPids(process.pid);
  // Context: the same list with a bare HTTP client, to separate gateway time from SDK client time.
  const raw = await rawSession(run.host.endpointUrl(''), run.host.gatewayToken);
  const tRaw = performance.now();
  const rawTools = (await raw.request('tools/list')).tools.length;
  const rawListMs = performance.now() - tRaw;
  await raw.close();
  if (rawTools !== run.tools.length) throw new Error(`bare client listed ${rawTools} tools, SDK client ${run.tools.length}`);
  await close();
  await settle();
  return { ms: run.ms, phases: run.phases, rawListMs, tools: run.tools.length, spawns, processes: pids.length, serverRssBytes: rssOfPids(pids) };
}

/** Warm lazy start in a fresh Node process (cold JIT, fresh WASM instance, the SDK client too). */
function measureWarmProcess(workspace, catalogueFile) {
  const copy = `${catalogueFile}.warm.json`;
  fs.copyFileSync(catalogueFile, copy);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawnChild(process.execPath, [workerScript, JSON.stringify({ workspace, catalogueFile: copy, settings })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`warm worker exited with ${code}: ${err.trim()}`));
      resolve({ ...JSON.parse(out.trim().split('\n').pop()), processWallMs: performance.now() - t0 });
    });
  });
}

/** Rotate the order of the sides each run so that no side always goes first. */
async function interleaved(r, sides) {
  const out = {};
  const order = sides.map((_, i) => sides[(i + r) % sides.length]);
  for (const [name, fn] of order) out[name] = await fn();
  return out;
}

async function stdioClient(spec) {
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...process.env, ...(spec.env ?? {}) }, stderr: 'ignore' });
  const client = new Client({ name: 'direct-baseline', version: '1' });
  await client.connect(transport);
  return client;
}

/** server-everything in its own Streamable HTTP mode, for a reference row: the HTTP transport cost without our gateway. */
async function everythingOverHttp() {
  const port = await new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = srv.address().port;
      srv.close(() => resolve(p));
    });
  });
  const serverJs = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const child = spawnChild(process.execPath, [serverJs, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server-everything streamableHttp did not start: ${err}`)), 30_000);
    child.stderr.on('data', (d) => {
      err += d;
      if (/listening on port/i.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`server-everything streamableHttp exited with ${code}: ${err}`)));
  }).catch((e) => {
    kill();
    throw e;
  });
  const client = new Client({ name: 'direct-http-baseline', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return { client, close: async () => { await client.close().catch(() => {}); kill(); } };
}

/** A Node http server that answers every JSON-RPC POST at once, and a bare client for it: the loopback HTTP floor. */
async function loopbackFloor() {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: `Echo: ${msg.params?.arguments?.message}` }] } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let id = 0;
  const call = () =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } });
      const req = http.request(
        { agent, host: '127.0.0.1', port: server.address().port, path: '/mcp', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')).result));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    call,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const okResult = (res, what) => {
  if (res.isError) throw new Error(`${what} failed: ${JSON.stringify(res.content).slice(0, 300)}`);
  return res;
};

function p99(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)];
}

async function throughput(call, count, concurrency) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await call();
      }
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

function withBound(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: over the ${ms} ms bound`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

// ---------------------------------------------------------------- formatting

const ms1 = (x) => (x >= 100 ? `${x.toFixed(0)} ms` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`);
const sMs = (s) => `${ms1(s.median)} (${ms1(s.min)}–${ms1(s.max)})`;
const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;
const sMb = (s) => `${mb(s.median)} (${mb(s.min)}–${mb(s.max)})`;
const ratio = (x) => (x >= 0.1 ? `${x.toFixed(2)}×` : `${(x * 100).toFixed(2)} %`);
/** Ratio of each run's pair (interleaved in the same run): median (min–max). */
const paired = (as, bs) => summary(as.map((a, i) => a / bs[i]));
const sRatio = (x) => `${ratio(x.median)} (${ratio(x.min)}–${ratio(x.max)})`;
const verdict = (met) => (met ? 'met' : 'MISSED');
const targets = [];
function target(name, met, value, goal) {
  targets.push({ name, met, value, goal });
  return `${verdict(met)} (${value}; target ${goal})`;
}

// ---------------------------------------------------------------- run

const results = { date: new Date().toISOString(), loadAverageAtStart: os.loadavg(), node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, config: { ...cfg, sections: [...cfg.sections], settings } };
const tables = [];
let mods;

async function main() {
  log(`bundling the host; runs=${cfg.runs}, catalogueConcurrency=${cfg.catalogueConcurrency}`);
  mods = await bundleHost();
  const servers = benchServers();
  const workspace = makeWorkspace(servers, 'six');
  const catalogueFile = path.join(workspace.root, 'storage', 'catalogue.json');
  const names = Object.keys(servers);

  // Preparation, not measured: one cold start builds the persisted catalogue (and
  // brings every server's files into the page cache for both sides).
  // Section 6 runs its own gateway process and needs no catalogue.
  if (['startup', 'first', 'warm', 'growth'].some((x) => cfg.sections.has(x))) {
    log('preparing: one unmeasured cold start');
    await measureCold(workspace, catalogueFile);
  }

  if (cfg.sections.has('startup')) {
    const eager = [];
    const cold = [];
    const warm = [];
    const warmProcess = [];
    for (let r = 0; r < cfg.runs; r++) {
      log(`startup run ${r + 1}/${cfg.runs}`);
      const out = await interleaved(r, [
        ['eager', () => measureEager(servers)],
        ['cold', () => measureCold(workspace, catalogueFile)],
        ['warm', () => measureWarm(workspace, catalogueFile)],
        ['warmProcess', () => measureWarmProcess(workspace, catalogueFile)],
      ]);
      eager.push(out.eager);
      cold.push(out.cold);
      warm.push(out.warm);
      warmProcess.push(out.warmProcess);
    }
    const e = summary(eager.map((x) => x.ms));
    const c = summary(cold.map((x) => x.ms));
    const w = summary(warm.map((x) => x.ms));
    const wProc = summary(warmProcess.map((x) => x.processWallMs));
    const wFresh = summary(warmProcess.map((x) => x.ms));
    const phase = (k) => median(warm.map((x) => x.phases[k]));
    const freshPhase = (k) => median(warmProcess.map((x) => x.phases[k]));
    const eProcs = summary(eager.map((x) => x.processes));
    const eRss = summary(eager.map((x) => x.rssBytes));
    const cProcs = summary(cold.map((x) => x.processes));
    const cRss = summary(cold.map((x) => x.rssBytes));
    const cZero = summary(cold.map((x) => x.msToZeroProcesses));
    const wSpawns = Math.max(...warm.map((x) => x.spawns), ...warmProcess.map((x) => x.spawns));
    const wProcs = Math.max(...warm.map((x) => x.processes), ...warmProcess.map((x) => x.processes));
    const hostRss = summary(warmProcess.map((x) => x.hostRssBytes));
    const toolCounts = { eager: eager[0].tools.length, cold: cold[0].tools.length, warm: warm[0].tools };
    results.startup = { eager, cold: cold.map(({ tools, ...x }) => ({ ...x, tools: tools.length })), warm, warmFreshProcess: warmProcess, summary: { eagerMs: e, coldMs: c, warmMs: w, warmFreshProcessMs: wFresh, warmProcessWallMs: wProc }, toolCounts };
    results.startup.eager = eager.map(({ ms, processes, rssBytes, tools }) => ({ ms, processes, rssBytes, tools: tools.length }));
    tables.push(`### 1. Startup to "all tools listed" (${names.length} real servers: ${names.join(', ')})

| | eager (SDK client) | lazy cold (empty catalogue) | lazy warm (persisted catalogue) |
|---|---|---|---|
| wall time, median (min–max) of ${cfg.runs} | ${sMs(e)} | ${sMs(c)} | ${sMs(w)} |
| ratio to eager (of the medians) | 1 | ${ratio(c.median / e.median)} | ${ratio(w.median / e.median)} |
| ratio to eager within each run: median (min–max) | 1 | ${sRatio(paired(cold.map((x) => x.ms), eager.map((x) => x.ms)))} | ${sRatio(paired(warm.map((x) => x.ms), eager.map((x) => x.ms)))} |
| ratio of the fastest runs (min / min) | 1 | ${ratio(c.min / e.min)} | ${ratio(w.min / e.min)} |
| tools listed | ${toolCounts.eager} | ${toolCounts.cold} (via gateway) | ${toolCounts.warm} (via gateway) |
| processes spawned by the start (max over runs) | ${eProcs.max} | ${Math.max(...cold.map((x) => x.spawns))} (cataloguing) | ${wSpawns} |
| server processes alive right after | ${eProcs.median} | ${cProcs.median} (max ${cProcs.max}); 0 after ${sMs(cZero)} | ${wProcs} |
| their RSS right after | ${sMb(eRss)} | ${sMb(cRss)} | 0 MB |
| lazy warm, phases (medians): host construct / start (config + WASM + catalogue) / CATALOGUED / client connect / tools/list | | | ${['construct', 'start', 'catalogued', 'connect', 'list'].map((k) => ms1(phase(k))).join(' / ')} |
| context: a second tools/list on the warm host with the bare HTTP client (no SDK parsing) | | | ${sMs(summary(warm.map((x) => x.rawListMs)))} |
| context: the same warm start in a fresh \`node\` process (cold JIT for the host and the SDK client) | | | ${sMs(wFresh)}; phases ${['construct', 'start', 'catalogued', 'connect', 'list'].map((k) => ms1(freshPhase(k))).join(' / ')} |
| context: fresh \`node\` process spawn → tools listed, wall | | | ${sMs(wProc)} |
| context: that whole process's RSS (Node + host + WASM core + gateway + SDK client) | | | ${sMb(hostRss)} |

- warm start ≤ 2 % of eager with 0 spawns: ${target('warm start ≤ 2% of eager, 0 spawns', w.median <= 0.02 * e.median && wSpawns === 0, `${ratio(w.median / e.median)} of eager, ${wSpawns} spawns`, '≤ 2 %, 0 spawns')}
- cold start ≤ 1.1× eager: ${target('cold start ≤ 1.1× eager', c.median <= 1.1 * e.median, ratio(c.median / e.median), '≤ 1.10×')}
- cold: 0 server processes right after listing: ${target('cold: 0 processes after', cProcs.max === 0, `${cProcs.max} at most, all gone within ${ms1(cZero.max)}`, '0')}
`);

    // 2. Tokens: what a client receives at session start.
    log('tool-schema tokens');
    const byServer = new Map();
    for (const { server, tool } of eager[0].tools) byServer.set(server, [...(byServer.get(server) ?? []), tool]);
    const directTok = [...byServer.values()].reduce((sum, tools) => sum + tokens({ tools }), 0);
    const directBytes = [...byServer.values()].reduce((sum, tools) => sum + bytes({ tools }), 0);
    const aggTools = cold[cold.length - 1].tools;
    const aggTok = tokens({ tools: aggTools });
    const warmHost = newHost(mods, workspace, catalogueFile, settings);
    const stopWarm = track(() => warmHost.stop());
    await warmHost.start();
    await waitForAll(warmHost, names, 'CATALOGUED', 10_000);
    let perTok = 0;
    let perBytes = 0;
    let perCount = 0;
    let sameTok = 0;
    let sameCount = 0;
    for (const name of names) {
      const client = await connectGateway(warmHost, name);
      const { tools } = await client.listTools();
      perTok += tokens({ tools });
      perBytes += bytes({ tools });
      perCount += tools.length;
      // The engine's client declares roots/sampling/elicitation, so some servers
      // (server-everything) offer it more tools than the bare SDK client sees.
      const directNames = new Set((byServer.get(name) ?? []).map((t) => t.name));
      const same = tools.filter((t) => directNames.has(t.name));
      sameTok += tokens({ tools: same });
      sameCount += same.length;
      await client.close();
    }
    const spawnedForLists = descendantPids(process.pid).length;
    await stopWarm();
    await settle();
    results.tokens = { encoding: 'o200k_base', gatewaySameToolsAsDirect: { tools: sameCount, tokens: sameTok }, direct: { tools: eager[0].tools.length, bytes: directBytes, tokens: directTok }, gatewayAggregate: { tools: aggTools.length, bytes: bytes({ tools: aggTools }), tokens: aggTok }, gatewayPerServer: { tools: perCount, bytes: perBytes, tokens: perTok }, processesAliveAfterLists: spawnedForLists };
    tables.push(`### 2. Tool-schema tokens a client receives at session start (gpt-tokenizer, o200k_base; JSON of each tools/list result)

| | tools | bytes | tokens | ratio to direct |
|---|---|---|---|---|
| direct: six tools/list results from the servers | ${eager[0].tools.length} | ${directBytes} | ${directTok} | 1 |
| gateway, aggregate endpoint (\`server__tool\` names), one tools/list | ${aggTools.length} | ${bytes({ tools: aggTools })} | ${aggTok} | ${ratio(aggTok / directTok)} |
| gateway, one endpoint per server (what VS Code sees), six tools/list | ${perCount} | ${perBytes} | ${perTok} | ${ratio(perTok / directTok)} |
| the same, only the tools the direct client was offered | ${sameCount} | | ${sameTok} | ${ratio(sameTok / directTok)} |

The gateway lists more tools than the direct SDK client: the engine's client declares roots, sampling and elicitation, and server-everything then offers 3 more tools. ${sameTok === directTok ? 'For the same tools the tokens are identical: the catalogue passes tool schemas through unchanged, so at session start Lazy MCP saves processes and time here, not schema tokens.' : `For the same tools the gateway sends ${sameTok - directTok} tokens more.`}

Listing through the gateway from the catalogue left ${spawnedForLists} server processes alive.
`);
  }

  if (cfg.sections.has('first')) {
    const cases = [
      { server: 'memory', tool: 'read_graph', args: {} },
      { server: 'time', tool: 'get_current_time', args: { timezone: 'UTC' } },
    ];
    const rows = [];
    results.firstCall = {};
    for (const { server, tool, args } of cases) {
      const direct = [];
      const gateway = [];
      for (let r = 0; r < cfg.runs; r++) {
        log(`first call ${server}.${tool} run ${r + 1}/${cfg.runs}`);
        const out = await interleaved(r, [
          [
            'direct',
            async () => {
              const t0 = performance.now();
              const client = await stdioClient(servers[server]);
              const close = track(() => client.close());
              okResult(await client.callTool({ name: tool, arguments: args }), tool);
              const ms = performance.now() - t0;
              await close();
              await settle();
              return ms;
            },
          ],
          [
            'gateway',
            async () => {
              const host = newHost(mods, workspace, catalogueFile, settings);
              const stop = track(() => host.stop());
              await host.start();
              await waitForAll(host, names, 'CATALOGUED', 10_000);
              const client = await connectGateway(host, server);
              if (descendantPids(process.pid).length) throw new Error('a warm host spawned before the first call');
              const t0 = performance.now();
              okResult(await client.callTool({ name: tool, arguments: args }), tool);
              const ms = performance.now() - t0;
              const spawned = descendantPids(process.pid).length;
              await client.close();
              await stop();
              await settle();
              return { ms, spawned };
            },
          ],
        ]);
        direct.push(out.direct);
        gateway.push(out.gateway);
      }
      const d = summary(direct);
      const g = summary(gateway.map((x) => x.ms));
      const spawned = Math.max(...gateway.map((x) => x.spawned));
      results.firstCall[`${server}.${tool}`] = { directMs: direct, gatewayMs: gateway.map((x) => x.ms), processesAfterGatewayCall: spawned, summary: { direct: d, gateway: g } };
      rows.push(
        `| ${server} \`${tool}\` | ${sMs(d)} | ${sMs(g)} | ${ratio(g.median / d.median)}; within runs ${sRatio(paired(gateway.map((x) => x.ms), direct))} | ${spawned} | ${target(`first call ${server}.${tool} ≤ 1.1× direct`, g.median <= 1.1 * d.median, ratio(g.median / d.median), '≤ 1.10×')} |`,
      );
    }
    tables.push(`### 3. First call to a tool: direct (SDK: spawn + initialize + call) vs through the gateway from CATALOGUED (warm host, client connected; the call spawns)

| tool | direct, median (min–max) of ${cfg.runs} | gateway | ratio of the medians; within each run median (min–max) | server processes after the gateway call | target |
|---|---|---|---|---|---|
${rows.join('\n')}
`);
  }

  if (cfg.sections.has('warm')) {
    log('warm calls: connecting every side to server-everything');
    const args = { message: 'hello' };
    const callParams = { name: 'echo', arguments: args };
    const sdkCall = (client) => async () => okResult(await client.callTool(callParams), 'echo');
    const rawCall = (session) => async () => okResult(await session.request('tools/call', callParams), 'echo');

    const direct = await stdioClient(servers.everything);
    const closeDirect = track(() => direct.close());
    const host = newHost(mods, workspace, catalogueFile, settings);
    const stopHost = track(() => host.stop());
    await host.start();
    await waitForAll(host, names, 'CATALOGUED', 10_000);
    const gw = await connectGateway(host, 'everything');
    const closeGw = track(() => gw.close());
    okResult(await gw.callTool(callParams), 'echo'); // connects upstream
    await waitForAll(host, ['everything'], 'CONNECTED', 10_000);
    const gwRaw = await rawSession(host.endpointUrl('everything'), host.gatewayToken);
    const closeGwRaw = track(() => gwRaw.close());
    const httpRef = await everythingOverHttp();
    const closeHttp = track(httpRef.close);
    const floor = await loopbackFloor();
    const closeFloor = track(floor.close);

    const sides = [
      { key: 'direct', label: 'direct: SDK client → server-everything (stdio)', call: sdkCall(direct) },
      { key: 'gateway', label: 'gateway: SDK client → loopback HTTP `/mcp/everything` → engine → upstream (stdio)', call: sdkCall(gw) },
      { key: 'gatewayRaw', label: 'gateway, bare HTTP client (node:http keep-alive, no SDK)', call: rawCall(gwRaw) },
      { key: 'httpRef', label: "reference: SDK client → server-everything's own Streamable HTTP mode", call: sdkCall(httpRef.client) },
      { key: 'floor', label: 'floor: bare HTTP client → a Node http server answering at once (loopback HTTP on this machine)', call: () => floor.call() },
    ];
    // A short warm-up of every path (JIT), not measured.
    for (let i = 0; i < 50; i++) for (const side of sides) await side.call();
    const lat = Object.fromEntries(sides.map((x) => [x.key, []]));
    const tput = Object.fromEntries(sides.map((x) => [x.key, []]));
    for (let r = 0; r < cfg.runs; r++) {
      log(`warm calls run ${r + 1}/${cfg.runs}`);
      const samples = Object.fromEntries(sides.map((x) => [x.key, []]));
      for (let i = 0; i < cfg.calls; i++) {
        // rotate which side goes first, call by call
        for (let k = 0; k < sides.length; k++) {
          const side = sides[(i + r + k) % sides.length];
          const t0 = performance.now();
          await side.call();
          samples[side.key].push(performance.now() - t0);
        }
      }
      for (const side of sides) lat[side.key].push({ median: median(samples[side.key]), p99: p99(samples[side.key]) });
      const out = await interleaved(
        r,
        sides.map((side) => [side.key, () => throughput(side.call, cfg.throughputCalls, cfg.concurrency)]),
      );
      for (const side of sides) tput[side.key].push(out[side.key]);
    }
    await closeFloor();
    await closeHttp();
    await closeGwRaw();
    await closeGw();
    await stopHost();
    await closeDirect();
    await settle();
    const sm = (key) => summary(lat[key].map((x) => x.median));
    const sp = (key) => summary(lat[key].map((x) => x.p99));
    const st = (key) => summary(tput[key]);
    const fmtT = (x) => `${x.median.toFixed(0)}/s (${x.min.toFixed(0)}–${x.max.toFixed(0)})`;
    const dm = sm('direct');
    const gm = sm('gateway');
    const dt = st('direct');
    const gt = st('gateway');
    const overhead = gm.median - dm.median;
    const perRunOverhead = summary(lat.gateway.map((x, i) => x.median - lat.direct[i].median));
    results.warmCalls = { tool: 'everything.echo', calls: cfg.calls, sides: sides.map(({ key, label }) => ({ key, label })), latency: lat, throughput: tput, concurrency: cfg.concurrency, throughputCalls: cfg.throughputCalls };
    const rows = sides.map(
      (side) =>
        `| ${side.label} | ${sMs(sm(side.key))} | ${sMs(sp(side.key))} | ${fmtT(st(side.key))} | ${(100 * st(side.key).median / dt.median).toFixed(0)} % |`,
    );
    tables.push(`### 4. Warm calls to server-everything \`echo\` (upstream already connected)

| path | latency median of ${cfg.calls} sequential calls; median (min–max) of ${cfg.runs} runs | p99 | throughput, concurrency ${cfg.concurrency}, ${cfg.throughputCalls} calls | throughput / direct |
|---|---|---|---|---|
${rows.join('\n')}

All five paths ran in the same process, interleaved call by call and round by round. The gateway rows include a loopback HTTP round trip that the stdio row does not; the floor row is that round trip alone.

- gateway overhead at the median (SDK client, gateway − direct): ${target('warm call overhead ≤ 0.5 ms median', overhead <= 0.5, `+${ms1(overhead)}; per run ${sMs(perRunOverhead)}`, '≤ +0.5 ms')}
- gateway throughput vs direct: ${target('throughput ≥ 90% of direct', gt.median >= 0.9 * dt.median, `${(100 * gt.median / dt.median).toFixed(0)} %`, '≥ 90 %')}
`);
  }

  if (cfg.sections.has('growth')) {
    const rows = [];
    results.growth = [];
    let eagerGaveUp = false;
    for (const n of cfg.growthN) {
      const tiny = {};
      for (let i = 1; i <= n; i++) {
        const name = `tiny-${String(i).padStart(3, '0')}`;
        tiny[name] = { command: process.execPath, args: [tinyServer, name] };
      }
      const ws = makeWorkspace(tiny, `growth-${n}`);
      const catFile = path.join(ws.root, 'storage', 'catalogue.json');
      log(`growth N=${n}: one cold catalogue`);
      const cold = await measureCold(ws, catFile);
      const eager = [];
      const lazy = [];
      for (let r = 0; r < cfg.growthRuns; r++) {
        log(`growth N=${n} run ${r + 1}/${cfg.growthRuns}`);
        const out = await interleaved(r, [
          [
            'eager',
            async () => {
              if (eagerGaveUp) return undefined;
              try {
                return await withBound(measureEager(tiny), cfg.eagerBoundMs, `eager start of ${n} servers`);
              } catch (err) {
                log(String(err));
                eagerGaveUp = true;
                await cleanupAll();
                await settle();
                return undefined;
              }
            },
          ],
          ['lazy', () => measureWarm(ws, catFile)],
        ]);
        if (out.eager) eager.push(out.eager);
        lazy.push(out.lazy);
      }
      log(`growth N=${n}: one warm start in a fresh process, for its memory`);
      const fresh = await measureWarmProcess(ws, catFile);
      const e = eager.length ? summary(eager.map((x) => x.ms)) : undefined;
      const eRss = eager.length ? summary(eager.map((x) => x.rssBytes)) : undefined;
      const l = summary(lazy.map((x) => x.ms));
      const gPhases = ['start', 'connect', 'list'].map((k) => ms1(median(lazy.map((x) => x.phases[k])))).join(' / ');
      const lSpawns = Math.max(...lazy.map((x) => x.spawns), fresh.spawns);
      const lProcs = Math.max(...lazy.map((x) => x.processes), fresh.processes);
      results.growth.push({ n, eager: eager.map(({ ms, processes, rssBytes, tools }) => ({ ms, processes, rssBytes, tools: tools.length })), lazyWarm: lazy, lazyWarmFreshProcess: fresh, lazyCold: { ms: cold.ms, processes: cold.processes, tools: cold.tools.length } });
      const goal = n === 100 ? target('lazy warm start at 100 servers ≤ 50 ms', l.median <= 50, ms1(l.median), '≤ 50 ms') : '';
      rows.push(
        `| ${n} | ${e ? sMs(e) : `not run (over ${cfg.eagerBoundMs} ms bound)`} | ${eRss ? `${eager[0].processes} / ${sMb(eRss)}` : ''} | ${ms1(cold.ms)} (${cold.tools.length} tools) | ${sMs(l)}; ${gPhases} | ${lSpawns} / ${lProcs} | ${ms1(fresh.ms)} / ${mb(fresh.hostRssBytes)} | ${e ? ratio(l.median / e.median) : ''} | ${goal} |`,
      );
    }
    tables.push(`### 5. Growth: N configured copies of tests/fixtures/servers/tiny-server.mjs (3 tools each)

| N | eager start, median (min–max) of ${cfg.growthRuns} | eager: processes / server RSS after | lazy cold (1 run) | lazy warm start; phases start / connect / tools/list (medians) | lazy warm: spawns / processes after | fresh-process warm start (1 run): time / whole process RSS | warm / eager | target |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`);
  }

  if (cfg.sections.has('hot')) {
    log('hot path: lazy-mcp serve --http in its own process, server-everything upstream');
    const callParams = { name: 'echo', arguments: { message: 'hello' } };
    const aggParams = { name: 'everything__echo', arguments: { message: 'hello' } };
    const gw = await startGatewayProcess({ everything: servers.everything }, { profileDir: cfg.cpuProfDir });
    const closeGwProc = track(gw.close);
    const direct = await stdioClient(servers.everything);
    const closeDirect = track(() => direct.close());
    const bare = await rawStdioSession(servers.everything);
    const closeBare = track(bare.close);
    const viaGw = await rawSession(`${gw.url}/everything`, gw.token);
    const closeViaGw = track(viaGw.close);
    const viaAgg = await rawSession(gw.url, gw.token);
    const closeViaAgg = track(viaAgg.close);
    const proxy = await startMinimalProxy(servers.everything);
    const closeProxy = track(proxy.close);
    const viaProxy = await rawSession(proxy.url, 'unused');
    const closeViaProxy = track(viaProxy.close);
    const sides = [
      { key: 'direct', label: 'direct: SDK client → server-everything (stdio)', call: async () => okResult(await direct.callTool(callParams), 'echo') },
      { key: 'bare', label: 'direct: bare stdio client (no SDK) → server-everything', call: async () => okResult(await bare.request('tools/call', callParams), 'echo') },
      { key: 'gateway', label: 'gateway process: bare HTTP client → `/mcp/everything` → engine → upstream (stdio)', call: async () => okResult(await viaGw.request('tools/call', callParams), 'echo') },
      { key: 'aggregate', label: 'gateway process, aggregate `/mcp` (`everything__echo`)', call: async () => okResult(await viaAgg.request('tools/call', aggParams), 'echo') },
      { key: 'floor', label: 'floor: bare HTTP client → `bench/lib/minimalProxy.mjs` (the least a Node HTTP→stdio proxy does: no engine, no checks) → server-everything', call: async () => okResult(await viaProxy.request('tools/call', callParams), 'echo') },
    ];
    for (let i = 0; i < 100; i++) for (const side of sides) await side.call(); // connects upstream, warms the JIT
    const lat = Object.fromEntries(sides.map((x) => [x.key, []]));
    const tput = Object.fromEntries(sides.map((x) => [x.key, []]));
    const cpuSeq = [];
    const cpuTput = [];
    const floorCpu = [];
    for (let r = 0; r < cfg.runs; r++) {
      log(`hot path run ${r + 1}/${cfg.runs}`);
      const samples = Object.fromEntries(sides.map((x) => [x.key, []]));
      for (let i = 0; i < cfg.calls; i++) {
        for (let k = 0; k < sides.length; k++) {
          const side = sides[(i + r + k) % sides.length];
          const t0 = performance.now();
          await side.call();
          samples[side.key].push(performance.now() - t0);
        }
      }
      for (const side of sides) lat[side.key].push(median(samples[side.key]));
      // The gateway's own CPU: only gateway calls run while it is measured.
      const cpu0 = processCpuNs(gw.pid);
      for (let i = 0; i < cfg.hotCpuCalls; i++) await sides[2].call();
      cpuSeq.push((processCpuNs(gw.pid) - cpu0) / cfg.hotCpuCalls / 1000);
      const floor0 = processCpuNs(proxy.pid);
      for (let i = 0; i < cfg.hotCpuCalls; i++) await sides[4].call();
      floorCpu.push((processCpuNs(proxy.pid) - floor0) / cfg.hotCpuCalls / 1000);
      const out = await interleaved(
        r,
        sides.map((side) => [
          side.key,
          async () => {
            const before = processCpuNs(gw.pid);
            const perSecond = await throughput(side.call, cfg.throughputCalls, cfg.concurrency);
            if (side.key === 'gateway') cpuTput.push((processCpuNs(gw.pid) - before) / cfg.throughputCalls / 1000);
            return perSecond;
          },
        ]),
      );
      for (const side of sides) tput[side.key].push(out[side.key]);
    }

    // Large results: 4 MB through echo (the SDK stdio client is the baseline), 10 MB (bare stdio baseline).
    const large = { mb4: { direct: [], bare: [], gateway: [] }, mb10: { bare: [], gateway: [] } };
    const intact = { mb4: true, mb10: true };
    const timed = async (fn, message) => {
      const t0 = performance.now();
      const res = await fn({ name: 'echo', arguments: { message } });
      const ms = performance.now() - t0;
      return { ms, ok: echoedIntact(res, message) };
    };
    const m4 = bigMessage(4_000_000);
    const m10 = bigMessage(10_000_000);
    const largeSides = {
      direct: (p) => direct.callTool(p, undefined, { timeout: 120_000 }),
      bare: (p) => bare.request('tools/call', p),
      gateway: (p) => viaGw.request('tools/call', p),
    };
    for (let r = 0; r < cfg.largeRuns; r++) {
      log(`large results run ${r + 1}/${cfg.largeRuns}`);
      const out4 = await interleaved(r, Object.entries(largeSides).map(([k, fn]) => [k, () => timed(fn, m4)]));
      for (const [k, v] of Object.entries(out4)) {
        large.mb4[k].push(v.ms);
        intact.mb4 &&= v.ok;
      }
      const out10 = await interleaved(r, ['bare', 'gateway'].map((k) => [k, () => timed(largeSides[k], m10)]));
      for (const [k, v] of Object.entries(out10)) {
        large.mb10[k].push(v.ms);
        intact.mb10 &&= v.ok;
      }
    }
    await closeViaProxy();
    await closeProxy();
    await closeViaAgg();
    await closeViaGw();
    await closeBare();
    await closeDirect();
    await closeGwProc();
    await settle();

    const sm = (key) => summary(lat[key]);
    const st = (key) => summary(tput[key]);
    const fmtT = (x) => `${x.median.toFixed(0)}/s (${x.min.toFixed(0)}–${x.max.toFixed(0)})`;
    const us = (x) => `${x.median.toFixed(0)} µs (${x.min.toFixed(0)}–${x.max.toFixed(0)})`;
    const overhead = summary(lat.gateway.map((x, i) => x - lat.direct[i]));
    const tputRatio = summary(tput.gateway.map((x, i) => x / tput.direct[i]));
    const cpu = summary(cpuSeq);
    const cpuC = summary(cpuTput);
    const cpuFloor = summary(floorCpu);
    const cpuAbove = summary(cpuSeq.map((x, i) => x - floorCpu[i]));
    // Issue 25's goals are ratios to the do-nothing proxy (the floor) measured in the same run.
    const tputVsFloor = summary(tput.gateway.map((x, i) => x / tput.floor[i]));
    const cpuVsFloor = summary(cpuSeq.map((x, i) => x / floorCpu[i]));
    const r4 = paired(large.mb4.gateway, large.mb4.direct);
    const r4bare = paired(large.mb4.gateway, large.mb4.bare);
    const r10 = paired(large.mb10.gateway, large.mb10.bare);
    results.hotPath = { tool: 'everything.echo', calls: cfg.calls, cpuCalls: cfg.hotCpuCalls, sides: sides.map(({ key, label }) => ({ key, label })), latencyMedians: lat, throughput: tput, gatewayCpuUsPerCall: { sequential: cpuSeq, concurrency8: cpuTput, minimalProxySequential: floorCpu }, large, intact };
    const rows = sides.map((side) => `| ${side.label} | ${sMs(sm(side.key))} | ${fmtT(st(side.key))} | ${(100 * st(side.key).median / st('direct').median).toFixed(0)} % |`);
    tables.push(`### 6. Hot path: \`lazy-mcp serve --http\` in its own process (server-everything \`echo\`)

| path | latency, median of ${cfg.calls} sequential calls; median (min–max) of ${cfg.runs} runs | throughput, concurrency ${cfg.concurrency}, ${cfg.throughputCalls} calls | throughput / SDK direct |
|---|---|---|---|
${rows.join('\n')}

| gateway process CPU per call (all its threads, /proc schedstat; upstream server excluded) | |
|---|---|
| ${cfg.hotCpuCalls} sequential calls, median (min–max) of ${cfg.runs} | ${us(cpu)} |
| during the concurrency-${cfg.concurrency} rounds | ${us(cpuC)} |
| floor: the minimal Node proxy process, same ${cfg.hotCpuCalls} sequential calls | ${us(cpuFloor)} |
| the gateway above that floor, per run | ${us(cpuAbove)} |

| large \`echo\` result (MB = 10^6 characters; the request carries it too), median (min–max) of ${cfg.largeRuns} | SDK client direct (stdio) | bare stdio client direct | gateway process, bare HTTP client | gateway / direct within each run |
|---|---|---|---|---|
| 4 MB | ${sMs(summary(large.mb4.direct))} | ${sMs(summary(large.mb4.bare))} | ${sMs(summary(large.mb4.gateway))} | ${sRatio(r4)} of SDK direct; ${sRatio(r4bare)} of bare stdio |
| 10 MB | (the SDK stdio client times out) | ${sMs(summary(large.mb10.bare))} | ${sMs(summary(large.mb10.gateway))} | ${sRatio(r10)} of bare stdio |

- warm call overhead, bare HTTP client through the gateway − SDK client direct (per run): ${target('hot: warm call overhead ≤ +0.3 ms', overhead.median <= 0.3, `+${ms1(overhead.median)} (${ms1(overhead.min)}–${ms1(overhead.max)})`, '≤ +0.3 ms')}
- throughput at concurrency ${cfg.concurrency}, gateway / the do-nothing proxy (per run): ${target(`hot: throughput at concurrency ${cfg.concurrency} ≥ 0.9× the proxy's`, tputVsFloor.median >= 0.9, `${sRatio(tputVsFloor)}; gateway ${(100 * tputRatio.median).toFixed(0)} % of SDK direct (${(100 * tputRatio.min).toFixed(0)}–${(100 * tputRatio.max).toFixed(0)} %)`, '≥ 0.90× the proxy')}
- gateway process CPU per warm call / the do-nothing proxy's (per run): ${target("hot: gateway CPU per warm call ≤ 1.2× the proxy's", cpuVsFloor.median <= 1.2, `${sRatio(cpuVsFloor)}; gateway ${us(cpu)}, proxy ${us(cpuFloor)}`, '≤ 1.20× the proxy')}
- 4 MB result through the gateway vs SDK direct: ${target('hot: 4 MB result ≤ 1.3× direct', r4.median <= 1.3 && intact.mb4, `${sRatio(r4)}, ${intact.mb4 ? 'intact' : 'NOT intact'}`, '≤ 1.30×, intact')}
- 10 MB result through the gateway: ${target('hot: 10 MB result intact', intact.mb10, intact.mb10 ? `intact in all ${cfg.largeRuns} runs` : 'NOT intact', 'intact')}
`);
  }
}

let failed;
try {
  await main();
} catch (err) {
  failed = err;
} finally {
  await cleanupAll();
}

const totalS = (performance.now() - benchT0) / 1000;
results.totalSeconds = totalS;
results.loadAverageAtEnd = os.loadavg();
results.strayKills = strayKills;
results.targets = targets;
const header = `## Lazy MCP benchmark — ${results.date.slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${results.cpus} × ${results.cpuModel}

Command: \`npm run bench\` (BENCH_RUNS=${cfg.runs}); the lazy host runs with catalogueConcurrency=${cfg.catalogueConcurrency} (eager starts all servers at once). Total run time ${totalS.toFixed(0)} s. Load average (1 min) ${results.loadAverageAtStart[0].toFixed(1)} at start, ${results.loadAverageAtEnd[0].toFixed(1)} at the end: a shared machine, so absolute times are noisy; sides are interleaved run by run, so compare the ratios.
`;
const summaryLines = targets.map((t) => `| ${t.name} | ${t.value} | ${verdict(t.met)} |`).join('\n');
const markdown = `${header}
${tables.join('\n')}
### Targets

| target | measured | |
|---|---|---|
${summaryLines}
`;
results.markdown = markdown;
fs.mkdirSync(resultsDir, { recursive: true });
if (failed) {
  console.log(markdown);
  console.error(`benchmark failed: ${failed.stack ?? failed}`);
  process.exit(1);
}
// A run of only some sections goes to bench.partial.* so it never replaces the full results the README shows.
const complete = ['startup', 'first', 'warm', 'growth', 'hot'].every((x) => cfg.sections.has(x));
const base = complete ? 'bench' : 'bench.partial';
fs.writeFileSync(path.join(resultsDir, `${base}.json`), JSON.stringify(results, null, 2) + '\n');
fs.writeFileSync(path.join(resultsDir, `${base}.md`), markdown);
if (complete) fs.writeFileSync(path.join(resultsDir, 'startup.svg'), renderChart(results));
else log(`partial run: results in bench/results/${base}.json and .md`);
console.log(markdown);
if (strayKills) console.error(`note: ${strayKills} process(es) had to be killed after close`);
process.exit(0);
