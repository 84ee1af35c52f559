// The WASM function surface as wasm-bindgen declares it: the `.d.ts` it wrote
// beside the glue (out/wasm, by `node scripts/build.mjs`) is checked in as
// extension/src/core/wasmSurface.generated.d.ts, which the host's `CoreExports`
// and `EngineHandle` are typed from. Run this after changing
// crates/lazy-mcp-wasm/src/lib.rs and building; tests/node/wasmSurface.test.mjs
// fails while the checked-in copy differs from the build's.
// Usage: node scripts/wasm-surface.mjs
import fs from 'node:fs';
import path from 'node:path';
import { outDir, repoRoot } from './lib/paths.mjs';

export const builtSurface = path.join(outDir, 'wasm', 'lazy_mcp_wasm.d.ts');
export const checkedInSurface = path.join(repoRoot, 'extension', 'src', 'core', 'wasmSurface.generated.d.ts');
const header = '// Generated: wasm-bindgen\'s declarations of crates/lazy-mcp-wasm (node scripts/wasm-surface.mjs after a build). Do not edit.\n';

/** What the checked-in file should hold, from the last build's declarations. */
export function expectedSurface() {
  // Its blanket lint switches are dropped: the declarations lint clean, and an unused one is a warning.
  const declared = fs.readFileSync(builtSurface, 'utf8').replace(/^\/\* (tslint:disable|eslint-disable) \*\/\n/gm, '');
  return header + declared;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.writeFileSync(checkedInSurface, expectedSurface());
  console.log(`wrote ${path.relative(repoRoot, checkedInSurface)}`);
}
