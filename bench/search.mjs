// `npm run bench:search`: hybrid tool search vs today's lexical search vs
// plain BM25 on the held-out corpus in bench/search/ (issue 27), in one run of
// the Rust example `tool_search_bench` (release build, native). Extra
// arguments go to the example: `--dev` for the development sets and the
// fusion grid, `--misses` to print every query not ranked first, `--typos` to
// give every query deterministic synthetic slips.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { distDir, repoRoot } from '../scripts/lib/paths.mjs';

const args = ['run', '--release', '-q', '-p', 'lazy-mcp-core', '--example', 'tool_search_bench', '--', ...process.argv.slice(2)];
const run = spawnSync('cargo', args, { cwd: repoRoot, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);

// What the table costs the product (needs `node scripts/build.mjs` first): its
// bytes in the VSIX (zip-deflated, as vsce packs it) and the memory an engine
// in the built WASM core grows by when it loads the table.
const table = path.join(distDir, 'model', 'tool-embeddings.bin');
if (!fs.existsSync(table) || process.argv.includes('--dev')) process.exit(0);
const zipped = spawnSync('sh', ['-c', `cd ${path.dirname(table)} && zip -q -9 - tool-embeddings.bin LICENSE-*.txt README.md | wc -c`], { encoding: 'utf8' });
const core = createRequire(import.meta.url)(path.join(distDir, 'core', 'lazy_mcp_wasm.js'));
const engine = new core.Engine('{}');
global.gc?.();
const before = process.memoryUsage();
const started = performance.now();
const effects = JSON.parse(engine.loadEmbeddingModel(Date.now(), table, fs.readFileSync(table))[0]);
const loadMs = performance.now() - started;
global.gc?.();
const after = process.memoryUsage();
const mb = (n) => (n / 1024 / 1024).toFixed(1);
console.log('\n## Product cost (built WASM core)\n');
console.log('| measure | value |\n|---|---:|');
console.log(`| table on disk (dist/model) | ${mb(fs.statSync(table).size)} MB |`);
console.log(`| dist/model zip-deflated (VSIX growth) | ${zipped.status === 0 ? `${mb(Number(zipped.stdout.trim()))} MB` : 'zip not available'} |`);
console.log(`| WASM loadEmbeddingModel | ${loadMs.toFixed(0)} ms |`);
console.log(`| process RSS growth after the load | ${mb(after.rss - before.rss)} MB |`);
console.log(`| engine log | ${effects.map((e) => e.message).join(' ')} |`);

// Search as the product runs it: the engine in the built WASM core (bench/search-wasm.mjs).
engine.free();
await import('./search-wasm.mjs');
