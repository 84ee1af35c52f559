#!/usr/bin/env node
// `npm run bench:eras`: Lazy MCP against a modern-only MCP 2026-07-28 server (the
// official SDK v2 with `legacy: 'reject'`, tests/fixtures/servers/sdk2-server.mjs).
//
// 1. Cold catalogue (Lazy MCP host: config → probe → lists → CATALOGUED) vs the SDK v2
//    client's auto-negotiating connect (`versionNegotiation: {mode: 'auto'}`) + the
//    same lists (tools and prompts, what the server offers). Sides interleaved, medians;
//    target ≤ 1.1×.
// 2. Warm start + first call through the gateway: `server/discover` requests the
//    server received (counted by the launcher), target 0.
//
// Writes bench/results/eras.json and eras.md. Options: --runs N (default 7).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bundleHost, connectGateway, makeWorkspace, newHost, waitForAll } from './lib/lazy.mjs';
import { median } from './lib/stats.mjs';
import { repoRoot } from './lib/servers.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'servers');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-bench-eras-'));
const spawnLog = path.join(scratch, 'spawns.log');
const methodLog = path.join(scratch, 'methods.log');
const server = {
  command: process.execPath,
  args: [path.join(fixtures, 'method-log-launcher.mjs'), spawnLog, methodLog, process.execPath, path.join(fixtures, 'sdk2-server.mjs'), 'stdio', 'modern', 'sdk2-modern'],
};
const methods = () => (fs.existsSync(methodLog) ? fs.readFileSync(methodLog, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')[1]) : []);
const countOf = (method) => methods().filter((m) => m === method).length;

async function sdkAuto() {
  const t0 = performance.now();
  const client = new Client({ name: 'bench-sdk2-auto', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StdioClientTransport(server));
  const { tools } = await client.listTools();
  const { prompts } = await client.listPrompts();
  const ms = performance.now() - t0;
  const version = client.getNegotiatedProtocolVersion();
  await client.close();
  return { ms, tools: tools.length, prompts: prompts.length, version };
}

async function lazyCold(mods, workspace) {
  const catalogue = path.join(workspace.root, `catalogue-${Math.random().toString(36).slice(2)}.json`);
  const t0 = performance.now();
  const host = newHost(mods, workspace, catalogue, {});
  await host.start();
  await waitForAll(host, ['modern'], 'CATALOGUED', 60_000);
  const ms = performance.now() - t0;
  const entry = host.snapshot().servers.find((s) => s.name === 'modern');
  await host.stop();
  return { ms, tools: entry.tools, prompts: entry.prompts, era: entry.era, catalogue };
}

const mods = await bundleHost();
const workspace = makeWorkspace({ modern: server }, 'eras');
// One unmeasured round of each side (disk cache, JIT).
await sdkAuto();
await lazyCold(mods, workspace);

const sdk = [];
const lazy = [];
let lastCatalogue;
for (let i = 0; i < runs; i++) {
  const [first, second] = i % 2 === 0 ? [sdkAuto, null] : [null, sdkAuto];
  if (first) sdk.push(await first());
  const cold = await lazyCold(mods, workspace);
  lazy.push(cold);
  lastCatalogue = cold.catalogue;
  if (second) sdk.push(await second());
}
for (const r of sdk) if (r.version !== '2026-07-28') throw new Error(`the SDK client negotiated ${r.version}`);
for (const r of lazy) if (r.era !== 'modern' || r.tools !== 3) throw new Error(`Lazy MCP catalogued ${JSON.stringify(r)}`);

// Warm start + first call: count the probes the server receives.
const probesBefore = countOf('server/discover');
const initsBefore = countOf('initialize');
const spawnsBefore = fs.readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).length;
const t0 = performance.now();
const host = newHost(mods, workspace, lastCatalogue, {});
await host.start();
const warmStates = host.snapshot().servers.map((s) => s.state.kind);
const client = await connectGateway(host, '');
const listed = (await client.listTools()).tools.length;
const tList = performance.now() - t0;
const result = await client.callTool({ name: 'modern__shout', arguments: { text: 'bench' } });
const tCall = performance.now() - t0;
await client.close();
await host.stop();
const warm = {
  statesAtStart: warmStates,
  toolsListed: listed,
  startToListMs: tList,
  startToFirstCallMs: tCall,
  result: result.content[0].text,
  probes: countOf('server/discover') - probesBefore,
  initializes: countOf('initialize') - initsBefore,
  spawns: fs.readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).length - spawnsBefore,
};
if (warm.result !== 'sdk2-modern: BENCH') throw new Error(`first call answered ${warm.result}`);

const out = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} cores, ${os.platform()} ${os.release()}, Node ${process.version}`,
  runs,
  coldCatalogue: {
    sdkAutoConnectAndListMs: sdk.map((r) => r.ms),
    lazyCatalogueMs: lazy.map((r) => r.ms),
    sdkMedianMs: median(sdk.map((r) => r.ms)),
    lazyMedianMs: median(lazy.map((r) => r.ms)),
  },
  warm,
};
out.coldCatalogue.ratio = out.coldCatalogue.lazyMedianMs / out.coldCatalogue.sdkMedianMs;
fs.mkdirSync(path.join(repoRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'eras.json'), `${JSON.stringify(out, null, 2)}\n`);
const c = out.coldCatalogue;
const md = [
  `# Modern-only server (MCP 2026-07-28): \`npm run bench:eras\``,
  '',
  `${out.date}, ${out.machine}, ${runs} runs per side, interleaved, medians.`,
  '',
  '| | SDK v2 client (auto negotiation) | Lazy MCP | target |',
  '|---|---|---|---|',
  `| cold: connect/probe + tools and prompts listed | ${c.sdkMedianMs.toFixed(0)} ms | ${c.lazyMedianMs.toFixed(0)} ms catalogued (${c.ratio.toFixed(2)}×) | ≤ 1.1× — ${c.ratio <= 1.1 ? 'met' : 'missed'} |`,
  `| warm start + first call | — | ${warm.probes} server/discover probes, ${warm.initializes} initialize, ${warm.spawns} spawn; listed ${warm.toolsListed} tools in ${warm.startToListMs.toFixed(0)} ms, first call answered at ${warm.startToFirstCallMs.toFixed(0)} ms | 0 probes — ${warm.probes === 0 ? 'met' : 'missed'} |`,
  '',
].join('\n');
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', 'eras.md'), md);
process.stdout.write(md);
fs.rmSync(scratch, { recursive: true, force: true });
fs.rmSync(workspace.root, { recursive: true, force: true });
