// What the gateway leaves to V8's garbage collector per warm call, beside the do-nothing
// proxy (lib/minimalProxy.mjs): each process runs under `node --trace-gc-nvp` and the
// same bare HTTP client calls `echo` through it at a concurrency, after a warm-up; the
// scavenges during the measured calls give bytes allocated, surviving a scavenge and
// promoted to the old generation per call, the main thread's scavenge pause per call,
// and the mark-compacts. Unlike CPU time these counts hardly move with the machine's load,
// so they compare builds on a busy machine (issue 25: a long-lived `Set` churned per call
// promoted ~3 KB per call at concurrency 8; bench/results/gateway-profile.md).
// Usage: node bench/gateway-gc.mjs [concurrency=8] [calls=6000] [warmup=20000] <cli.js>...
import { benchServers } from './lib/servers.mjs';
import { processCpuNs, startGatewayProcess, startMinimalProxy } from './lib/hotPath.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';

const args = process.argv.slice(2);
const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
const [concurrency = 8, calls = 6000, warmup = 20000] = numbers;
const clis = args.filter((a) => !/^\d+$/.test(a));
if (clis.length === 0) clis.push('dist/cli.js');
const spec = benchServers().everything;
const params = { name: 'echo', arguments: { message: 'hello' } };

/** The `--trace-gc-nvp` records a process prints (one line per GC: `key=value` pairs). */
function gcRecords(stdout) {
  const records = [];
  let rest = '';
  stdout.on('data', (d) => {
    const lines = (rest + d).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!/\bgc=/.test(line)) continue;
      records.push(Object.fromEntries(line.trim().split(/\s+/).map((kv) => kv.split('='))));
    }
  });
  return records;
}

async function measure(label, side, session) {
  const concurrently = async (n) => {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => { while (next++ < n) await session.request('tools/call', params); }));
  };
  await concurrently(warmup);
  const from = side.records.length;
  const cpu0 = processCpuNs(side.pid);
  await concurrently(calls);
  const cpuUs = (processCpuNs(side.pid) - cpu0) / calls / 1000;
  const gcs = side.records.slice(from);
  const scavenges = gcs.filter((r) => r.gc === 's');
  const sum = (rs, k) => rs.reduce((a, r) => a + Number(r[k] ?? 0), 0);
  const kb = (bytes) => (bytes / calls / 1024).toFixed(2);
  console.log(
    `${label}: ${scavenges.length} scavenges, ${gcs.length - scavenges.length} other GCs (mark-compact…); per call: allocated ${kb(sum(scavenges, 'allocated'))} KB, ` +
      `survived a scavenge ${kb(sum(scavenges, 'new_space_survived'))} KB, promoted ${kb(sum(scavenges, 'promoted'))} KB, ` +
      `main-thread pause in scavenges ${((sum(scavenges, 'pause') * 1000) / calls).toFixed(2)} µs, in other GCs ${((sum(gcs.filter((r) => r.gc !== 's'), 'pause') * 1000) / calls).toFixed(2)} µs; process CPU ${cpuUs.toFixed(0)} µs (moves with the load)`,
  );
}

console.log(`${calls} echo calls at concurrency ${concurrency} after ${warmup} warm-up calls, each process under --trace-gc-nvp`);
for (const cli of clis) {
  const gw = await startGatewayProcess({ everything: spec }, { cli, nodeArgs: ['--trace-gc-nvp'] });
  try {
    const side = { pid: gw.pid, records: gcRecords(gw.stdout) };
    const session = await rawSession(`${gw.url}/everything`, gw.token);
    await measure(`gateway ${cli}`, side, session);
    await session.close();
  } finally {
    await gw.close();
  }
}
const proxy = await startMinimalProxy(spec, { nodeArgs: ['--trace-gc-nvp'] });
try {
  const side = { pid: proxy.pid, records: gcRecords(proxy.stdout) };
  await measure('floor (minimal proxy)', side, await rawSession(proxy.url, 'unused'));
} finally {
  await proxy.close();
}
process.exit(0);
