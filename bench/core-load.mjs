// `npm run bench:core`: size of the optimized core, and the time to load and
// instantiate it in a fresh Node process against a bare `node -e 0`, interleaved
// in one run so machine noise hits both sides alike.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { fmtMs, summary } from './lib/stats.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasm = path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm_bg.wasm');
const glue = path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js');
if (!fs.existsSync(wasm)) {
  console.error('dist/core is missing: run `npm run build` first.');
  process.exit(1);
}
const runs = Number(process.env.BENCH_RUNS || 30);

function wall(args) {
  const t0 = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} failed`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const baseline = [];
const withCore = [];
const loadCode = `require(${JSON.stringify(glue)}).coreVersion()`;
for (let i = 0; i < runs; i++) {
  baseline.push(wall(['-e', '0']));
  withCore.push(wall(['-e', loadCode]));
}

const raw = fs.statSync(wasm).size;
const gzip = zlib.gzipSync(fs.readFileSync(wasm), { level: 9 }).length;
const b = summary(baseline);
const c = summary(withCore);
const added = c.median - b.median;

const result = {
  date: new Date().toISOString(),
  node: process.version,
  runs,
  wasmBytes: raw,
  wasmGzipBytes: gzip,
  baselineMs: b,
  withCoreMs: c,
  addedMedianMs: added,
  targets: { rawBytes: 200 * 1024, gzipBytes: 100 * 1024, addedMs: 20 },
};
fs.mkdirSync(path.join(repoRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'core-load.json'), JSON.stringify(result, null, 2) + '\n');

const ok = (v) => (v ? 'met' : 'MISSED');
console.log(`| measure | value | target | |
|---|---|---|---|
| .wasm after wasm-opt (raw) | ${(raw / 1024).toFixed(1)} KB | ≤ 200 KB | ${ok(raw <= 200 * 1024)} |
| .wasm after wasm-opt (gzip -9) | ${(gzip / 1024).toFixed(1)} KB | ≤ 100 KB | ${ok(gzip <= 100 * 1024)} |
| \`node -e 0\` (median of ${runs}, min–max) | ${fmtMs(b.median)} (${fmtMs(b.min)}–${fmtMs(b.max)}) | | |
| node + load + instantiate core (median, min–max) | ${fmtMs(c.median)} (${fmtMs(c.min)}–${fmtMs(c.max)}) | | |
| added by the core (difference of medians) | ${fmtMs(added)} | ≤ 20 ms | ${ok(added <= 20)} |`);
