// `npm run bench:boundary`: the WASM crossing of the hot path, measured on the
// real built core (dist/core) with no I/O: one forwarded `tools/call` and its
// answer per round, small and 4 MB, through the two crossings the facade offers:
//   json:  handle(now, eventJson) → effectsJson — the message escaped inside the
//          event's JSON on the way in and inside the effects' JSON on the way out;
//   split: clientMessage/messageReceived(now, …, utf8Bytes) → [effects, ...payloads]
//          joined by U+001E into one string (an array before; the effects compact for a
//          warm call) — the message crosses on its own both ways (in as bytes, out as a string).
// Writes bench/results/boundary.json.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot } from './lib/servers.mjs';
import { median } from './lib/stats.mjs';
import { bigMessage } from './lib/hotPath.mjs';
import { loadServers } from './lib/engineConfig.mjs';
import { loadHostModule } from '../tests/node/helpers/bundle.mjs';
// A warm call's effects may cross in their compact form: read as the host's driver reads them.
const { effectsOf } = await loadHostModule('host/hotParts');

const core = createRequire(import.meta.url)(path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js'));
if (typeof core.Engine.prototype.handle !== 'function') {
  console.error('dist/core has no Engine.handle (the JSON crossing, a test-only export): build with `node scripts/build.mjs --test-exports` first.');
  process.exit(1);
}
const now = () => Date.now();

/** An engine with one CONNECTED stdio server `s` (tool `echo`) and one initialized client `c`. */
function connectedEngine() {
  const engine = new core.Engine('{}');
  let effects = [];
  const run = (out) => {
    // The hot crossings join their parts with U+001E (crates/lazy-mcp-wasm `joined`).
    const parts = typeof out === 'string' ? out.split('\u001e') : out;
    const list = effectsOf(parts[0]);
    let next = 1;
    for (const e of list) if (e.type === 'send' || e.type === 'reply' || e.type === 'notifyClient') e.message = parts[next++];
    effects = list;
    return list;
  };
  effects = loadServers((json) => run(engine.handleSplit(now(), json)), { s: { command: 'x' } });
  const conn = () => effects.find((e) => e.type === 'open')?.conn;
  let c = conn();
  if (c === undefined) throw new Error(`no open effect: ${JSON.stringify(effects).slice(0, 400)}`);
  run(engine.handleSplit(now(), JSON.stringify({ type: 'connectionOpened', conn: c, pid: 1 })));
  const tools = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
  // Answer every request the engine sends until nothing is left to answer.
  const answerAll = () => {
    for (let guard = 0; guard < 20; guard++) {
      const sends = effects.filter((e) => e.type === 'send').map((e) => JSON.parse(e.message)).filter((m) => m.id !== undefined && m.method);
      if (!sends.length) return;
      const replies = [];
      for (const m of sends) {
        const result = m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } : m.method === 'tools/list' ? tools : { [m.method.split('/')[0]]: [] };
        replies.push(...run(engine.messageReceived(now(), c, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result })))));
      }
      effects = replies;
    }
  };
  answerAll();
  // Catalogued, then the client's first call connects the server for good.
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } } };
  run(engine.clientMessage(now(), 'c', 's', Buffer.from(JSON.stringify(init))));
  run(engine.clientMessage(now(), 'c', 's', Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))));
  run(engine.clientMessage(now(), 'c', 's', Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'warm', method: 'tools/call', params: { name: 'echo', arguments: {} } }))));
  c = conn() ?? c;
  if (effects.some((e) => e.type === 'open')) run(engine.handleSplit(now(), JSON.stringify({ type: 'connectionOpened', conn: c, pid: 2 })));
  answerAll();
  const state = JSON.parse(engine.snapshot()).servers[0].state.kind;
  if (state !== 'CONNECTED') throw new Error(`the simulated server is ${state}: ${JSON.stringify(effects).slice(0, 600)}`);
  return { engine, conn: c };
}

const splitRound = (engine, conn, request) => {
  const joinedOut = engine.clientMessage(now(), 'c', 's', Buffer.from(request));
  const out = typeof joinedOut === 'string' ? joinedOut.split('\u001e') : joinedOut;
  // Payloads follow in the order of the send/reply/notifyClient effects.
  const carriers = effectsOf(out[0]).filter((e) => e.type === 'send' || e.type === 'reply' || e.type === 'notifyClient');
  const sent = out[1 + carriers.findIndex((e) => e.type === 'send')];
  const upstreamId = /"id":(\d+)/.exec(sent.slice(0, 40))[1];
  const answer = sent.replace(/^\{"jsonrpc":"2.0","id":\d+,"method":"tools\/call","params":/, `{"jsonrpc":"2.0","id":${upstreamId},"result":`);
  // The effects' JSON, then the reply (joined by U+001E; read as the host does, the reply not searched).
  const back = engine.messageReceived(now(), conn, Buffer.from(answer));
  return typeof back === 'string' ? back.slice(back.indexOf('\u001e') + 1) : back[back.length - 1];
};
const jsonRound = (engine, conn, request) => {
  const effects = JSON.parse(engine.handle(now(), JSON.stringify({ type: 'clientMessage', client: 'c', endpoint: { kind: 'server', name: 's' }, message: request })));
  const sent = effects.find((e) => e.type === 'send').message;
  const upstreamId = /"id":(\d+)/.exec(sent.slice(0, 40))[1];
  const answer = sent.replace(/^\{"jsonrpc":"2.0","id":\d+,"method":"tools\/call","params":/, `{"jsonrpc":"2.0","id":${upstreamId},"result":`);
  const back = JSON.parse(engine.handle(now(), JSON.stringify({ type: 'messageReceived', conn, message: answer })));
  return back.find((e) => e.type === 'reply').message;
};

const results = { date: new Date().toISOString(), node: process.version, rows: [] };
for (const [label, bytes, rounds] of [['small (5 B message)', 5, 20000], ['4 MB message', 4_000_000, 15]]) {
  const message = bigMessage(bytes);
  const request = (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { message } } });
  const row = { label, bytes };
  const { engine, conn } = connectedEngine();
  const samples = { json: [], split: [] };
  for (let r = 0; r < 5; r++) {
    for (const [key, round] of r % 2 ? [['json', jsonRound], ['split', splitRound]] : [['split', splitRound], ['json', jsonRound]]) {
      const t0 = performance.now();
      for (let i = 0; i < rounds; i++) {
        const reply = round(engine, conn, request(i));
        if (i === 0 && JSON.parse(reply).id !== 0) throw new Error(`${key}: the reply lost its id: ${reply.slice(0, 200)}`);
      }
      samples[key].push(((performance.now() - t0) / rounds) * 1000);
    }
  }
  row.jsonUs = median(samples.json);
  row.splitUs = median(samples.split);
  results.rows.push(row);
  engine.free();
}
fs.mkdirSync(path.join(repoRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'boundary.json'), JSON.stringify(results, null, 2) + '\n');
console.log('| one forwarded call and its answer through the WASM engine | json crossing (message escaped inside the event/effects JSON) | split crossing (message on its own: bytes in, string out) | split / json |\n|---|---|---|---|');
for (const r of results.rows) console.log(`| ${r.label} | ${r.jsonUs.toFixed(1)} µs | ${r.splitUs.toFixed(1)} µs | ${(r.splitUs / r.jsonUs).toFixed(2)}× |`);
