// Where the gateway's time goes on the hot path: `lazy-mcp serve --http` in its
// own process under `node --cpu-prof`, N warm `echo` calls (or large ones) from a
// bare HTTP client, then the profile's self time per function. Usage:
//   node bench/profile-gateway.mjs [calls=5000] [messageBytes=5] [top=40] [concurrency=1]
// Writes the .cpuprofile to bench/results/profiles/ (open it in Chrome DevTools) and
// prints the self time per function and per kind of code.
import fs from 'node:fs';
import path from 'node:path';
import { benchServers, repoRoot } from './lib/servers.mjs';
import { bigMessage, processCpuNs, startGatewayProcess } from './lib/hotPath.mjs';
import { rawSession } from './lib/rawHttpClient.mjs';

const [calls = 5000, bytes = 5, top = 40, concurrency = 1] = process.argv.slice(2).map(Number);
const dir = path.join(repoRoot, 'bench', 'results', 'profiles');
fs.mkdirSync(dir, { recursive: true });
const before = new Set(fs.readdirSync(dir));
const gw = await startGatewayProcess({ everything: benchServers().everything }, { nodeArgs: ['--cpu-prof-interval', '50'], profileDir: dir });
let cpuUs;
try {
  const session = await rawSession(`${gw.url}/everything`, gw.token);
  const params = { name: 'echo', arguments: { message: bigMessage(bytes) } };
  for (let i = 0; i < 50; i++) await session.request('tools/call', params); // connects upstream, warms up
  const cpu0 = processCpuNs(gw.pid);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < calls) await session.request('tools/call', params);
    }),
  );
  const ms = performance.now() - t0;
  cpuUs = (processCpuNs(gw.pid) - cpu0) / calls / 1000;
  console.log(`${calls} calls of ${bytes} bytes, ${concurrency} at a time: ${(ms / calls).toFixed(3)} ms each, gateway CPU ${cpuUs.toFixed(0)} µs per call`);
  await session.close();
} finally {
  await gw.close();
}
const file = fs.readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
let busy = 0;
profile.samples.forEach((id, i) => {
  const { callFrame: f } = nodes.get(id);
  const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
  const dt = profile.timeDeltas[i] ?? 0;
  if (key !== '(idle)') busy += dt;
  self.set(key, (self.get(key) ?? 0) + dt);
});
self.delete('(idle)');
console.log(`profile ${path.join('bench/results/profiles', file)}: ${(busy / 1000).toFixed(0)} ms busy; self time:`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${key}`);
}

// The same self time by kind of code (the profiler charges a write's time in the
// kernel to the builtin that made it: writev, writeUtf8String).
const kindOf = ({ functionName: name, url }) => {
  if (['writev', 'writeUtf8String', 'writeBuffer', 'writeLatin1String'].includes(name)) return 'native socket/pipe writes (syscalls, incl. waking the peer)';
  if (name === '(garbage collector)' || name === '(program)') return 'V8: (program), GC';
  // Unnamed frames of the shipped build, or named ones of a build with its name section kept (`wasm-opt -g`).
  if (/^(wasm-function|js-to-wasm|wasm-to-js)/.test(name) || /\.wasm/.test(url)) return 'WASM core';
  if (/lazy_mcp_wasm\.js/.test(url)) return 'wasm-bindgen glue';
  if (/cli\.js/.test(url)) return 'host JavaScript (dist/cli.js: gateway, driver, connections)';
  return "Node internals (http parser, streams, events, timers) and other natives";
};
const kinds = new Map();
profile.samples.forEach((id, i) => {
  const frame = nodes.get(id).callFrame;
  if (frame.functionName === '(idle)') return;
  const kind = kindOf(frame);
  kinds.set(kind, (kinds.get(kind) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
console.log('\n| kind | ms | share | per call |\n|---|--:|--:|--:|');
for (const [kind, us] of [...kinds].sort((a, b) => b[1] - a[1])) {
  console.log(`| ${kind} | ${(us / 1000).toFixed(0)} | ${((100 * us) / busy).toFixed(1)} % | ${(us / calls).toFixed(0)} µs |`);
}
