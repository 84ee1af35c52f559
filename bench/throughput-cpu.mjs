// Where the CPU of a concurrency-8 throughput round goes, per process: the
// gateway (`lazy-mcp serve --http`, its own process) and the do-nothing proxy
// (lib/minimalProxy.mjs) in front of server-everything, the same bare HTTP client
// (this process), N calls of `echo` per round, rounds alternating. For each: calls
// per second, and each process's CPU (all threads, /proc schedstat) as a share of
// one core and per call: the proxy/gateway itself, the upstream server under it,
// and the client. Issue 13's throughput target is read against these.
// Usage: node bench/throughput-cpu.mjs [cli.js=dist/cli.js] [concurrency=8] [calls=3000] [rounds=3]
import fs from 'node:fs';
import { benchServers, descendantPids } from './lib/servers.mjs';
import { processCpuNs, startGatewayProcess, startMinimalProxy } from './lib/hotPath.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';

const cli = process.argv[2] || 'dist/cli.js';
const concurrency = Number(process.argv[3] || 8);
const calls = Number(process.argv[4] || 3000);
const rounds = Number(process.argv[5] || 3);
const spec = benchServers().everything;
const gw = await startGatewayProcess({ everything: spec }, { cli });
const viaGateway = await rawSession(`${gw.url}/everything`, gw.token);
const proxy = await startMinimalProxy(spec);
const viaProxy = await rawSession(proxy.url, 'unused');
const params = { name: 'echo', arguments: { message: 'hello' } };
for (let i = 0; i < 300; i++) {
  await viaGateway.request('tools/call', params);
  await viaProxy.request('tools/call', params);
}
const treeCpuNs = (pid) => [pid, ...descendantPids(pid)].reduce((sum, x) => sum + processCpuNs(x), 0);
/** Read and write system calls of a process (/proc/PID/io; a writev counts once): what batching saves, whatever the load. */
const syscalls = (pid) => {
  const io = Object.fromEntries(fs.readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n').map((l) => l.split(': ')));
  return [Number(io.syscr), Number(io.syscw)];
};
const share = (cpuMs, wallMs) => `${((100 * cpuMs) / wallMs).toFixed(0)} % of a core`;
const perCall = (cpuMs) => `${((cpuMs * 1000) / calls).toFixed(0)} µs/call`;

async function round(label, session, pid) {
  const own0 = processCpuNs(pid);
  const [r0, w0] = syscalls(pid);
  const tree0 = treeCpuNs(pid);
  const client0 = process.cpuUsage();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < calls) await session.request('tools/call', params);
    }),
  );
  const wall = performance.now() - t0;
  const client = process.cpuUsage(client0);
  const own = (processCpuNs(pid) - own0) / 1e6;
  const [r1, w1] = syscalls(pid);
  const upstream = (treeCpuNs(pid) - tree0) / 1e6 - own;
  const clientMs = (client.user + client.system) / 1000;
  console.log(
    `${label}: ${((calls / wall) * 1000).toFixed(0)}/s; itself ${share(own, wall)}, ${perCall(own)}, ${((r1 - r0) / calls).toFixed(2)}/${((w1 - w0) / calls).toFixed(2)} reads/writes per call; upstream ${share(upstream, wall)}, ${perCall(upstream)}; client ${share(clientMs, wall)}, ${perCall(clientMs)}`,
  );
}

// Two unmeasured rounds first: the JIT of all three processes warms up under concurrency.
for (let r = -2; r < rounds; r++) {
  const tag = r < 0 ? ' (warm-up)' : '';
  await round(`gateway${tag}`, viaGateway, gw.pid);
  await round(`floor${tag}`, viaProxy, proxy.pid);
}
await gw.close();
await proxy.close();
process.exit(0);
