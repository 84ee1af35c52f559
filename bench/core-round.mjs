// The core's round trip per warm forwarded `tools/call`, in-process, exactly as the
// gateway crosses it: `clientPost` (the POST body in, routing and effects out) then
// `messageReceived` (the server's answer in, the reply out), small message. ENTRY=stdio:
// as `serve --stdio` crosses it instead: `clientMessage` (client `stdio`, the aggregate
// endpoint; the line in, effects out) then `messageReceived`. Compares
// built dist/ directories side by side in one process, rotating the order each rep.
// Usage: node bench/core-round.mjs DIST [DIST...]   (env ROUNDS=10000, REPS=15, HEADERS=0: no MCP header, ENTRY=stdio)
// Prints per dist the median and min µs per round, wall time and the process's CPU time.
// The routing and effects are read as the host's driver reads them (host/hotParts.ts:
// a warm call's compact parts by slices, any other part by JSON.parse).
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadServers } from './lib/engineConfig.mjs';
import { loadHostModule } from '../tests/node/helpers/bundle.mjs';
const { effectsOf, routingOf } = await loadHostModule('host/hotParts');
const require = createRequire(import.meta.url);
const dists = process.argv.slice(2);
const rounds = +(process.env.ROUNDS ?? 10000), reps = +(process.env.REPS ?? 15);
const now = () => Date.now();
/** The crossings return their parts joined by U+001E (an array before; `clientMessage` until its compact form). */
const split = (out) => (typeof out === 'string' ? out.split('\u001e') : out);
/**
 * `clientPost` as the driver calls it, with the `MCP-Protocol-Version` header a real client sends
 * (HEADERS=0: none, as the bench's bare HTTP client): as JSON (builds before the headers became
 * arguments of their own: 6 parameters) or as values.
 */
const protocolVersion = process.env.HEADERS === '0' ? undefined : '2025-06-18';
const clientPost = (engine, body) =>
  engine.clientPost.length === 6
    ? engine.clientPost(now(), 'c', 's', body, protocolVersion === undefined ? undefined : JSON.stringify({ protocolVersion, method: undefined, name: undefined }), true)
    : engine.clientPost(now(), 'c', 's', body, protocolVersion, undefined, undefined, true);
const stdio = process.env.ENTRY === 'stdio';
/** A client's message as the entry under test takes it: part 0 the routing (`clientPost`) or none (`clientMessage`). */
const clientSend = (engine, body) => (stdio ? split(engine.clientMessage(now(), 'stdio', undefined, body)) : split(clientPost(engine, body)));
const routed = stdio ? 0 : 1;
const tool = stdio ? 's__echo' : 'echo';
function connected(core) {
  const engine = new core.Engine('{}');
  let effects = [];
  const run = (parts, skip = 0) => { const list = effectsOf(parts[skip]); let next = skip + 1; for (const e of list) if (e.type === 'send' || e.type === 'reply' || e.type === 'notifyClient') e.message = parts[next++]; effects = list; return list; };
  effects = loadServers((json) => run(engine.handleSplit(now(), json)), { s: { command: 'x' } });
  const conn = () => effects.find((e) => e.type === 'open')?.conn;
  let c = conn();
  run(engine.handleSplit(now(), JSON.stringify({ type: 'connectionOpened', conn: c, pid: 1 })));
  const tools = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
  const answerAll = () => { for (let g = 0; g < 20; g++) { const sends = effects.filter((e) => e.type === 'send').map((e) => JSON.parse(e.message)).filter((m) => m.id !== undefined && m.method); if (!sends.length) return; const rep = []; for (const m of sends) { const result = m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } : m.method === 'tools/list' ? tools : { [m.method.split('/')[0]]: [] }; rep.push(...run(split(engine.messageReceived(now(), c, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result })))))); } effects = rep; } };
  answerAll();
  const post = (m) => run(clientSend(engine, Buffer.from(JSON.stringify(m))), routed);
  post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
  post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  post({ jsonrpc: '2.0', id: 'warm', method: 'tools/call', params: { name: tool, arguments: {} } });
  c = conn() ?? c;
  if (effects.some((e) => e.type === 'open')) run(engine.handleSplit(now(), JSON.stringify({ type: 'connectionOpened', conn: c, pid: 2 })));
  answerAll();
  const state = JSON.parse(engine.snapshot()).servers[0].state.kind;
  if (state !== 'CONNECTED') throw new Error(state);
  return { engine, conn: c };
}
const sides = dists.map((d) => { const core = require(path.resolve(d, 'core', 'lazy_mcp_wasm.js')); return { d, ...connected(core), samples: [], cpu: [] }; });
const round = ({ engine, conn }, i) => {
  const out = clientSend(engine, Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"${tool}","arguments":{"message":"hello"}}}`));
  if (!stdio && routingOf(out[0]).messages[0].id !== i) throw new Error(out[0]);
  const effects = effectsOf(out[routed]);
  const carriers = effects.filter((e) => e.type === 'send' || e.type === 'reply' || e.type === 'notifyClient');
  const sent = out[routed + 1 + carriers.findIndex((e) => e.type === 'send')];
  const upstreamId = /"id":(\d+)/.exec(sent.slice(0, 40))[1];
  const back = split(engine.messageReceived(now(), conn, Buffer.from(`{"jsonrpc":"2.0","id":${upstreamId},"result":{"content":[{"type":"text","text":"Echo: hello"}]}}`)));
  if (effectsOf(back[0])[0].type !== 'reply') throw new Error(back[0]);
  return back[back.length - 1];
};
for (const s of sides) for (let i = 0; i < 5000; i++) round(s, i);
for (let r = 0; r < reps; r++) {
  for (const s of r % 2 ? [...sides].reverse() : sides) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let i = 0; i < rounds; i++) { const reply = round(s, i); if (i === 0 && !reply.includes('"id":0')) throw new Error(reply); }
    s.samples.push(((performance.now() - t0) / rounds) * 1000);
    const c = process.cpuUsage(c0);
    s.cpu.push((c.user + c.system) / rounds);
  }
}
const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
// CPU time as well (the process's, all threads): on a loaded machine wall time includes time preempted.
for (const s of sides) console.log(`${s.d}: median ${median(s.samples).toFixed(2)} min ${Math.min(...s.samples).toFixed(2)} µs/round; CPU median ${median(s.cpu).toFixed(2)} min ${Math.min(...s.cpu).toFixed(2)} µs/round`);
