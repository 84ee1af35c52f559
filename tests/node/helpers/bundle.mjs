// Bundles a host TypeScript module with esbuild so node:test can exercise the
// real host code against the real built WASM core (dist/core).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);

/**
 * Bundle `extension/src/<entry>.ts` to out/test and require it. The file is written beside
 * and renamed into place: test files running side by side bundle the same entries, and a
 * reader must never see another process's half-written bundle.
 */
export async function loadHostModule(entry) {
  const esbuild = require('esbuild');
  const outfile = path.join(repoRoot, 'out', 'test', `${entry.replaceAll('/', '_')}.cjs`);
  const { outputFiles } = await esbuild.build({
    entryPoints: [path.join(repoRoot, 'extension', 'src', `${entry}.ts`)],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'error',
  });
  const [bundle] = outputFiles.filter((f) => f.path === outfile);
  const partial = `${outfile}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  fs.writeFileSync(partial, bundle.contents);
  fs.renameSync(partial, outfile);
  delete require.cache[outfile];
  return require(outfile);
}

export const builtCoreModule = path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js');
