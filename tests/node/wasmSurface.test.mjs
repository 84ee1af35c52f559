// The host's types of the WASM functions come from wasm-bindgen's own
// declarations (extension/src/core/wasmSurface.generated.d.ts), checked in like
// the contract: this fails while they differ from what the last build declared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { checkedInSurface, expectedSurface } from '../../scripts/wasm-surface.mjs';

test('wasmSurface.generated.d.ts is what wasm-bindgen declared for the built core', () => {
  assert.equal(
    fs.readFileSync(checkedInSurface, 'utf8'),
    expectedSurface(),
    'extension/src/core/wasmSurface.generated.d.ts is stale: run `node scripts/build.mjs` (without --test-exports), then `node scripts/wasm-surface.mjs`, and commit it',
  );
});
