// Several processes and one sign-in, all real parts (tests/fixtures/oauth, `lazy-mcp` as real
// processes, consent in headless Chromium). What a user notices: a running `lazy-mcp serve`
// shows a server's tools as soon as `lazy-mcp auth login` in another terminal signed in (no
// call, no restart, no prompt); two `auth login` runs started together for a server never
// signed in before make one registration and one browser consent, and both end signed in.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startOAuthWorld, requireChromium } from '../fixtures/oauth/index.mjs';
import { approveInBrowser } from '../fixtures/oauth/index.mjs';
import { callOrError, oauthUser, textOf, urlOfTwoLogins } from './helpers/cliOAuth.mjs';
import { assertNoTokenIn } from './helpers/oauthLeaks.mjs';
import { waitFor } from './helpers/realServers.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

const outputs = [];
let world;
before(async () => {
  world = await startOAuthWorld();
});
after(async () => {
  await world?.stop();
});

const guardedTools = async (client) => (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('guarded__')).sort();

test('a running serve catalogues the server when auth login in another process stores tokens: no call, no prompt', async () => {
  const user = oauthUser('lazy-mcp-cli-two-procs-', { guarded: { type: 'http', url: world.mcpUrl } }, outputs);
  const s = await user.serve();
  try {
    await waitFor('serve to say guarded needs sign-in', () => /needs you to sign in/.test(s.stderr()), 30_000);
    assert.deepEqual(await guardedTools(s.client), [], 'NEEDS AUTH, nothing declared: no tools yet');
    const before = await world.counters();

    const login = await user.login('guarded');
    assert.equal(login.code, 0, login.stderr);
    const tools = await waitFor('the serve to list guarded tools', async () => {
      const names = await guardedTools(s.client);
      return names.length > 0 ? names : undefined;
    }, 20_000);
    assert.deepEqual(tools, ['guarded__guarded_echo', 'guarded__whoami']);
    assert.match(s.stderr(), /tokens were stored by another window or process/);
    const after = await world.counters();
    assert.equal(after.authorizations - before.authorizations, 1, "only the login's own authorization");
    assert.equal(after.registrations - before.registrations, 1);
    assert.equal(after.mcp.toolCalls.guarded_echo ?? 0, before.mcp.toolCalls.guarded_echo ?? 0, 'no call was needed');
    assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'picked up' })), 'guarded-notes echo: picked up');
  } finally {
    await s.close();
  }
});

test('two auth login runs at once for a server never signed in: one registration, one consent, both signed in', async () => {
  const user = oauthUser('lazy-mcp-cli-two-logins-', { guarded: { type: 'http', url: world.mcpUrl } }, outputs);
  const before = await world.counters();
  const a = user.startLogin('guarded');
  const b = user.startLogin('guarded');
  const url = await urlOfTwoLogins(a, b);
  await approveInBrowser(url);
  outputs.push(url);
  const bounded = (run) =>
    Promise.race([
      run.exited,
      new Promise((resolve) => setTimeout(() => (run.run.child.kill('SIGKILL'), resolve({ code: 'still waiting for a second consent', stderr: run.run.out.stderr })), 60_000)),
    ]);
  const [ra, rb] = await Promise.all([bounded(a), bounded(b)]);
  assert.equal(ra.code, 0, ra.stderr);
  assert.equal(rb.code, 0, rb.stderr);
  const printed = [ra, rb].filter((r) => /open this URL in a browser/.test(r.stderr)).length;
  assert.equal(printed, 1, 'one browser opening for both');
  const after = await world.counters();
  assert.equal(after.registrations - before.registrations, 1, 'one client registration');
  assert.equal(after.authorizations - before.authorizations, 1, 'one authorization');
  assert.equal(after.tokens.authorization_code - (before.tokens.authorization_code ?? 0), 1, 'one code exchanged');
  assert.ok(user.record(world.mcpUrl).tokens.access_token);
});

test('no token value appears in any output of this file', async () => {
  await assertNoTokenIn(world, outputs);
});
