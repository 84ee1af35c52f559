// `node bench/warm-start.mjs [N=100] [RUNS=10]`: where a warm start of N configured
// servers goes (the growth row of `npm run bench`, section 5), in finer phases and
// without the SDK client: `new LazyHost` (fresh WASM instance), `start()` (gateway,
// catalogue file, config files → engine), every server CATALOGUED, then one
// `tools/list` through the aggregate endpoint with a bare HTTP client. The
// catalogue is built once by a cold start (N spawns) and reused, a fresh copy per
// run. BENCH_CPU_PROF_DIR=dir: also write a CPU profile of each run's start
// (node:inspector, in process); BENCH_KEEP_CATALOGUE=file: keep a copy of the catalogue. Writes bench/results/warm-start.json.
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { bundleHost, makeWorkspace, newHost, statesOf, waitForAll } from './lib/lazy.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';
import { repoRoot } from './lib/servers.mjs';
import { median } from './lib/stats.mjs';
import { summarizeProfiles } from './lib/cpuProfile.mjs';

const [n = 100, runs = 10] = process.argv.slice(2).map(Number);
const profDir = process.env.BENCH_CPU_PROF_DIR;
const tinyServer = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
const servers = {};
for (let i = 1; i <= n; i++) servers[`tiny-${String(i).padStart(3, '0')}`] = { command: process.execPath, args: [tinyServer, `tiny-${i}`] };
const mods = await bundleHost();
const ws = makeWorkspace(servers, `warm-start-${n}`);
const catalogue = path.join(ws.root, 'catalogue.json');
const settings = { catalogueConcurrency: 6 };

console.error(`cold start of ${n} servers to build the catalogue (${n} spawns)…`);
{
  const host = newHost(mods, ws, catalogue, settings);
  await host.start();
  await waitForAll(host, ws.names, 'CATALOGUED', 300_000);
  await host.stop();
}
if (process.env.BENCH_KEEP_CATALOGUE) fs.copyFileSync(catalogue, process.env.BENCH_KEEP_CATALOGUE);

/** Resolves when every server is CATALOGUED, checked after each engine change (no polling delay). */
function allCatalogued(host) {
  const done = () => [...statesOf(host).values()].every((s) => s === 'CATALOGUED');
  return done() ? Promise.resolve() : waitForAll(host, ws.names, 'CATALOGUED', 10_000);
}

const rows = [];
const inspector = profDir ? new Session() : undefined;
if (inspector) {
  fs.mkdirSync(profDir, { recursive: true });
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
}
for (let r = 0; r < runs; r++) {
  const copy = `${catalogue}.run${r}.json`;
  fs.copyFileSync(catalogue, copy);
  if (inspector) await inspector.post('Profiler.start');
  const t = [performance.now()];
  const cpu0 = process.cpuUsage();
  const host = newHost(mods, ws, copy, settings);
  t.push(performance.now());
  // Time in the engine per event (the WASM call, its JSON included), and reading the catalogue file.
  const engineMs = {};
  const cross = host.driver.cross.bind(host.driver);
  host.driver.cross = (event) => {
    const e0 = performance.now();
    try {
      return cross(event);
    } finally {
      engineMs[event.type] = (engineMs[event.type] ?? 0) + performance.now() - e0;
    }
  };
  const store = host.driver.deps.store;
  const read = store.read.bind(store);
  let storeReadMs = 0;
  store.read = async () => {
    const r0 = performance.now();
    const blob = await read();
    storeReadMs = performance.now() - r0;
    return blob;
  };
  await host.start();
  t.push(performance.now());
  if (r === 0) {
    const kinds = {};
    for (const k of statesOf(host).values()) kinds[k] = (kinds[k] ?? 0) + 1;
    console.error(`states right after start(): ${JSON.stringify(kinds)}`);
    const s0 = performance.now();
    const snap = host.driver.snapshotJson();
    const s1 = performance.now();
    JSON.parse(snap);
    console.error(`snapshot: ${snap.length} chars, ${(s1 - s0).toFixed(1)} ms in the core, ${(performance.now() - s1).toFixed(1)} ms JSON.parse`);
  }
  await allCatalogued(host);
  t.push(performance.now());
  const cpu = process.cpuUsage(cpu0);
  if (inspector) {
    const { profile } = await inspector.post('Profiler.stop');
    fs.writeFileSync(path.join(profDir, `warm-start-${n}-run${r}.cpuprofile`), JSON.stringify(profile));
  }
  const raw = await rawSession(host.endpointUrl(''), host.gatewayToken);
  const t4 = performance.now();
  const tools = (await raw.request('tools/list')).tools.length;
  const listMs = performance.now() - t4;
  await raw.close();
  await host.stop();
  const row = { constructMs: t[1] - t[0], startMs: t[2] - t[1], cataloguedMs: t[3] - t[2], hostMs: t[3] - t[0], cpuMs: (cpu.user + cpu.system) / 1000, listMs, tools, storeReadMs, ...Object.fromEntries(Object.entries(engineMs).map(([k, v]) => [`engine.${k}`, v])) };
  rows.push(row);
  console.error(`run ${r + 1}/${runs}: ${Object.entries(row).map(([k, v]) => `${k} ${typeof v === 'number' && k !== 'tools' ? v.toFixed(1) : v}`).join(', ')}`);
}
const med = (k) => median(rows.map((x) => x[k]));
const out = { date: new Date().toISOString(), node: process.version, n, runs, median: Object.fromEntries(Object.keys(rows[0]).map((k) => [k, med(k)])), rows };
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'warm-start.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`engine time per event (medians): ${Object.keys(out.median).filter((k) => k.startsWith('engine.') || k === 'storeReadMs').map((k) => `${k} ${out.median[k].toFixed(1)} ms`).join(', ')}`);
console.log(`warm start of ${n} servers, median of ${runs}: construct ${med('constructMs').toFixed(1)} ms, start ${med('startMs').toFixed(1)} ms, to all CATALOGUED ${med('cataloguedMs').toFixed(1)} ms — host ${med('hostMs').toFixed(1)} ms (CPU ${med('cpuMs').toFixed(1)} ms); then tools/list (bare HTTP) ${med('listMs').toFixed(1)} ms, ${rows[0].tools} tools`);
if (profDir) {
  // Every run but the first (its JIT is cold for the host's JavaScript too).
  const files = rows.slice(1).map((_, r) => path.join(profDir, `warm-start-${n}-run${r + 1}.cpuprofile`));
  const { busyMs, self, inclusive } = summarizeProfiles(files);
  // The harness and the profiler's own work (stopping it serializes the profile) left out.
  const skip = /^(\(root\)|\(program\)|processTicksAndRejections|runMicrotasks|\(anonymous\) (warm-start\.mjs|util:)|dispatch|post node:inspector|fn util:)/;
  const profilerMs = inclusive.find(([k]) => k === 'dispatch')?.[1] ?? 0;
  console.log(`\nCPU profile of runs 2-${runs} (mean per run): ${(busyMs - profilerMs).toFixed(1)} ms busy (without ${profilerMs.toFixed(1)} ms of the profiler's own)`);
  console.log('\n| inclusive | ms |\n|---|--:|');
  for (const [k, ms] of inclusive.filter(([k]) => !skip.test(k)).slice(0, 25)) console.log(`| ${k} | ${ms.toFixed(2)} |`);
  console.log('\n| self | ms |\n|---|--:|');
  for (const [k, ms] of self.filter(([k]) => !skip.test(k)).slice(0, 15)) console.log(`| ${k} | ${ms.toFixed(2)} |`);
}
fs.rmSync(ws.root, { recursive: true, force: true });
