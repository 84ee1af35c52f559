// The owner's own part of the hop (issue 26), without `serve` and the SDK on the
// path: a hand-written client calls server-memory's `read_graph` (1) over the
// server's own stdio, (2) through `lazy-mcp daemon` (the owner: socket frames,
// the multiplexer) and (3) through a do-nothing relay process
// (bench/lib/doNothingRelay.mjs: the floor of any extra process on the path).
// Interleaved, one call at a time; also the CPU per call of the owner and of the relay
// (user + system, Linux /proc): what the owner does beyond being a process on the path. Usage:
//   node bench/owner-hop.mjs [calls=2000] [--cli path/to/dist/cli.js]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cpuTicks } from './lib/servers.mjs';

const argv = process.argv.slice(2);
const at = argv.indexOf('--cli');
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.resolve(at >= 0 ? argv.splice(at, 2)[1] : path.join(repo, 'dist', 'cli.js'));
const calls = Number(argv[0] ?? 2000);
const memory = path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-owner-hop-'));
const sockDir = path.join(root, 'sock');
fs.mkdirSync(sockDir, { mode: 0o700 });
const transport = { type: 'stdio', command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(root, 'm.jsonl') } };
const children = [];

/** JSON-RPC over newline-delimited messages: `write(text)` sends one; `onLine` takes one. */
function peer(write) {
  const waiting = new Map();
  let next = 0;
  return {
    onLine: (line) => {
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    },
    call: (method, params) =>
      new Promise((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      }),
    notify: (method) => write(JSON.stringify({ jsonrpc: '2.0', method })),
  };
}
function splitLines(stream, onLine) {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    text += chunk;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n')) {
      onLine(text.slice(0, nl));
      text = text.slice(nl + 1);
    }
  });
}
async function initialized(p) {
  await p.call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'owner-hop', version: '1' } });
  p.notify('notifications/initialized');
  return p;
}

async function direct() {
  const child = spawn(process.execPath, [memory], { env: { ...process.env, ...transport.env }, stdio: ['pipe', 'pipe', 'ignore'] });
  children.push(child);
  const p = peer((text) => child.stdin.write(`${text}\n`));
  splitLines(child.stdout, p.onLine);
  return initialized(p);
}

/** Attach through a process listening on `sockDir/name` (started by `args`) as a client of the owner does. */
async function through(name, args, pid) {
  if (args.length > 0) children.push(spawn(process.execPath, args, { stdio: 'ignore' }));
  let socket;
  for (let tries = 0; socket === undefined; tries++) {
    socket = await new Promise((resolve) => {
      const s = net.createConnection(path.join(sockDir, name));
      s.once('connect', () => resolve(s));
      s.once('error', () => setTimeout(() => resolve(undefined), 50));
    });
    if (tries > 200) throw new Error(`nothing listens on ${name}`);
  }
  const p = peer((text) => socket.write(`M${text}\n`));
  let opened;
  const isOpen = new Promise((resolve) => (opened = resolve));
  splitLines(socket, (line) => (line[0] === 'M' ? p.onLine(line.slice(1)) : line[0] === 'O' && opened()));
  const launch = { key: 'owner-hop', rootsKey: '', rootsBound: false, workspaceCwd: false, omitEnv: [], holder: 'bench/owner-hop' };
  socket.write(`A${JSON.stringify({ server: 'memory', launch, transport, cwd: null, env: process.env })}\n`);
  await isOpen;
  return { ...(await initialized(p)), socket, pid: pid ?? children[children.length - 1].pid };
}

const sockName = (dir) => fs.readdirSync(dir).find((f) => /^owner-v\d+\.sock$/.test(f));
const paths = {
  direct: await direct(),
  owner: await (async () => {
    const started = spawn(process.execPath, [cli, 'daemon', 'run', '--socket-dir', sockDir, '--linger-ms', '500'], { stdio: 'ignore' });
    children.push(started);
    for (let i = 0; sockName(sockDir) === undefined; i++) {
      if (i > 200) throw new Error('the owner did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    return through(sockName(sockDir), [], started.pid);
  })(),
  relay: await through('relay.sock', [path.join(repo, 'bench', 'lib', 'doNothingRelay.mjs'), sockDir]),
};
const times = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
const ticksBefore = { owner: cpuTicks(paths.owner.pid), relay: cpuTicks(paths.relay.pid) };
for (let i = 0; i < calls; i++) {
  for (const [name, p] of Object.entries(paths)) {
    const t0 = process.hrtime.bigint();
    await p.call('tools/call', { name: 'read_graph', arguments: {} });
    times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
const cpuPerCall = (name) => (((cpuTicks(paths[name].pid) - ticksBefore[name]) * 1e4) / calls).toFixed(0);
const cpu = { owner: cpuPerCall('owner'), relay: cpuPerCall('relay') };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
console.log(path.relative(process.cwd(), cli) || cli);
console.log(
  `tools/call read_graph, median of ${calls}: direct ${m.direct.toFixed(3)} ms, through the owner ${m.owner.toFixed(3)} ms (+${(m.owner - m.direct).toFixed(3)}), ` +
    `through a do-nothing relay ${m.relay.toFixed(3)} ms (+${(m.relay - m.direct).toFixed(3)})`,
);
console.log(`CPU per call (µs, user + system; clock ticks of 10 ms): the owner ${cpu.owner}, the relay ${cpu.relay}`);
for (const p of Object.values(paths)) p.socket?.end();
for (const child of children) child.kill();
setTimeout(() => fs.rmSync(root, { recursive: true, force: true }), 1000);
