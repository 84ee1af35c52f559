// The planted-token check of the OAuth tests: no access or refresh token the test
// authorization server ever issued may appear in any output the test collected
// (stdout, stderr, logs, files). Fails when the world issued none (nothing checked).
import assert from 'node:assert/strict';

export async function assertNoTokenIn(world, outputs) {
  const issued = await world.issuedTokens();
  assert.ok(issued.length > 0, 'the test world issued no token: nothing to check');
  assert.ok(issued.every((t) => typeof t === 'string' && t.length >= 20), 'issued tokens are long enough to be told apart');
  const all = outputs.join('\n');
  const leaked = issued.filter((t) => all.includes(t));
  assert.equal(leaked.length, 0, `${leaked.length} of ${issued.length} issued tokens appear in an output`);
}
