// System calls of the gateway's main thread per warm call, whatever the load: `lazy-mcp
// serve --http --isolated` (its own process) and the do-nothing proxy (lib/minimalProxy.mjs,
// the floor) in front of server-everything, the bare HTTP client of the hot-path bench
// calling `echo` at a concurrency, `strace -c` attached to each one's main thread for N
// calls after a warm-up. epoll_pwait/epoll_wait count the event loop's passes that polled for input;
// write/writev the system calls that carry requests to the server and answers to the client.
// Usage: node bench/gateway-syscalls.mjs [cli.js=dist/cli.js] [calls=2000] [concurrency=1] [warmup=2000]
import { spawn } from 'node:child_process';
import { benchServers } from './lib/servers.mjs';
import { startGatewayProcess, startMinimalProxy } from './lib/hotPath.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';

const [cli = 'dist/cli.js', calls = 2000, concurrency = 1, warmup = 2000] = process.argv.slice(2).map((x, i) => (i === 0 ? x : Number(x)));
const spec = benchServers().everything;
const params = { name: 'echo', arguments: { message: 'hello' } };

async function measure(label, proc, url, token) {
  const sessions = await Promise.all(Array.from({ length: concurrency }, () => rawSession(url, token)));
  const run = (n) =>
    Promise.all(
      sessions.map(async (s, k) => {
        for (let i = k; i < n; i += concurrency) await s.request('tools/call', params);
      }),
    );
  await run(warmup);
  const strace = spawn('strace', ['-c', '-p', String(proc.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let report = '';
  strace.stderr.on('data', (d) => (report += d));
  await new Promise((resolve) => setTimeout(resolve, 500));
  await run(calls);
  await new Promise((resolve) => setTimeout(resolve, 200));
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.on('close', resolve));
  const counts = {};
  for (const line of report.split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (m) counts[m[2]] = Number(m[1]);
  }
  const shown = Object.entries(counts)
    .filter(([, n]) => n >= calls / 100)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${(n / calls).toFixed(2)}`);
  console.log(`${label}: ${calls} calls at concurrency ${concurrency}, system calls per call: ${shown.join(', ')}`);
  await proc.close();
}

const gw = await startGatewayProcess({ everything: spec }, { cli });
await measure(`gateway (${cli})`, gw, `${gw.url}/everything`, gw.token);
const proxy = await startMinimalProxy(spec);
await measure('floor', proxy, proxy.url, 'unused');
process.exit(0);
