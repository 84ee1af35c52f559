// Gateway overhead for clients of each protocol era, in one run (issue 15):
// warm `tools/call` latency of a dual-era SDK v2 server's `echo`
// (bench/lib/dualEraEcho.mjs), call by call in rotation, from the same SDK v2
// client library, in legacy mode (initialize) or auto-negotiating (2026-07-28):
//   direct legacy / direct 2026-07-28 → the server itself on stdio
//   stdio legacy / stdio 2026-07-28   → `lazy-mcp serve --stdio` in front of it
//   http legacy / http 2026-07-28     → `lazy-mcp serve --http` (legacy: a session;
//                                       modern: no session, one POST per request)
//   raw stdio legacy / raw stdio 2026-07-28 → `lazy-mcp serve --stdio` driven by
//                                       pre-serialized lines (no client library cost)
// Overhead = gateway median − direct legacy median. The gateway speaks one era to
// this server (the one its probe found) whatever its client speaks, but the
// client library's own cost differs per era (direct 2026-07-28 − direct legacy),
// so the last column subtracts the direct call of the same client era; the raw
// stdio rows (no client library) show the gateway alone. Prints a markdown table and writes
// bench/results/gateway-eras.json.   Usage: node bench/gateway-eras.mjs  (after npm run build)
// Knobs: BENCH_CALLS (default 300 per side), BENCH_ROUNDS (default 3).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { median } from './lib/stats.mjs';
import { repoRoot } from './lib/servers.mjs';

const calls = Number(process.env.BENCH_CALLS ?? 300);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const cli = path.join(repoRoot, 'dist', 'cli.js');
const echoServer = path.join(repoRoot, 'bench', 'lib', 'dualEraEcho.mjs');
if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-bench-eras-'));
const ws = path.join(root, 'ws');
fs.mkdirSync(ws, { recursive: true });
fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [echoServer] } } }));
const env = { PATH: process.env.PATH ?? '', HOME: path.join(root, 'home'), XDG_CONFIG_HOME: path.join(root, 'home', '.config'), XDG_CACHE_HOME: path.join(root, 'home', '.cache') };

const modes = { legacy: { mode: 'legacy' }, modern: { mode: 'auto' } };
const client = (mode) => new Client({ name: `bench-${mode}`, version: '1' }, { versionNegotiation: modes[mode] });

async function stdioSide(label, mode, command, args, tool) {
  const c = client(mode);
  await c.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  return { label, c, tool, version: c.getNegotiatedProtocolVersion() };
}

/** A bare newline-delimited JSON-RPC client: what the gateway costs without any client library. */
async function rawSide(label, modern) {
  const child = spawn(process.execPath, [cli, 'serve', '--stdio', '--cwd', ws], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const id = /"id":(\d+)/.exec(line)?.[1];
      waiting.get(id)?.(line);
      waiting.delete(id);
    }
  });
  let next = 0;
  const meta = modern
    ? { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench-raw', version: '1' } } }
    : {};
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = String(next++);
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: Number(id), method, params: { ...params, ...meta } })}\n`);
    });
  if (!modern) {
    await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-raw', version: '1' } });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }
  const c = {
    callTool: async ({ name, arguments: args }) => ({ content: [{ text: await request('tools/call', { name, arguments: args }) }] }),
    close: async () => {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
  return { label, c, tool: 'everything__echo', version: modern ? '2026-07-28' : '2025-11-25' };
}

async function startHttp() {
  const child = spawn(process.execPath, [cli, 'serve', '--http', '127.0.0.1:0', '--cwd', ws], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let err = '';
  const match = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      err += d;
      const m = /serving \d+ servers? at (\S+)\n.*Bearer ([\w-]+)"/.exec(err);
      if (m) resolve(m);
    });
    child.on('exit', (code) => reject(new Error(`serve --http exited with ${code}: ${err}`)));
  });
  return { child, url: match[1], token: match[2] };
}

async function httpSide(label, mode, http) {
  const c = client(mode);
  await c.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${http.token}` } } }));
  return { label, c, tool: 'everything__echo', version: c.getNegotiatedProtocolVersion() };
}

const http = await startHttp();
const sides = [
  await stdioSide('direct legacy', 'legacy', process.execPath, [echoServer], 'echo'),
  await stdioSide('direct 2026-07-28', 'modern', process.execPath, [echoServer], 'echo'),
  await stdioSide('stdio legacy', 'legacy', process.execPath, [cli, 'serve', '--stdio', '--cwd', ws], 'everything__echo'),
  await stdioSide('stdio 2026-07-28', 'modern', process.execPath, [cli, 'serve', '--stdio', '--cwd', ws], 'everything__echo'),
  await httpSide('http legacy', 'legacy', http),
  await httpSide('http 2026-07-28', 'modern', http),
  await rawSide('raw stdio legacy', false),
  await rawSide('raw stdio 2026-07-28', true),
];
const samples = new Map(sides.map((s) => [s.label, []]));
try {
  // Warm every side (the gateway starts server-everything on its first call).
  for (const s of sides) for (let i = 0; i < 20; i++) await s.c.callTool({ name: s.tool, arguments: { message: 'warm' } });
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < calls; i++) {
      const order = sides.map((_, k) => sides[(k + i + r) % sides.length]);
      for (const s of order) {
        const t0 = performance.now();
        const result = await s.c.callTool({ name: s.tool, arguments: { message: 'bench' } });
        samples.get(s.label).push(performance.now() - t0);
        if (!result.content?.[0]?.text?.includes('bench')) throw new Error(`${s.label}: unexpected result ${JSON.stringify(result)}`);
      }
    }
  }
} finally {
  for (const s of sides) await s.c.close().catch(() => undefined);
  http.child.kill('SIGTERM');
}

const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const direct = { legacy: median(samples.get('direct legacy')), modern: median(samples.get('direct 2026-07-28')) };
const rows = sides.map((s) => {
  const xs = samples.get(s.label);
  const sameEra = s.version === '2026-07-28' ? direct.modern : direct.legacy;
  return { side: s.label, negotiated: s.version, calls: xs.length, medianMs: median(xs), p90Ms: p90(xs), overheadMs: median(xs) - direct.legacy, overSameEraDirectMs: median(xs) - sameEra };
});
const by = (label) => rows.find((r) => r.side === label);
const ratios = {
  stdioModernOverLegacyOverhead: by('stdio 2026-07-28').overheadMs / by('stdio legacy').overheadMs,
  httpModernOverLegacyOverhead: by('http 2026-07-28').overheadMs / by('http legacy').overheadMs,
  rawStdioModernOverLegacyOverhead: by('raw stdio 2026-07-28').overheadMs / by('raw stdio legacy').overheadMs,
  // The same client library's own cost per era cancels out here (direct 2026-07-28 − direct legacy is that cost).
  stdioSameEra: by('stdio 2026-07-28').overSameEraDirectMs / by('stdio legacy').overSameEraDirectMs,
  httpSameEra: by('http 2026-07-28').overSameEraDirectMs / by('http legacy').overSameEraDirectMs,
};
console.log(`\n## Gateway overhead by client era (${calls * rounds} warm calls per side, interleaved; node ${process.version}, ${os.cpus().length} cores)\n`);
console.log('| side | negotiated | median | p90 | overhead vs direct legacy | vs direct, same client era |');
console.log('|---|---|---|---|---|---|');
const ms3 = (x) => `${x.toFixed(3)} ms`;
for (const r of rows) console.log(`| ${r.side} | ${r.negotiated} | ${ms3(r.medianMs)} | ${ms3(r.p90Ms)} | ${r.side.startsWith('direct') ? '—' : ms3(r.overheadMs)} | ${r.side.startsWith('direct') || r.side.startsWith('raw') ? '—' : ms3(r.overSameEraDirectMs)} |`);
console.log(
  `\nmodern / legacy overhead: stdio ${ratios.stdioModernOverLegacyOverhead.toFixed(2)}×, http ${ratios.httpModernOverLegacyOverhead.toFixed(2)}×, raw stdio ${ratios.rawStdioModernOverLegacyOverhead.toFixed(2)}×; against the direct call of the same client era: stdio ${ratios.stdioSameEra.toFixed(2)}×, http ${ratios.httpSameEra.toFixed(2)}×`,
);
fs.mkdirSync(path.join(repoRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'gateway-eras.json'), JSON.stringify({ calls, rounds, node: process.version, rows, ratios }, null, 2));
fs.rmSync(root, { recursive: true, force: true });
