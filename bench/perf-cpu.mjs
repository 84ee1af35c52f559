// Where the gateway's CPU goes against the floor's, by CPU time rather than wall
// time: `perf record -e cpu-clock` (a software clock: no hardware counters needed,
// and a descheduled process takes no samples, unlike V8's --cpu-prof, which
// charges time spent preempted in a write to the write) of `lazy-mcp serve
// --http --isolated` and of the do-nothing proxy (lib/minimalProxy.mjs), both
// under `node --perf-basic-prof` so JIT frames have names, after a long warm-up
// at the same concurrency (V8's background compiler is a quarter of the CPU
// after 1,000 calls). Samples are sorted into kinds (the main thread's kernel,
// WASM, JS, V8 builtins, GC, JSON/HTTP parsing, other natives; the background
// threads' compiler and GC) and printed per call for both, with the difference.
// perf's own overhead inflates every figure (about 1.6x here); read the shares.
// Usage: node bench/perf-cpu.mjs [cli.js=dist/cli.js] [calls=4000] [concurrency=8] [warmup=30000]
// PERF_TOP=N also prints the gateway's N main-thread symbols with the most samples.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { printItems, recordGatewayAndFloor } from './lib/perfPair.mjs';

const [cliArg = 'dist/cli.js', calls = 4000, concurrency = 8, warmup = 30000] = process.argv.slice(2).map((x, i) => (i === 0 ? x : Number(x)));
const cli = path.resolve(cliArg);
const hz = 20000;

/** Samples per kind of code, from `perf script` (the main thread is the one with the most samples). */
function kindsOf(data) {
  const out = spawnSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  const samples = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+[0-9a-f]+\s+(.*)\((.*)\)\s*$/.exec(line);
    if (m) samples.push({ tid: m[1], sym: m[2].trim(), dso: m[3] });
  }
  const perTid = new Map();
  for (const s of samples) perTid.set(s.tid, (perTid.get(s.tid) ?? 0) + 1);
  const main = [...perTid].sort((a, b) => b[1] - a[1])[0]?.[0];
  const kinds = new Map();
  const symbols = new Map();
  for (const { tid, sym, dso } of samples) {
    const k = kindOf(tid === main, sym, dso);
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
    if (tid === main) symbols.set(sym, (symbols.get(sym) ?? 0) + 1);
  }
  kinds.symbols = symbols;
  return kinds;
}

function kindOf(main, sym, dso) {
  if (!main) return /compiler|Compil/.test(sym) ? 'background: compiler' : /Scaveng|Mark|Heap|Sweep|Evacuat|Concurrent/.test(sym) ? 'background: GC' : 'background: other';
  if (dso.includes('kernel')) return 'main: kernel (syscalls, the TCP and pipe paths)';
  // A .wasm kept with its names (`wasm-opt -g`) shows its functions as `JS:<name>-<index>-turbofan`.
  if (sym.startsWith('JS:wasm') || /^JS:.*-\d+-(turbofan|liftoff)$/.test(sym)) return 'main: WASM core';
  if (sym.startsWith('JS:') || dso.includes('JIT')) return 'main: JavaScript (JIT code)';
  if (sym.startsWith('Builtins_')) return 'main: V8 builtins (property access, calls, strings)';
  if (/Scaveng|Heap::|MarkCompact|Sweep|Evacuat|GCTracer/.test(sym)) return 'main: GC';
  if (/compiler/.test(sym)) return 'main: compiler';
  if (/JsonParser|JsonStringif/.test(sym)) return 'main: JSON.parse/stringify';
  if (/llhttp/.test(sym)) return 'main: HTTP parser (llhttp)';
  return 'main: other natives (V8 runtime, libuv, libc)';
}

const results = await recordGatewayAndFloor({ cli, calls, concurrency, warmup, hz, sort: kindsOf, tmpPrefix: 'perf-cpu-' });
const [g, f] = results;
console.log(`${calls} echo calls at concurrency ${concurrency} after ${warmup} warm-up calls; CPU per call under perf: gateway ${g.cpuUs.toFixed(0)} µs, floor ${f.cpuUs.toFixed(0)} µs (${(g.cpuUs / f.cpuUs).toFixed(2)}x)\n`);
printItems('kind', results, { calls, hz });
const top = Number(process.env.PERF_TOP ?? 0);
if (top > 0) {
  console.log(`\n| gateway main-thread symbol | µs/call |\n|---|--:|`);
  for (const [sym, n] of [...g.counts.symbols].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${sym.replace(/\|/g, '\\|').slice(0, 110)} | ${((n * (1e6 / hz)) / calls).toFixed(2)} |`);
}
process.exit(0);
