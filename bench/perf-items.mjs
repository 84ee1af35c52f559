// Where the gateway's CPU above the do-nothing proxy's goes, item by item: `lazy-mcp
// serve --http --isolated` and bench/lib/minimalProxy.mjs, each under `node
// --perf-basic-prof`, warmed up, then `perf record -g -e cpu-clock` over N calls of
// `echo` at a concurrency. Each main-thread sample goes to the first of these its call
// chain contains: a GC; a write/writev to a socket or pipe (kernel included); the
// `clientPost` or `messageReceived` crossing (glue, core, returned strings); JSON.parse;
// else the innermost host source file on the chain (with the Node code it calls); else
// Node on its own, or the event loop. Prints µs per call under perf (~1.5x inflated).
// Give it a build that keeps names: its .wasm `wasm-opt -Oz -g` of out/wasm and its
// cli.js bundled unminified (host files are found by esbuild's `// extension/src/…`
// comments), e.g. `node bench/perf-items.mjs NAMED/cli.js 8000 8 30000`.
// Usage: node bench/perf-items.mjs [cli.js=dist/cli.js] [calls=6000] [concurrency=8] [warmup=30000]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { printItems, recordGatewayAndFloor } from './lib/perfPair.mjs';

const [cliArg = 'dist/cli.js', calls = 6000, concurrency = 8, warmup = 30000] = process.argv.slice(2).map((x, i) => (i === 0 ? x : Number(x)));
const cli = path.resolve(cliArg);
const hz = 10000;

/** Host source files by line of the bundle (esbuild writes `// extension/src/<file>` before each module). */
const starts = [];
fs.readFileSync(cli, 'utf8').split('\n').forEach((line, i) => {
  const m = /^\/\/ (extension\/src\/\S+)$/.exec(line);
  if (m) starts.push([i + 1, m[1].replace('extension/src/host/', '')]);
});
const moduleOf = (line) => starts.findLast(([start]) => start <= line)?.[1] ?? 'cli.js (minified: no file names)';

function items(data) {
  const out = spawnSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  const samples = [];
  let current;
  for (const line of out.split('\n')) {
    if (/^\S/.test(line) || /^\s*\d+\s*$/.test(line)) samples.push((current = { tid: line.trim().split(/\s+/)[0], frames: [] }));
    else if (current) {
      const m = /^\s+[0-9a-f]+\s+(.*)$/.exec(line);
      if (m) current.frames.push(m[1].replace(/\s+\(.*\)$/, '').trim());
    }
  }
  const perTid = new Map();
  for (const s of samples) perTid.set(s.tid, (perTid.get(s.tid) ?? 0) + 1);
  const main = [...perTid].sort((a, b) => b[1] - a[1])[0]?.[0];
  const any = (s, re) => s.frames.some((f) => re.test(f));
  const rules = [
    ['GC, main thread', (s) => any(s, /Heap::CollectGarbage|ScavengerCollector|Heap::Scavenge|MarkCompactCollector|IncrementalMarking/)],
    ['socket and pipe writes (kernel included)', (s) => any(s, /writevGeneric|writeGeneric|StreamBase::Write|__GI___writev|__GI___libc_write/)],
    ['WASM crossing clientPost (glue, core, returned strings)', (s) => any(s, /clientPost .*lazy_mcp_wasm|engine_clientPost/)],
    ['WASM crossing messageReceived (glue, core, returned strings)', (s) => any(s, /messageReceived .*lazy_mcp_wasm|engine_messageReceived/)],
    ['JSON.parse', (s) => any(s, /Builtin_JsonParse|JsonParser/)],
    ['JSON.stringify', (s) => any(s, /JsonStringif/)],
  ];
  const hostOf = (s) => {
    for (const f of s.frames) {
      const m = /cli\.js:(\d+):/.exec(f);
      if (m) return `host: ${moduleOf(Number(m[1]))}`;
      if (/minimalProxy\.mjs/.test(f)) return 'host: the proxy script';
      if (/lazy_mcp_wasm\.js/.test(f)) return 'host: wasm-bindgen glue';
    }
    return undefined;
  };
  const counts = new Map();
  for (const s of samples) {
    let item;
    if (s.tid !== main) item = any(s, /Scaveng|Marking|Sweep|Heap|GC/) ? 'GC, background threads' : any(s, /compiler|Compil/) ? 'background: compiler' : 'background: other';
    else item = rules.find(([, matches]) => matches(s))?.[0] ?? hostOf(s) ?? (any(s, /epoll|uv__io_poll/) && !any(s, /^JS:/) ? 'event loop: epoll, reads' : 'Node on its own (HTTP parser, streams, timers)');
    counts.set(item, (counts.get(item) ?? 0) + 1);
  }
  return counts;
}

const results = await recordGatewayAndFloor({ cli, calls, concurrency, warmup, hz, callGraph: true, sort: items, tmpPrefix: 'perf-items-' });
const [g, f] = results;
console.log(`${calls} echo calls at concurrency ${concurrency} after ${warmup} warm-up calls; CPU per call under perf: gateway ${g.cpuUs.toFixed(0)} µs, floor ${f.cpuUs.toFixed(0)} µs\n`);
printItems('item', results, { calls, hz, total: true });
process.exit(0);
