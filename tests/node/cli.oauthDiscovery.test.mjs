// Where a sign-in starts and which client it signs in as, against the real authorization
// server (tests/fixtures/oauth variants), through `lazy-mcp auth login` and `serve`:
// - RFC 9728: a server whose protected resource metadata is only at the URL its 401s
//   advertise (`WWW-Authenticate: … resource_metadata="…"`), not at a well-known path;
// - a changed `oauth.callbackPort` (another redirect URI) registers the client again;
// - a Client ID Metadata Document (`oauth.clientMetadataUrl`) with an authorization server
//   that supports them: no registration, the URL is the client id.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startOAuthWorld } from '../fixtures/oauth/index.mjs';
import { callOrError, oauthUser, textOf } from './helpers/cliOAuth.mjs';
import { assertNoTokenIn } from './helpers/oauthLeaks.mjs';

const worlds = {};
const outputs = [];
before(async () => {
  [worlds.advertised, worlds.plain, worlds.cimd] = await Promise.all([
    startOAuthWorld({ prmAtAdvertisedUrlOnly: true }),
    startOAuthWorld(),
    startOAuthWorld({ clientIdMetadataDocuments: true }),
  ]);
});
after(async () => {
  await Promise.all(Object.values(worlds).map((w) => w.stop()));
});

test('RFC 9728: discovery starts at the resource_metadata URL of the 401 (no well-known metadata), for sign-in, refresh and a later sign-in', async () => {
  const world = worlds.advertised;
  assert.equal((await fetch(new URL('/.well-known/oauth-protected-resource/mcp', world.mcpUrl))).status, 404, 'nothing at the well-known path');
  const user = oauthUser('lazy-mcp-cli-prm-', { guarded: { type: 'http', url: world.mcpUrl } }, outputs);
  const login = await user.login('guarded');
  assert.equal(login.code, 0, login.stderr);
  assert.equal(new URL(login.url).searchParams.get('resource'), world.mcpUrl, 'the resource from that metadata (RFC 8707)');

  // A fresh serve (no discovery cached) refreshes an expired token: the 401 names the metadata again.
  const s = await user.serve();
  try {
    const before = await world.counters();
    await world.expireAccessTokens();
    assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'refreshed' })), 'guarded-notes echo: refreshed');
    const after = await world.counters();
    assert.equal(after.tokens.refresh_token - (before.tokens.refresh_token ?? 0), 1, 'one silent refresh');
    assert.equal(after.authorizationRequests, before.authorizationRequests, 'no sign-in');
  } finally {
    await s.close();
  }

  // Signed out and signed in again: the server is catalogued (no 401 seen in this run), the URL comes from the catalogue.
  assert.equal((await user.cli(['auth', '--trust-project', 'logout', 'guarded'])).code, 0);
  const again = await user.login('guarded');
  assert.equal(again.code, 0, again.stderr);
});

test('a changed oauth.callbackPort registers the client again with the new redirect URI instead of failing', async () => {
  const world = worlds.plain;
  const user = oauthUser('lazy-mcp-cli-port-', { guarded: { type: 'http', url: world.mcpUrl } }, outputs);
  const before = await world.counters();
  const first = await user.login('guarded');
  assert.equal(first.code, 0, first.stderr);
  const firstRedirect = new URL(new URL(first.url).searchParams.get('redirect_uri'));

  // A free port other than the registered one.
  const probe = http.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  assert.notEqual(String(port), firstRedirect.port);
  user.setServers({ guarded: { type: 'http', url: world.mcpUrl, oauth: { callbackPort: port } } });

  const second = await user.login('guarded');
  assert.equal(second.code, 0, second.stderr);
  assert.equal(new URL(second.url).searchParams.get('redirect_uri'), `http://127.0.0.1:${port}/callback`, 'the configured port');
  const after = await world.counters();
  assert.equal(after.registrations - before.registrations, 2, 'registered again for the new redirect URI');
  assert.equal(user.record(world.mcpUrl).callbackPort, port, 'the new port is kept with the new registration');
  const s = await user.serve();
  try {
    assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'new port' })), 'guarded-notes echo: new port');
  } finally {
    await s.close();
  }
});

test('Client ID Metadata Document: with oauth.clientMetadataUrl the URL is the client id, nothing is registered; refresh works', async () => {
  const world = worlds.cimd;
  const meta = await (await fetch(new URL('/.well-known/openid-configuration', world.issuer))).json();
  assert.equal(meta.client_id_metadata_document_supported, true);
  const user = oauthUser('lazy-mcp-cli-cimd-', { guarded: { type: 'http', url: world.mcpUrl, oauth: { clientMetadataUrl: world.clientMetadataUrl } } }, outputs);
  const before = await world.counters();
  const login = await user.login('guarded');
  assert.equal(login.code, 0, login.stderr);
  assert.equal(new URL(login.url).searchParams.get('client_id'), world.clientMetadataUrl);
  let after = await world.counters();
  assert.equal(after.registrations, before.registrations, 'no dynamic registration');
  assert.ok(after.clientMetadataFetches > before.clientMetadataFetches, 'the authorization server read the document');
  assert.equal(after.tokens.authorization_code - (before.tokens.authorization_code ?? 0), 1);

  const s = await user.serve();
  try {
    assert.match(textOf(await callOrError(s.client, 'guarded__whoami')), new RegExp(`client ${world.clientMetadataUrl.replace(/[.]/g, '\\.')}`));
    await world.expireAccessTokens();
    assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'refreshed' })), 'guarded-notes echo: refreshed');
    after = await world.counters();
    assert.equal(after.tokens.refresh_token - (before.tokens.refresh_token ?? 0), 1);
  } finally {
    await s.close();
  }
});

test('no token value appears in any output of this file', async () => {
  for (const world of Object.values(worlds)) await assertNoTokenIn(world, outputs);
});
