// Two builds of the gateway side by side: `lazy-mcp serve --http` of each in its
// own process (server-everything upstream), the same bare HTTP client calls
// `echo` through each, call by call in rotation, and the gateway processes' CPU
// time per call (all threads, /proc schedstat) and latency are compared per block,
// with the minimal Node proxy (bench/lib/minimalProxy.mjs) as a third side.
// Usage: node bench/compare-gateways.mjs <A/dist/cli.js> <B/dist/cli.js> [blocks=10] [calls=500] [bytes=5] [warmup=100] [concurrency=1]
// concurrency > 1: each block runs `calls` calls at that concurrency on every side in
// turn (order rotated block by block) and also compares throughput (calls per second):
// what the gateway's CPU costs under load, where calls overlap (issue 25's throughput goal).
// warmup: calls per side before the first block. V8 keeps compiling for tens of
// thousands of calls (its background compiler threads count in the process's CPU:
// a quarter of it after 1,000 calls, next to none after 30,000, `perf record -e
// cpu-clock`), so a small change reads clearer after a long warm-up (e.g. 20000).
import { benchServers } from './lib/servers.mjs';
import { bigMessage, processCpuNs, startGatewayProcess, startMinimalProxy } from './lib/hotPath.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';

const [a, b, blocks = 10, calls = 500, bytes = 5, warmup = 100, concurrency = 1] = process.argv.slice(2).map((x, i) => (i < 2 ? x : Number(x)));
if (!a || !b) throw new Error('usage: node bench/compare-gateways.mjs <A cli.js> <B cli.js> [blocks] [calls] [bytes] [warmup] [concurrency]');
const params = { name: 'echo', arguments: { message: bigMessage(bytes) } };
const sides = [];
const concurrently = async (side, n) => {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next++ < n) await side.session.request('tools/call', params); }));
};
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
try {
  for (const [label, cli] of [['A', a], ['B', b]]) {
    const side = { label, cli, gw: await startGatewayProcess({ everything: benchServers().everything }, { cli }), cpu: [], ms: [] };
    sides.push(side);
    side.session = await rawSession(`${side.gw.url}/everything`, side.gw.token);
  }
  // The floor: the least a Node HTTP→stdio proxy does (bench/lib/minimalProxy.mjs).
  {
    const side = { label: 'floor', cli: 'bench/lib/minimalProxy.mjs', gw: await startMinimalProxy(benchServers().everything), cpu: [], ms: [] };
    sides.push(side);
    side.session = await rawSession(side.gw.url, 'unused');
  }
  // Warmed up in rotation too: a side left idle while the others warm up reads
  // slower afterwards (A read ~25 % above B, whichever build it was, after 20,000
  // calls each one side at a time).
  if (concurrency > 1) {
    // The warm-up at the measured concurrency, in rounds of up to 1,000 calls per side in turn.
    for (let done = 0; done < warmup; done += 1000) for (const side of sides) await concurrently(side, Math.min(1000, warmup - done));
    for (let r = 0; r < blocks; r++) {
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(r + k) % sides.length];
        const cpu0 = processCpuNs(side.gw.pid);
        const t0 = performance.now();
        await concurrently(side, calls);
        const ms = performance.now() - t0;
        side.ms.push(ms / calls);
        side.cpu.push((processCpuNs(side.gw.pid) - cpu0) / calls / 1000);
      }
    }
  } else {
  for (let i = 0; i < warmup; i++) for (const side of sides) await side.session.request('tools/call', params);
  // Call by call in rotation, so a burst of load from elsewhere hits every side alike;
  // each process's CPU counter is read around the block.
  for (let r = 0; r < blocks; r++) {
    const cpu0 = sides.map((side) => processCpuNs(side.gw.pid));
    const spent = sides.map(() => 0);
    for (let i = 0; i < calls; i++) {
      for (let k = 0; k < sides.length; k++) {
        const j = (i + r + k) % sides.length;
        const t0 = performance.now();
        await sides[j].session.request('tools/call', params);
        spent[j] += performance.now() - t0;
      }
    }
    sides.forEach((side, j) => {
      side.ms.push(spent[j] / calls);
      side.cpu.push((processCpuNs(side.gw.pid) - cpu0[j]) / calls / 1000);
    });
  }
  }
} finally {
  for (const side of sides) {
    await side.session?.close();
    await side.gw.close();
  }
}
const [A, B] = sides;
for (const side of sides) {
  console.log(`${side.label} ${side.cli}: CPU per call median ${median(side.cpu).toFixed(0)} µs (${Math.min(...side.cpu).toFixed(0)}–${Math.max(...side.cpu).toFixed(0)}), latency ${median(side.ms).toFixed(3)} ms`);
}
const floor = sides[2];
const ratios = A.cpu.map((x, i) => B.cpu[i] / x);
const above = (side) => median(side.cpu.map((x, i) => x - floor.cpu[i])).toFixed(0);
console.log(`above the floor, per block: A ${above(A)} µs, B ${above(B)} µs`);
console.log(`B/A CPU per block: median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); latency B/A ${(median(B.ms) / median(A.ms)).toFixed(2)}`);
const toFloor = (side, of) => side[of].map((x, i) => x / floor[of][i]);
const range = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
console.log(`per block, to the floor: CPU A ${range(toFloor(A, 'cpu'))}, B ${range(toFloor(B, 'cpu'))}`);
if (concurrency > 1) {
  // Time per call in a block at this concurrency is 1 / throughput: the floor's over the side's is the throughput ratio.
  const thr = (side) => side.ms.map((x, i) => floor.ms[i] / x);
  console.log(`per block, throughput at concurrency ${concurrency} to the floor's: A ${range(thr(A))}, B ${range(thr(B))}; B/A ${range(A.ms.map((x, i) => x / B.ms[i]))}`);
}
