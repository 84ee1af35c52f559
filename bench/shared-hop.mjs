// The hop through the owner of shared servers (issue 26): warm `tools/call`
// latency through `lazy-mcp serve --stdio` with its own server (--isolated)
// and through the owner (--shared), same real server (server-memory), same
// SDK client, interleaved rounds; then throughput with 8 calls in flight at
// once (interleaved rounds of each). Usage:
//   node bench/shared-hop.mjs [calls=300] [--cli path/to/dist/cli.js] [--concurrency 8] [--rounds 5] [--warmup 0] [--profile DIR] [--relay]
// --relay: a third path, interleaved with the two: `serve --stdio --shared` whose socket leads to a
// do-nothing relay (bench/lib/doNothingRelay.mjs) instead of the owner, started the way the owner is
// (its own session, its server in another): the floor of any owner process on this path.
// --warmup N: N calls on each path first, not counted (the processes' JIT warm, as in a
// long-running owner). --cli compares another build (a copy of an older dist/) under the same load.
// Besides the times it prints each process's CPU and read/write system calls per call (Linux /proc):
// sequential, and at concurrency 8. --profile writes the two serve sessions' CPU profiles into DIR.
// To profile the owner, start it first with `node --cpu-prof dist/cli.js daemon run --socket-dir D`
// and run the bench with LAZY_MCP_SOCKET_DIR=D. A CPU profile samples wall time: a process that a
// write preempts (the woken reader runs) is sampled in that write, so compare with the CPU lines.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
// cpuTicks: each process's CPU on a path, to say where a call's time goes.
import { cpuTicks } from './lib/servers.mjs';

const argv = process.argv.slice(2);
const flag = (name) => {
  const at = argv.indexOf(name);
  if (at >= 0) argv.splice(at, 1);
  return at >= 0;
};
const withRelay = flag('--relay');
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const [value] = argv.splice(at, 2).slice(1);
  return value;
};
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.resolve(option('--cli', path.join(repo, 'dist', 'cli.js')));
const concurrency = Number(option('--concurrency', 8));
const rounds = Number(option('--rounds', 5));
const warmup = Number(option('--warmup', 0));
const profile = option('--profile', undefined);
const calls = Number(argv[0] ?? 300);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-shared-hop-'));
const home = path.join(root, 'home');
fs.mkdirSync(home);
const memory = path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(root, 'm.jsonl') } } } }));
const env = { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_CONFIG_HOME: path.join(home, '.config'), LAZY_MCP_SOCKET_DIR: process.env.LAZY_MCP_SOCKET_DIR ?? path.join(root, 'sock'), LAZY_MCP_OWNER_LINGER_MS: '500', ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}) };

async function session(flag, sessionEnv = env) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...(profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profile)] : []), cli, 'serve', '--stdio', flag, '--cwd', root], env: sessionEnv, stderr: 'ignore' });
  const client = new Client({ name: 'shared-hop', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'memory__read_graph', arguments: {} }); // warm: started and connected
  client.pid = transport.pid;
  return client;
}

// Read and write system calls (Linux /proc/PID/io `syscr`, `syscw`; a writev counts once): what batching saves.
const syscalls = (pid) => {
  try {
    const io = Object.fromEntries(fs.readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n').map((l) => l.split(': ')));
    return { r: Number(io.syscr), w: Number(io.syscw) };
  } catch {
    return { r: NaN, w: NaN };
  }
};
const childrenOf = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
/** serve, owner (shared) and the server process, by pid. */
function pathOf(name, client) {
  if (name === 'isolated') return { serve: client.pid, server: childrenOf(client.pid)[0] };
  if (name === 'relay') return { serve: client.pid, relay: relay.pid, server: childrenOf(relay.pid)[0] };
  const sock = env.LAZY_MCP_SOCKET_DIR;
  const owner = fs.readdirSync('/proc').map(Number).find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(`daemon run --socket-dir ${sock}`);
    } catch {
      return false;
    }
  });
  return { serve: client.pid, owner, server: owner === undefined ? undefined : childrenOf(owner)[0] };
}

const call = (client) => client.callTool({ name: 'memory__read_graph', arguments: {} });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const isolated = await session('--isolated');
const shared = await session('--shared');
// The relay listens where a client looks for the owner (the wire version in the socket's name).
const relayDir = path.join(root, 'relay-sock');
let relay;
if (withRelay) {
  fs.mkdirSync(relayDir, { mode: 0o700 });
  relay = spawn(process.execPath, [path.join(repo, 'bench', 'lib', 'doNothingRelay.mjs'), relayDir, '--detach'], { detached: true, stdio: 'ignore', env });
  while (!fs.existsSync(path.join(relayDir, 'relay.sock'))) await new Promise((r) => setTimeout(r, 20));
  const protocol = createRequire(import.meta.url)(path.join(path.dirname(cli), 'core', 'lazy_mcp_wasm.js')).sharedProtocol();
  fs.symlinkSync(path.join(relayDir, 'relay.sock'), path.join(relayDir, `owner-v${protocol}.sock`));
}
const relayed = withRelay ? await session('--shared', { ...env, LAZY_MCP_SOCKET_DIR: relayDir }) : undefined;
const clients = [['isolated', isolated], ['shared', shared], ...(relayed ? [['relay', relayed]] : [])];
const times = Object.fromEntries(clients.map(([name]) => [name, []]));
for (let i = 0; i < warmup; i++) for (const [, client] of clients) await call(client);
// What one sequential call costs each process (CPU and system calls, over the timed calls of both paths).
const seqProcs = Object.fromEntries(clients.map(([name, client]) => [name, pathOf(name, client)]));
const sample = () =>
  Object.fromEntries(Object.entries(seqProcs).map(([name, procs]) => [name, Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, { t: cpuTicks(pid), ...syscalls(pid) }]))]));
const seqBefore = sample();
for (let i = 0; i < calls; i++) {
  for (const [name, client] of clients) {
    const t0 = process.hrtime.bigint();
    await call(client);
    times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}

const seqAfter = sample();
// Clock ticks are 10 ms (CLK_TCK 100): a resolution of 10,000 / calls µs.
const seqCost = (name) =>
  Object.entries(seqAfter[name])
    .map(([k, a]) => {
      const b = seqBefore[name][k];
      return `${k} ${(((a.t - b.t) * 1e4) / calls).toFixed(0)} µs ${((a.r - b.r) / calls).toFixed(1)}/${((a.w - b.w) / calls).toFixed(1)}`;
    })
    .join(', ');

// Throughput: `concurrency` callers each awaiting their call, `calls` calls per round.
async function throughput(client) {
  let left = calls;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await call(client);
    }),
  );
  return calls / (Number(process.hrtime.bigint() - t0) / 1e9);
}
const rates = Object.fromEntries(clients.map(([name]) => [name, []]));
const cpu = Object.fromEntries(clients.map(([name]) => [name, {}]));
const sys = Object.fromEntries(clients.map(([name]) => [name, {}]));
for (const [, client] of clients) await throughput(client); // a warm-up round each, not counted
for (let r = 0; r < rounds; r++) {
  for (const [name, client] of r % 2 === 0 ? clients : [...clients].reverse()) {
    const procs = pathOf(name, client);
    const before = Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, cpuTicks(pid)]));
    const callsBefore = Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, syscalls(pid)]));
    rates[name].push(await throughput(client));
    for (const [k, pid] of Object.entries(procs)) {
      cpu[name][k] = (cpu[name][k] ?? 0) + cpuTicks(pid) - before[k];
      const now = syscalls(pid);
      sys[name][k] = { r: (sys[name][k]?.r ?? 0) + now.r - callsBefore[k].r, w: (sys[name][k]?.w ?? 0) + now.w - callsBefore[k].w };
    }
  }
}
await isolated.close();
await shared.close();
// The relay ends its server and exits when its client leaves (a kill would leave the detached server behind).
await relayed?.close();
if (relay && relay.exitCode === null) await Promise.race([new Promise((r) => relay.once('exit', r)), new Promise((r) => setTimeout(r, 3000))]);
const mi = median(times.isolated);
const ms = median(times.shared);
console.log(`${path.relative(process.cwd(), cli) || cli}`);
console.log(`warm tools/call, median of ${calls}${warmup ? ` after ${warmup} uncounted` : ''}: isolated ${mi.toFixed(3)} ms, shared ${ms.toFixed(3)} ms, hop +${(ms - mi).toFixed(3)} ms`);
const rate = (xs) => `${median(xs).toFixed(0)} calls/s (rounds ${xs.map((x) => x.toFixed(0)).join(', ')})`;
console.log(`per sequential call (CPU user + system; read/write system calls): isolated ${seqCost('isolated')}; shared ${seqCost('shared')}`);
console.log(`concurrency ${concurrency}, ${calls} calls per round, median of ${rounds}: isolated ${rate(rates.isolated)}, shared ${rate(rates.shared)}, shared/isolated ${(median(rates.shared) / median(rates.isolated)).toFixed(2)}`);
// Clock ticks are 10 ms (CLK_TCK 100 on Linux): µs per call over all rounds.
const perCall = (name) => Object.entries(cpu[name]).map(([k, t]) => `${k} ${Number.isNaN(t) ? '?' : ((t * 1e4) / (calls * rounds)).toFixed(0)}`).join(', ');
console.log(`CPU per call at concurrency ${concurrency} (µs, user + system): isolated ${perCall('isolated')}; shared ${perCall('shared')}`);
const sysPerCall = (name) => Object.entries(sys[name]).map(([k, { r, w }]) => `${k} ${(r / (calls * rounds)).toFixed(2)}/${(w / (calls * rounds)).toFixed(2)}`).join(', ');
console.log(`reads/writes per call at concurrency ${concurrency} (system calls): isolated ${sysPerCall('isolated')}; shared ${sysPerCall('shared')}`);
if (relayed) {
  const mr = median(times.relay);
  console.log(`through a do-nothing relay instead of the owner: warm tools/call ${mr.toFixed(3)} ms, +${(mr - mi).toFixed(3)} ms over isolated (the owner's own part: +${(ms - mr).toFixed(3)} ms)`);
  console.log(`  per sequential call: ${seqCost('relay')}; concurrency ${concurrency}: ${rate(rates.relay)}, relay/isolated ${(median(rates.relay) / median(rates.isolated)).toFixed(2)}; CPU per call ${perCall('relay')}`);
}
fs.rmSync(root, { recursive: true, force: true });
