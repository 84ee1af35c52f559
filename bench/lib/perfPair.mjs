// What bench/perf-cpu.mjs and bench/perf-items.mjs share: `lazy-mcp serve --http
// --isolated` and the do-nothing proxy (minimalProxy.mjs), each under `node
// --perf-basic-prof` so JIT frames have names, warmed up in turns at the same
// concurrency (neither sits idle while the other warms up), then `perf record -e
// cpu-clock` of each over the same calls of `echo`; `sort(data)` turns a
// recording into sample counts by item, and the table prints µs per call.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchServers, repoRoot } from './servers.mjs';
import { processCpuNs, startGatewayProcess } from './hotPath.mjs';
import { rawSession } from './rawHttpClient.mjs';

/** Both processes recorded: `[gateway, floor]`, each `{ cpuUs, counts }`. */
export async function recordGatewayAndFloor({ cli, calls, concurrency, warmup, hz, callGraph = false, sort, tmpPrefix }) {
  const spec = benchServers().everything;
  const params = { name: 'echo', arguments: { message: 'hello' } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  const concurrently = async (session, n) => {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => { while (next++ < n) await session.request('tools/call', params); }));
  };
  const record = async (label, session, pid) => {
    const data = path.join(dir, `${label}.data`);
    const perf = spawn('perf', ['record', ...(callGraph ? ['-g'] : []), '-e', 'cpu-clock', '-F', String(hz), '-p', String(pid), '-o', data], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpu0 = processCpuNs(pid);
    await concurrently(session, calls);
    const cpuUs = (processCpuNs(pid) - cpu0) / calls / 1000;
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.once('exit', resolve));
    return { cpuUs, counts: sort(data) };
  };
  const gw = await startGatewayProcess({ everything: spec }, { cli, nodeArgs: ['--perf-basic-prof'] });
  const proxy = spawn(process.execPath, ['--perf-basic-prof', path.join(repoRoot, 'bench', 'lib', 'minimalProxy.mjs'), spec.command, ...spec.args], {
    env: { ...process.env, ...(spec.env ?? {}) },
    stdio: ['ignore', 'pipe', 'ignore'],
    // --perf-basic-prof leaves an isolate-*.log in the working directory.
    cwd: dir,
  });
  const port = await new Promise((resolve) => proxy.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  try {
    const viaGateway = await rawSession(`${gw.url}/everything`, gw.token);
    const viaProxy = await rawSession(`http://127.0.0.1:${port}/mcp`, 'unused');
    for (let done = 0; done < warmup; done += 1000) for (const s of [viaGateway, viaProxy]) await concurrently(s, Math.min(1000, warmup - done));
    const results = [await record('gateway', viaGateway, gw.pid), await record('floor', viaProxy, proxy.pid)];
    await viaGateway.close();
    await viaProxy.close();
    return results;
  } finally {
    await gw.close();
    const exited = new Promise((resolve) => proxy.once('exit', resolve));
    proxy.kill('SIGTERM');
    await exited;
    for (const pid of [gw.pid, proxy.pid]) fs.rmSync(`/tmp/perf-${pid}.map`, { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The gateway's and the floor's µs per call by item (largest difference first), optionally with a total row. */
export function printItems(heading, [g, f], { calls, hz, total = false }) {
  const us = (r, k) => ((r.counts.get(k) ?? 0) * (1e6 / hz)) / calls;
  const sum = (r) => ([...r.counts.values()].reduce((a, b) => a + b, 0) * (1e6 / hz)) / calls;
  console.log(`| ${heading} | gateway µs/call | floor µs/call | difference |\n|---|--:|--:|--:|`);
  const keys = [...new Set([...g.counts.keys(), ...f.counts.keys()])].sort((a, b) => us(g, b) - us(f, b) - (us(g, a) - us(f, a)));
  for (const k of keys) console.log(`| ${k} | ${us(g, k).toFixed(1)} | ${us(f, k).toFixed(1)} | ${(us(g, k) - us(f, k)).toFixed(1)} |`);
  if (total) console.log(`| total | ${sum(g).toFixed(1)} | ${sum(f).toFixed(1)} | ${(sum(g) - sum(f)).toFixed(1)} |`);
}
