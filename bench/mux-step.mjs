// The shared owner's multiplexer step (WASM `SharedOwner`, core shared/mux.rs) in
// one Node process, as the owner calls it: a `tools/call` in (`clientMessage`) and
// its answer back (`serverMessage`, a server-memory `read_graph` answer), each
// with the owner's reading of the effects. Warm (back to back) and cold (16 MB of
// memory touched between rounds, as when other processes ran in between).
// Usage: node bench/mux-step.mjs [dist]   (dist: a build's folder, default dist/)
import path from 'node:path';
import { createRequire } from 'node:module';
const dir = process.argv[2] ?? 'dist';
const core = createRequire(import.meta.url)(path.resolve(dir, 'core', 'lazy_mcp_wasm.js'));
const mux = new core.SharedOwner();
const effects = (bytes) => { const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength); const e = out.length - 4; return [out, JSON.parse(out.toString('utf8', e - out.readUInt32LE(e), e))]; };
const launch = { key: 'k', rootsKey: '', rootsBound: false, workspaceCwd: false, omitEnv: [], holder: 'bench' };
let [, eff] = effects(mux.handle(JSON.stringify({ type: 'attach', attach: 1, server: 'memory', launch, transport: { type: 'stdio', command: 'x', args: [] }, cwd: null, env: {}, nowMs: Date.now() })));
const proc = eff.find((e) => e.type === 'spawn').process;
effects(mux.handle(JSON.stringify({ type: 'processOpened', process: proc, pid: 1 })));
// The handshake, as a session's first messages.
const send = (m) => effects(mux.clientMessage(1, Buffer.from(JSON.stringify(m))));
let [o, ef] = send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
const ts = ef.find((e) => e.type === 'toServer'); const initId = JSON.parse(o.toString('utf8', ts.at, ts.end)).id;
effects(mux.serverMessage(proc, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: initId, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }))));
send({ jsonrpc: '2.0', method: 'notifications/initialized' });
const answerText = JSON.stringify({ type: 'text', text: JSON.stringify({ entities: [], relations: [] }, null, 2) });
const round = (i) => {
  const [out, list] = effects(mux.clientMessage(1, Buffer.from(`{"method":"tools/call","params":{"name":"read_graph","arguments":{}},"jsonrpc":"2.0","id":${i}}`)));
  const t = list[0]; const sid = /"id":(\d+)/.exec(out.toString('utf8', t.at, t.end))[1];
  const [, back] = effects(mux.serverMessage(proc, Buffer.from(`{"result":{"content":[${answerText}]},"jsonrpc":"2.0","id":${sid}}`)));
  if (back[0]?.type !== 'toClient') throw new Error(JSON.stringify(back));
};
const trash = new Uint8Array(16 * 1024 * 1024);
const thrash = () => { for (let k = 0; k < trash.length; k += 64) trash[k]++; };
for (let i = 1; i < 5000; i++) round(i);
let id = 10000;
for (const [label, cold] of [['warm', false], ['cold (16 MB touched between rounds)', true], ['warm', false], ['cold (16 MB touched between rounds)', true]]) {
  let total = 0; const N = cold ? 500 : 20000;
  for (let i = 0; i < N; i++) { if (cold) thrash(); const t0 = process.hrtime.bigint(); round(id++); total += Number(process.hrtime.bigint() - t0); }
  console.log(`${label}: ${(total / N / 1000).toFixed(1)} µs per round (request + answer)`);
}
