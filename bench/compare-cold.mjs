// Two builds side by side on the cold catalogue of the six real (legacy-era)
// servers of `npm run bench`: `lazy-mcp catalogue` with an empty catalogue file,
// each build in turn per run (alternating who goes first), wall time of the
// whole command. Issue 15 asked that legacy servers keep their numbers although
// every uncatalogued server is now probed with `server/discover` first.
// Usage: node bench/compare-cold.mjs <A/dist/cli.js> <B/dist/cli.js> [runs=9]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchServers } from './lib/servers.mjs';

const [a, b, runsArg] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: node bench/compare-cold.mjs <A cli.js> <B cli.js> [runs]');
const runs = Number(runsArg || 9);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-compare-cold-'));
const ws = path.join(root, 'ws');
fs.mkdirSync(ws);
fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: benchServers() }));
const env = { ...process.env, HOME: path.join(root, 'home'), XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache') };
const ms = { A: [], B: [] };
const cli = { A: a, B: b };
for (let r = 0; r < runs; r++) {
  for (const side of r % 2 ? ['B', 'A'] : ['A', 'B']) {
    const t0 = performance.now();
    const run = spawnSync(process.execPath, [cli[side], 'catalogue', '--cache', path.join(root, `catalogue-${side}-${r}.json`), '--cwd', ws], { env, encoding: 'utf8' });
    ms[side].push(performance.now() - t0);
    if (run.status !== 0) throw new Error(`${cli[side]} catalogue exited ${run.status}:\n${run.stderr}`);
  }
}
fs.rmSync(root, { recursive: true, force: true });
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const ratios = ms.B.map((x, i) => x / ms.A[i]);
console.log(`cold catalogue of 6 servers, ${runs} runs, ${os.loadavg()[0].toFixed(1)} load average at the end`);
console.log(`  A ${a}: median ${median(ms.A).toFixed(0)} ms`);
console.log(`  B ${b}: median ${median(ms.B).toFixed(0)} ms`);
console.log(`  B / A per run: median ${median(ratios).toFixed(3)}× (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`);
