// `lazy-mcp serve --stdio`'s own CPU per warm call: N sequential `tools/call`s
// to the tiny fixture server (--isolated: the server is serve's child, so its
// CPU is not counted), measured from /proc/PID/stat (utime + stime of the serve
// process) around the calls. Before/after: BENCH_CLIS=a/cli.js,b/cli.js runs
// each in turn, ROUNDS times (alternated), and prints µs per call.
//   node bench/stdio-cpu.mjs                      (this tree's dist/cli.js)
//   BENCH_CLIS=/tmp/before/cli.js,dist/cli.js ROUNDS=3 CALLS=3000 node bench/stdio-cpu.mjs
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const clis = (process.env.BENCH_CLIS ?? path.join(repo, 'dist', 'cli.js')).split(',').map((p) => path.resolve(p));
const rounds = Number(process.env.ROUNDS ?? 1);
const calls = Number(process.env.CALLS ?? 2000);
const ticks = 100; // USER_HZ on Linux

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-stdio-cpu-'));
const home = path.join(root, 'home');
const ws = path.join(root, 'ws');
fs.mkdirSync(home, { recursive: true });
fs.mkdirSync(ws, { recursive: true });
const tiny = path.join(repo, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { tiny: { command: process.execPath, args: [tiny, 'tiny'] } } }));
const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') };

/** utime + stime of `pid`, in ms. */
function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
}

async function measure(cli) {
  const child = spawn(process.execPath, [cli, 'serve', '--trust-project', '--isolated', '--stdio', '--cwd', ws], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let partial = '';
  child.stdout.on('data', (d) => {
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop();
    for (const line of lines) {
      const m = JSON.parse(line);
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    }
  });
  const ask = (id, method, params) =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await ask(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const call = (id) => ask(id, 'tools/call', { name: 'tiny__add', arguments: { a: 2, b: 3 } });
  for (let i = 1; i <= 200; i++) await call(i); // warm: connected, JIT warm
  const cpu0 = cpuMs(child.pid);
  const t0 = process.hrtime.bigint();
  for (let i = 1000; i < 1000 + calls; i++) {
    const answer = await call(i);
    if (answer.result?.content?.[0]?.text !== '5') throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
  }
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000 / calls;
  const cpuUs = ((cpuMs(child.pid) - cpu0) * 1000) / calls;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.stdin.end();
  await exited;
  return { cpuUs, wallUs };
}

for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? clis : [...clis].reverse();
  for (const cli of order) {
    const { cpuUs, wallUs } = await measure(cli);
    console.log(`round ${round} ${cli}: serve CPU ${cpuUs.toFixed(0)} µs/call, wall ${wallUs.toFixed(0)} µs/call (${calls} calls)`);
  }
}
fs.rmSync(root, { recursive: true, force: true });
