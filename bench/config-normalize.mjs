// `npm run bench:config`: normalize a synthetic set of 100 servers spread over
// every config format, natively (cargo example) and through WASM including the
// boundary crossing (JSON.stringify in, JSON.parse out), in one run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fmtMs, summary } from './lib/stats.mjs';
import { env, files, home, ws } from './lib/configFixture.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const runs = Number(process.env.BENCH_RUNS || 300);
const input = { home, workspaceFolders: [ws], platform: 'linux', env, files, extraFiles: {} };

const glue = path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js');
if (!fs.existsSync(glue)) {
  console.error('dist/core is missing: run `npm run build` first.');
  process.exit(1);
}
const core = require(glue);
if (typeof core.normalizeConfig !== 'function') {
  console.error('dist/core has no normalizeConfig (a test-only export): build with `node scripts/build.mjs --test-exports` first.');
  process.exit(1);
}
const once = () => JSON.parse(core.normalizeConfig(JSON.stringify(input)));
const first = once();
if (first.servers.length !== 100) {
  console.error(`expected 100 servers, got ${first.servers.length}: ${JSON.stringify(first.problems.slice(0, 3))}`);
  process.exit(1);
}
// Enough warm-up for V8 to tier the module up from its baseline compiler.
for (let i = 0; i < 300; i++) once();
const wasmTimes = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  once();
  wasmTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
}

const inputFile = path.join(os.tmpdir(), `lazy-mcp-normalize-${process.pid}.json`);
fs.writeFileSync(inputFile, JSON.stringify(input));
const native = spawnSync('cargo', ['run', '--quiet', '--release', '-p', 'lazy-mcp-core', '--example', 'normalize_bench', '--', inputFile, String(runs)], { cwd: repoRoot, encoding: 'utf8' });
fs.rmSync(inputFile, { force: true });
if (native.status !== 0) {
  console.error(`native run failed:\n${native.stderr}`);
  process.exit(1);
}
const n = JSON.parse(native.stdout.trim().split('\n').pop());
const w = summary(wasmTimes);
const sorted = [...wasmTimes].sort((a, b) => a - b);
const p95 = sorted[Math.floor((sorted.length - 1) * 0.95)];
const result = { date: new Date().toISOString(), servers: 100, runs, native: n, wasm: { medianMs: w.median, p95Ms: p95, minMs: w.min }, targetMs: 2 };
fs.mkdirSync(path.join(repoRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'config-normalize.json'), JSON.stringify(result, null, 2) + '\n');
console.log(`| normalize 100 servers (6 files, 5 formats) | median | p95 | target |
|---|---|---|---|
| native (release) | ${fmtMs(n.medianMs)} | ${fmtMs(n.p95Ms)} | |
| through WASM, incl. JSON in/out | ${fmtMs(w.median)} | ${fmtMs(p95)} | ≤ 2 ms: ${w.median <= 2 ? 'met' : 'MISSED'} |
| WASM / native | ${(w.median / n.medianMs).toFixed(2)}× | | |`);
