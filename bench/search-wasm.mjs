// Hybrid tool search in the built WASM core, as the product runs it (issue 27; part of
// `npm run bench:search`, or `node bench/search-wasm.mjs` after `node scripts/build.mjs`).
// A WASM engine in `index` mode catalogues the held-out corpus's servers (simulated: their
// captured tools/list answers, no process), loads the embedding table, and answers
// `search_tools` calls from a client on the aggregate endpoint. Reports:
// - top-1 / top-5 of the two held-out query sets through the engine (the same ranking as the
//   native bench's hybrid column, end to end: query in, rendered answer out);
// - per search_tools call (JSON in, rendered text out, one crossing each): median and p99 at
//   500 and 2,000 tools (2,000: the 1,219 real tools and copies of real servers under other
//   names);
// - the tool vectors of 500 and 2,000 tools, made when the table is loaded after cataloguing
//   (its load time minus the load time of an engine with no catalogue, medians of 3);
// - with `SEARCH_WASM_BASELINE=DIR` (a copy of another build's dist/core), the first search
//   (which builds the index) in both cores side by side, alternating, medians of 5.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { distDir, repoRoot } from '../scripts/lib/paths.mjs';
import { loadServers } from './lib/engineConfig.mjs';
import { loadHostModule } from '../tests/node/helpers/bundle.mjs';
// A warm call's effects may cross in their compact form: read as the host's driver reads them.
const { effectsOf } = await loadHostModule('host/hotParts');

const core = createRequire(import.meta.url)(path.join(distDir, 'core', 'lazy_mcp_wasm.js'));
const tablePath = path.join(distDir, 'model', 'tool-embeddings.bin');
const table = fs.readFileSync(tablePath);
const corpus = JSON.parse(fs.readFileSync(path.join(repoRoot, 'bench', 'search', 'corpus.json'), 'utf8')).servers;
const querySets = ['short-needs', 'step-descriptions'].map((name) => ({
  name,
  queries: JSON.parse(fs.readFileSync(path.join(repoRoot, 'bench', 'search', `queries-${name}.json`), 'utf8')).queries,
}));
const now = () => Date.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Servers holding `count` tools: the corpus's servers in order, then copies of them under other names. */
function serversWith(count) {
  const out = [];
  let n = 0;
  for (let copy = 0; n < count; copy++) {
    for (const s of corpus) {
      if (n >= count) break;
      const tools = s.tools.slice(0, count - n);
      out.push({ name: copy ? `${s.server}-copy${copy}` : s.server, tools });
      n += tools.length;
    }
  }
  return out;
}

/** An engine (index mode) that has catalogued `servers` by answering their requests as the captured servers would. */
function cataloguedEngine(servers, wasm = core) {
  const engine = new wasm.Engine(JSON.stringify({ toolExposure: 'index' }));
  const byName = new Map(servers.map((s) => [s.name, s]));
  const parts = (joined) => {
    // messageReceived joins its parts with U+001E (crates/lazy-mcp-wasm `joined`).
    const out = typeof joined === 'string' ? joined.split('\u001e') : joined;
    const list = effectsOf(out[0]);
    let next = 1;
    for (const e of list) if (e.type === 'send' || e.type === 'reply' || e.type === 'notifyClient') e.message = out[next++];
    return list;
  };
  const connServer = new Map();
  let pending = loadServers((json) => parts(engine.handleSplit(now(), json)), Object.fromEntries(servers.map((s) => [s.name, { command: 'x' }])));
  for (let guard = 0; pending.length && guard < 100_000; guard++) {
    const effect = pending.shift();
    if (effect.type === 'open') {
      connServer.set(effect.conn, effect.server);
      pending.push(...parts(engine.handleSplit(now(), JSON.stringify({ type: 'connectionOpened', conn: effect.conn, pid: 1000 + effect.conn }))));
    } else if (effect.type === 'send') {
      const m = JSON.parse(effect.message);
      if (m.id === undefined || !m.method) continue;
      const s = byName.get(connServer.get(effect.conn));
      const result =
        m.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: s.name, version: '1' } }
          : m.method === 'tools/list'
            ? { tools: s.tools }
            : { [m.method.split('/')[0]]: [] };
      pending.push(...parts(engine.messageReceived(now(), effect.conn, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result })))));
    } else if (effect.type === 'close') {
      pending.push(...parts(engine.handleSplit(now(), JSON.stringify({ type: 'connectionClosed', conn: effect.conn, reason: 'closed' }))));
    }
  }
  const snapshot = JSON.parse(engine.snapshot());
  const catalogued = snapshot.servers.filter((s) => s.state.kind === 'CATALOGUED').length;
  if (catalogued !== servers.length) throw new Error(`${catalogued} of ${servers.length} servers catalogued`);
  return engine;
}

function loadTable(engine) {
  const t0 = performance.now();
  const out = engine.loadEmbeddingModel(now(), tablePath, table);
  const ms = performance.now() - t0;
  const log = JSON.parse(out[0]).map((e) => e.message ?? '').join(' ');
  if (!/embedding table \S+ loaded/.test(log)) throw new Error(`the table did not load: ${log}`);
  return ms;
}

/** A client `c` on the aggregate endpoint; `search(query)` → the answer's text and the call's µs. */
function client(engine) {
  const send = (message) => engine.clientMessage(now(), 'c', null, Buffer.from(JSON.stringify(message)));
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 1;
  return (query) => {
    const request = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'search_tools', arguments: { query } } }));
    const t0 = performance.now();
    const joined = engine.clientMessage(now(), 'c', null, request);
    const us = (performance.now() - t0) * 1000;
    // The parts joined by U+001E (an array before).
    const out = typeof joined === 'string' ? joined.split('\u001e') : joined;
    const reply = JSON.parse(out[out.length - 1]);
    if (reply.id !== id) throw new Error(`no answer to search ${id}: ${out[0].slice(0, 300)}`);
    return { text: reply.result.content[0].text, us };
  };
}

const ranked = (text) => text.split('\n').map((l) => /^(\S+\/\S+)/.exec(l)?.[1]).filter(Boolean);

const out = { date: new Date().toISOString(), node: process.version, accuracy: [], latency: [], vectors: [] };

// Vectors: the table's load time with and without a catalogue to make vectors for.
const emptyLoads = [];
for (let i = 0; i < 3; i++) emptyLoads.push(loadTable(new core.Engine(JSON.stringify({ toolExposure: 'index' }))));
for (const count of [500, 2000]) {
  const loads = [];
  for (let i = 0; i < 3; i++) loads.push(loadTable(cataloguedEngine(serversWith(count))));
  out.vectors.push({ tools: count, tableLoadMs: median(loads), emptyTableLoadMs: median(emptyLoads), vectorsMs: median(loads) - median(emptyLoads) });
}

// Accuracy through the engine, over the corpus's 1,219 real tools.
{
  const engine = cataloguedEngine(serversWith(corpus.reduce((n, s) => n + s.tools.length, 0)));
  loadTable(engine);
  const search = client(engine);
  for (const set of querySets) {
    let top1 = 0;
    let top5 = 0;
    for (const q of set.queries) {
      const accepted = new Set([q.tool, ...(q.alsoAccept ?? [])]);
      const names = ranked(search(q.query).text);
      if (accepted.has(names[0])) top1++;
      if (names.slice(0, 5).some((n) => accepted.has(n))) top5++;
    }
    out.accuracy.push({ set: set.name, queries: set.queries.length, top1, top5 });
  }
}

// Latency per search_tools call: 5 passes over the 125 queries (the first search builds the index).
for (const count of [500, 2000]) {
  const engine = cataloguedEngine(serversWith(count));
  loadTable(engine);
  const search = client(engine);
  const build = search('warm up').us;
  const samples = [];
  for (let pass = 0; pass < 5; pass++) for (const set of querySets) for (const q of set.queries) samples.push(search(q.query).us);
  out.latency.push({ tools: count, firstSearchUs: build, medianUs: median(samples), p99Us: pct(samples, 0.99), searches: samples.length });
}

// The first search in this core and in a baseline core, alternating (same servers, same table).
const baselineDir = process.env.SEARCH_WASM_BASELINE;
if (baselineDir) {
  const baseline = createRequire(import.meta.url)(path.resolve(baselineDir, 'lazy_mcp_wasm.js'));
  out.firstSearch = [];
  for (const count of [500, 2000]) {
    const times = { baseline: [], current: [] };
    for (let i = 0; i < 5; i++) {
      for (const [which, wasm] of [['baseline', baseline], ['current', core]]) {
        const engine = cataloguedEngine(serversWith(count), wasm);
        loadTable(engine);
        times[which].push(client(engine)('warm up').us);
        engine.free();
      }
    }
    out.firstSearch.push({ tools: count, baselineUs: median(times.baseline), currentUs: median(times.current) });
  }
}

fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'search-wasm.json'), JSON.stringify(out, null, 2) + '\n');
const f = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);
console.log('\n## Search in the built WASM core (the engine, index mode, search_tools on the aggregate endpoint)\n');
console.log('| query set | queries | top-1 | top-5 |\n|---|---:|---|---|');
for (const a of out.accuracy) console.log(`| ${a.set} | ${a.queries} | ${a.top1} (${((100 * a.top1) / a.queries).toFixed(1)} %) | ${a.top5} (${((100 * a.top5) / a.queries).toFixed(1)} %) |`);
console.log('\n| tools | search_tools call, median / p99 (wall) | first search (builds the index) | vectors made when the table loads (load − empty load, medians of 3) |\n|---:|---|---|---|');
for (const l of out.latency) {
  const v = out.vectors.find((x) => x.tools === l.tools);
  console.log(`| ${l.tools} | ${f(l.medianUs)} / ${f(l.p99Us)} (${l.searches} calls) | ${f(l.firstSearchUs)} | ${v.vectorsMs.toFixed(0)} ms (${v.tableLoadMs.toFixed(0)} − ${v.emptyTableLoadMs.toFixed(0)} ms) |`);
}
if (out.firstSearch) {
  console.log(`\n| tools | first search, baseline core (${baselineDir}) | first search, this core | baseline / this |\n|---:|---:|---:|---:|`);
  for (const r of out.firstSearch) console.log(`| ${r.tools} | ${f(r.baselineUs)} | ${f(r.currentUs)} | ${(r.baselineUs / r.currentUs).toFixed(1)}× |`);
}
