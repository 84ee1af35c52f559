// A tool that needs more scopes than the sign-in has (403 `insufficient_scope`, step-up),
// through `lazy-mcp serve` and `auth login`, all real parts (tests/fixtures/oauth with
// `stepUp`: `admin_note` needs `mcp:admin`, the metadata advertises only `mcp:tools`).
// What a user notices: the call fails at once naming the login command; `auth login` opens the
// browser (it does not "succeed" through a refresh that cannot add scopes) and asks for the
// old and the new scopes; the running serve's next call returns the real result; the scopes
// are kept for the next sign-in; no token is printed.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startOAuthWorld } from '../fixtures/oauth/index.mjs';
import { callOrError, oauthUser, textOf } from './helpers/cliOAuth.mjs';
import { assertNoTokenIn } from './helpers/oauthLeaks.mjs';
import { waitFor } from './helpers/realServers.mjs';

const outputs = [];
let world;
let user;
before(async () => {
  world = await startOAuthWorld({ stepUp: true });
  user = oauthUser('lazy-mcp-cli-stepup-', { guarded: { type: 'http', url: world.mcpUrl } }, outputs);
});
after(async () => {
  await world?.stop();
});

test('403 insufficient_scope: a clear error, auth login signs in with the union of the scopes (no refresh), the running serve then gets the real result', async () => {
  const first = await user.login('guarded');
  assert.equal(first.code, 0, first.stderr);
  assert.equal(new URL(first.url).searchParams.get('scope'), 'mcp:tools');

  const s = await user.serve();
  try {
    assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'hi' })), 'guarded-notes echo: hi');
    const before = await world.counters();
    const refused = await callOrError(s.client, 'guarded__admin_note', { text: 'needs admin' });
    assert.ok(refused.isError, JSON.stringify(refused));
    assert.match(textOf(refused), /needs you to sign in \(it needs more permissions \(insufficient scope\)\): run `lazy-mcp auth login guarded`/);
    // The scope the server asked for is kept for the login in another process.
    await waitFor('the required scope to be kept', () => /mcp:admin/.test(user.record(world.mcpUrl)?.scopes ?? ''), 10_000);
    let after = await world.counters();
    assert.equal(after.mcp.insufficientScope - (before.mcp.insufficientScope ?? 0), 1, 'asked the server once: no retry loop');
    assert.equal(after.tokenRequests.refresh_token ?? 0, before.tokenRequests.refresh_token ?? 0, 'no refresh (it cannot add scopes)');

    const stepUp = await user.login('guarded');
    assert.equal(stepUp.code, 0, stepUp.stderr);
    assert.deepEqual(new URL(stepUp.url).searchParams.get('scope').split(' ').sort(), ['mcp:admin', 'mcp:tools'], 'the granted and the required scopes');
    after = await world.counters();
    assert.equal(after.tokens.authorization_code - before.tokens.authorization_code, 1, 'one interactive sign-in');
    assert.equal(after.tokenRequests.refresh_token ?? 0, before.tokenRequests.refresh_token ?? 0, 'the login did not refresh instead');
    assert.match(user.record(world.mcpUrl).scopes, /mcp:admin/, 'the stepped-up scopes are kept');

    // The running serve uses the new tokens on its next connection.
    const result = await callOrError(s.client, 'guarded__admin_note', { text: 'stepped up' });
    assert.equal(textOf(result), 'guarded-notes admin note: stepped up (scopes mcp:tools mcp:admin)');
    assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'still' })), 'guarded-notes echo: still');
    const end = await world.counters();
    assert.equal(end.tokens.authorization_code - before.tokens.authorization_code, 1, 'no further sign-in');
    assert.equal(end.mcp.insufficientScope - (before.mcp.insufficientScope ?? 0), 1, 'no further refusal');
  } finally {
    await s.close();
  }
});

test('after a revoked sign-in, the next auth login still asks for the stepped-up scopes', async () => {
  await world.revokeAll();
  const s = await user.serve();
  try {
    const failed = await callOrError(s.client, 'guarded__admin_note', { text: 'x' });
    assert.match(textOf(failed), /lazy-mcp auth login guarded/);
  } finally {
    await s.close();
  }
  const again = await user.login('guarded');
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(new URL(again.url).searchParams.get('scope').split(' ').sort(), ['mcp:admin', 'mcp:tools']);
});

test('no token value appears in any output of this file', async () => {
  await assertNoTokenIn(world, outputs);
});
