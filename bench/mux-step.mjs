// The shared owner's multiplexer step (WASM `SharedOwner`, core shared/mux.rs) in
// one Node process, as the owner calls it: a `tools/call` in (`clientMessage`) and
// its answer back (`serverMessage`, a server-memory `read_graph` answer), each
// with the owner's reading of the effects. Warm (back to back) and cold (16 MB of
// memory touched between rounds, as when other processes ran in between; or other code of
// the same module and of V8 run between rounds, for cold instruction caches).
// Usage: node bench/mux-step.mjs [dist]   (dist: a build's folder, default dist/)
import path from 'node:path';
import { createRequire } from 'node:module';
import { loadServers } from './lib/engineConfig.mjs';
import { handled } from '../tests/node/helpers/splitEffects.mjs';
const dir = process.argv[2] ?? 'dist';
const core = createRequire(import.meta.url)(path.resolve(dir, 'core', 'lazy_mcp_wasm.js'));
const mux = new core.SharedOwner();
// A step's effects: the old builds return them as a fresh Uint8Array with a JSON table; the
// newer ones leave them in the WASM memory (a binary table when only messages), copied out as the owner does.
let heap = typeof mux.memory === 'function' ? Buffer.from(mux.memory().buffer) : undefined;
const effects = (r) => {
  if (typeof r !== 'number') { const out = Buffer.from(r.buffer, r.byteOffset, r.byteLength); const e = out.length - 4; return [out, JSON.parse(out.toString('utf8', e - out.readUInt32LE(e), e))]; }
  if (heap.length === 0) heap = Buffer.from(mux.memory().buffer);
  const out = Buffer.allocUnsafe(heap.readUInt32LE(r)); heap.copy(out, 0, r, r + out.length);
  const e = out.length - 4; const json = out.readUInt32LE(e);
  if (json > 0) return [out, JSON.parse(out.toString('utf8', e - json, e))];
  const list = []; const tableEnd = out.length - 8;
  for (let row = tableEnd - 16 * out.readUInt32LE(tableEnd); row < tableEnd; row += 16) list.push({ type: out.readUInt32LE(row) === 1 ? 'toServer' : 'toClient', who: out.readUInt32LE(row + 4), at: out.readUInt32LE(row + 8), end: out.readUInt32LE(row + 12) });
  return [out, list];
};
const launch = { key: 'k', rootsKey: '', rootsBound: false, workspaceCwd: false, omitEnv: [], holder: 'bench' };
let [, eff] = effects(mux.handle(JSON.stringify({ type: 'attach', attach: 1, server: 'memory', launch, transport: { type: 'stdio', command: 'x', args: [] }, cwd: null, env: {}, nowMs: Date.now() }), Date.now()));
const proc = eff.find((e) => e.type === 'spawn').process;
effects(mux.handle(JSON.stringify({ type: 'processOpened', process: proc, pid: 1 }), Date.now()));
// The handshake, as a session's first messages.
const send = (m) => effects(mux.clientMessage(1, Buffer.from(JSON.stringify(m)), Date.now()));
let [o, ef] = send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
const ts = ef.find((e) => e.type === 'toServer'); const initId = JSON.parse(o.toString('utf8', ts.at, ts.end)).id;
effects(mux.serverMessage(proc, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: initId, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } })), Date.now()));
send({ jsonrpc: '2.0', method: 'notifications/initialized' });
const answerText = JSON.stringify({ type: 'text', text: JSON.stringify({ entities: [], relations: [] }, null, 2) });
const round = (i) => {
  const [out, list] = effects(mux.clientMessage(1, Buffer.from(`{"method":"tools/call","params":{"name":"read_graph","arguments":{}},"jsonrpc":"2.0","id":${i}}`), Date.now()));
  const t = list[0]; const sid = /"id":(\d+)/.exec(out.toString('utf8', t.at, t.end))[1];
  const [, back] = effects(mux.serverMessage(proc, Buffer.from(`{"result":{"content":[${answerText}]},"jsonrpc":"2.0","id":${sid}}`), Date.now()));
  if (back[0]?.type !== 'toClient') throw new Error(JSON.stringify(back));
};
const trash = new Uint8Array(16 * 1024 * 1024);
const thrash = () => { for (let k = 0; k < trash.length; k += 64) trash[k]++; };
// Other code between rounds, as other processes run between the owner's wake-ups: an engine
// of the same module taking a config (much of the .wasm's code) and some of V8's own.
const servers = Object.fromEntries([1, 2, 3].map((i) => [`s${i}`, { command: 'x', args: [String(i)] }]));
const otherCode = () => {
  const engine = new core.Engine('{}');
  loadServers((json) => handled(engine, Date.now(), json), servers);
  engine.free();
  JSON.parse(JSON.stringify({ a: [1, 2, 3].map((x) => ({ x, s: `v${x}`.repeat(50) })) })).a.map((o) => /v(\d+)/.exec(o.s));
};
for (let i = 1; i < 5000; i++) round(i);
let id = 10000;
const modes = [['warm', undefined], ['cold data (16 MB touched between rounds)', thrash], ['other code between rounds', otherCode], ['both between rounds', () => (otherCode(), thrash())]];
for (const [label, between] of [...modes, ...modes]) {
  let total = 0; const N = between ? 500 : 20000;
  for (let i = 0; i < N; i++) { between?.(); const t0 = process.hrtime.bigint(); round(id++); total += Number(process.hrtime.bigint() - t0); }
  console.log(`${label}: ${(total / N / 1000).toFixed(1)} µs per round (request + answer)`);
}
