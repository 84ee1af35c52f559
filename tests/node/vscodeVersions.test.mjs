// The VS Code versions we claim (package.json engines.vscode) are the ones the integration suite
// runs on (scripts/tools/code-server.mjs): the oldest tested version is the claim, and the
// extension is type-checked against no newer API than that.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CODE_SERVERS } from '../../scripts/tools/code-server.mjs';
import { integrationVersions } from '../../scripts/tools/index.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const minor = (v) => v.replace(/^[\^~]/, '').split('.').slice(0, 2).map(Number);
const compare = (a, b) => a[0] - b[0] || a[1] - b[1];

test('engines.vscode is the oldest VS Code the integration suite runs on', () => {
  const tested = CODE_SERVERS.map((r) => minor(r.vscode)).sort(compare);
  assert.match(pkg.engines.vscode, /^\^\d+\.\d+\.0$/);
  assert.deepEqual(minor(pkg.engines.vscode), tested[0], `engines.vscode ${pkg.engines.vscode} vs tested ${CODE_SERVERS.map((r) => r.vscode).join(', ')}`);
});

test('@types/vscode is no newer than engines.vscode (no API the oldest VS Code lacks)', () => {
  const types = pkg.devDependencies['@types/vscode'];
  assert.ok(compare(minor(types), minor(pkg.engines.vscode)) <= 0, `@types/vscode ${types} is newer than engines.vscode ${pkg.engines.vscode}`);
});

test('the suite runs on every tested version by default, newest first; --vscode picks some', () => {
  assert.deepEqual(integrationVersions(), CODE_SERVERS.map((r) => r.version));
  assert.ok(compare(minor(CODE_SERVERS[0].vscode), minor(CODE_SERVERS.at(-1).vscode)) > 0, 'newest first');
  assert.deepEqual(integrationVersions('1.103.2'), ['4.103.2']);
  assert.deepEqual(integrationVersions('4.139.1, 1.103.2'), ['4.139.1', '4.103.2']);
  assert.throws(() => integrationVersions('1.99.0'), /code-server 1\.99\.0 is not in scripts\/tools\/code-server\.mjs/);
});
