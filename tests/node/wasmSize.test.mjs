// The shipped core's size and surface (issue 25): the .wasm the build wrote
// (dist/core, `node scripts/build.mjs`) stays within its limit, and exports only
// tests and benches use are not in it (they live in the `test-exports` build).
// How to measure and what grew: bench/README.md "WASM size".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { builtCoreModule } from './helpers/bundle.mjs';

/** The goal: under 1 MiB, as 0.1.0 shipped (966 KB). Met: 988,413 bytes on main at 082543f (bench/README.md "WASM size"). */
const goalBytes = 1_048_576;
/**
 * What the suite enforces: the goal itself. The size branch reached 1,025,513
 * bytes (ordered maps as sorted vectors, one sort, no serde `Content` buffering,
 * tagged events read as maps only; was 1,364,519 with the limit at 1,379,000);
 * merged with the timer table, adaptive idle, shared holders and the handover
 * grace it was 1,042,798; hand-written readers and the engine's owners took it
 * to 988,413, and the limit down to 1,000,000 (11.6 KB of headroom).
 * Growth past it fails here: find what grew with the steps in bench/README.md
 * "WASM size". Lower it with every shrink; never above `goalBytes`.
 */
const limitBytes = 1_000_000;

const wasmFile = path.join(path.dirname(builtCoreModule), 'lazy_mcp_wasm_bg.wasm');

test(`the core's .wasm stays within ${limitBytes} bytes (goal ${goalBytes})`, () => {
  const size = fs.statSync(wasmFile).size;
  assert.ok(
    size <= limitBytes,
    `${path.relative(process.cwd(), wasmFile)} is ${size} bytes, over the limit of ${limitBytes} bytes by ${size - limitBytes} ` +
      `(goal: ${goalBytes}). Find what grew with the steps in bench/README.md "WASM size".`,
  );
});

test('exports only tests and benches use are not in the production core', () => {
  const core = createRequire(import.meta.url)(builtCoreModule);
  for (const name of ['normalizeConfig', 'diagnosticsReport', 'clientBody', 'debugTrap']) {
    assert.equal(typeof core[name], 'undefined', `dist/core exports ${name}: build without --test-exports (node scripts/build.mjs)`);
  }
});
