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
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchServers, repoRoot } from './lib/servers.mjs';
import { processCpuNs, startGatewayProcess } from './lib/hotPath.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';

const [cliArg = 'dist/cli.js', calls = 6000, concurrency = 8, warmup = 30000] = process.argv.slice(2).map((x, i) => (i === 0 ? x : Number(x)));
const cli = path.resolve(cliArg);
const hz = 10000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perf-items-'));
const spec = benchServers().everything;
const params = { name: 'echo', arguments: { message: 'hello' } };
const concurrently = async (session, n) => {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next++ < n) await session.request('tools/call', params); }));
};

/** Host source files by line of the bundle (esbuild writes `// extension/src/<file>` before each module). */
const starts = [];
fs.readFileSync(cli, 'utf8').split('\n').forEach((line, i) => {
  const m = /^\/\/ (extension\/src\/\S+)$/.exec(line);
  if (m) starts.push([i + 1, m[1].replace('extension/src/host/', '')]);
});
const moduleOf = (line) => starts.findLast(([start]) => start <= line)?.[1] ?? 'cli.js (minified: no file names)';

async function record(label, session, pid) {
  const data = path.join(dir, `${label}.data`);
  const perf = spawn('perf', ['record', '-g', '-e', 'cpu-clock', '-F', String(hz), '-p', String(pid), '-o', data], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const cpu0 = processCpuNs(pid);
  await concurrently(session, calls);
  const cpuUs = (processCpuNs(pid) - cpu0) / calls / 1000;
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
  return { cpuUs, items: items(data) };
}

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

const gw = await startGatewayProcess({ everything: spec }, { cli, nodeArgs: ['--perf-basic-prof'] });
const proxy = spawn(process.execPath, ['--perf-basic-prof', path.join(repoRoot, 'bench', 'lib', 'minimalProxy.mjs'), spec.command, ...spec.args], {
  env: { ...process.env, ...(spec.env ?? {}) },
  stdio: ['ignore', 'pipe', 'ignore'],
  cwd: dir,
});
const port = await new Promise((resolve) => proxy.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
let results;
try {
  const viaGateway = await rawSession(`${gw.url}/everything`, gw.token);
  const viaProxy = await rawSession(`http://127.0.0.1:${port}/mcp`, 'unused');
  // Warmed up in turns of 1,000 calls, so neither side sits idle while the other warms up.
  for (let done = 0; done < warmup; done += 1000) for (const s of [viaGateway, viaProxy]) await concurrently(s, Math.min(1000, warmup - done));
  results = [await record('gateway', viaGateway, gw.pid), await record('floor', viaProxy, proxy.pid)];
  await viaGateway.close();
  await viaProxy.close();
} finally {
  await gw.close();
  const exited = new Promise((resolve) => proxy.once('exit', resolve));
  proxy.kill('SIGTERM');
  await exited;
  for (const pid of [gw.pid, proxy.pid]) fs.rmSync(`/tmp/perf-${pid}.map`, { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
}
const [g, f] = results;
const us = (r, k) => ((r.items.get(k) ?? 0) * (1e6 / hz)) / calls;
const total = (r) => [...r.items.values()].reduce((a, b) => a + b, 0) * (1e6 / hz) / calls;
console.log(`${calls} echo calls at concurrency ${concurrency} after ${warmup} warm-up calls; CPU per call under perf: gateway ${g.cpuUs.toFixed(0)} µs, floor ${f.cpuUs.toFixed(0)} µs\n`);
console.log('| item | gateway µs/call | floor µs/call | difference |\n|---|--:|--:|--:|');
const keys = [...new Set([...g.items.keys(), ...f.items.keys()])].sort((a, b) => us(g, b) - us(f, b) - (us(g, a) - us(f, a)));
for (const k of keys) console.log(`| ${k} | ${us(g, k).toFixed(1)} | ${us(f, k).toFixed(1)} | ${(us(g, k) - us(f, k)).toFixed(1)} |`);
console.log(`| total | ${total(g).toFixed(1)} | ${total(f).toFixed(1)} | ${(total(g) - total(f)).toFixed(1)} |`);
process.exit(0);
