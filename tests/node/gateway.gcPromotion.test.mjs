// Calls overlapping on one gateway session leave nothing to the old generation
// (issue 25, Speed): a session's open exchanges were a `Set`, whose table V8 replaces
// every few calls while the old table points to the new one; once one table was old,
// that chain kept every later exchange alive through two scavenges, ~3 KB promoted per
// call at concurrency 8 and a mark-compact every ~10 scavenges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';

test('8 clients calling one session: under 0.5 KB promoted per call (the Set of exchanges promoted ~3 KB)', async () => {
  await loadHostModule('host/gateway/httpGateway');
  const bundle = path.join(repoRoot, 'out', 'test', 'host_gateway_httpGateway.cjs');
  const limits = JSON.parse(createRequire(import.meta.url)(builtCoreModule).hostLimits()).gateway;
  const script = path.join(repoRoot, 'tests', 'fixtures', 'gateway', 'exchangeChurn.mjs');
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', '--expose-gc', script, bundle, JSON.stringify(limits), '6000'], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split('\n');
  const from = lines.indexOf('measured from here');
  const calls = Number(/^calls (\d+)$/m.exec(run.stdout)?.[1]);
  assert.ok(from >= 0 && calls > 0, run.stdout.slice(-2000));
  const scavenges = lines.slice(from).filter((l) => /\bgc=s\b/.test(l)).map((l) => Object.fromEntries(l.trim().split(/\s+/).map((kv) => kv.split('='))));
  assert.ok(scavenges.length >= 3, `too few scavenges to judge (${scavenges.length})`);
  const promotedKbPerCall = scavenges.reduce((sum, r) => sum + Number(r.promoted ?? 0), 0) / calls / 1024;
  assert.ok(promotedKbPerCall < 0.5, `promoted ${promotedKbPerCall.toFixed(2)} KB per call over ${scavenges.length} scavenges`);
});
