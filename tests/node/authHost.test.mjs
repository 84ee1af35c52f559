// The host's OAuth client (extension/src/host/auth) on its own, against the real authorization
// server of tests/fixtures/oauth: what a front end relies on when it supplies the store and the
// browser hooks (VS Code: SecretStorage, a non-modal prompt, openExternal).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { approveInBrowser, startOAuthWorld, requireChromium } from '../fixtures/oauth/index.mjs';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

let world;
let authHost;
let tokenStore;
/** The core the front ends pass: it says which authorization URLs may be opened. */
let core;
before(async () => {
  world = await startOAuthWorld({ accessTokenTtlSec: 3600 });
  authHost = await loadHostModule('host/auth/authHost');
  tokenStore = await loadHostModule('host/auth/tokenStore');
  const { WasmCore } = await loadHostModule('core/wasmCore');
  core = new WasmCore(builtCoreModule, () => {});
});
after(async () => world?.stop());

const binding = () => ({ url: world.mcpUrl, config: {} });

test('declining the prompt ends the sign-in "cancelled": no tokens, the loopback listener closed', async () => {
  const store = new tokenStore.MemoryTokenStore();
  let redirectUri;
  const host = new authHost.AuthHost({
    core,
    store,
    browser: {
      openUrl: async (url, prompt) => {
        redirectUri = new URL(url).searchParams.get('redirect_uri');
        assert.deepEqual(prompt, { server: 'guarded', reason: 'not signed in', toolName: 'guarded_echo' });
        throw new authHost.SignInCancelled();
      },
    },
  });
  const r = await host.signIn(binding(), { server: 'guarded', reason: 'not signed in', toolName: 'guarded_echo' });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(host.accessToken(world.mcpUrl), undefined);
  assert.equal(new URL(redirectUri).hostname, '127.0.0.1');
  await assert.rejects(fetch(`${redirectUri}?code=x&state=y`), /fetch failed/, 'listener closed');
});

test('sign-in with externalUri: the redirect goes through the external URL; a second request joins the first; refresh then costs one token request', async () => {
  const store = new tokenStore.MemoryTokenStore();
  const opened = [];
  const mapped = [];
  const host = new authHost.AuthHost({
    core,
    store,
    browser: {
      // What asExternalUri gives in a web or remote window: the loopback port behind a proxy path.
      externalUri: async (url) => {
        mapped.push(url);
        const u = new URL(url);
        return `http://127.0.0.1:1/proxy/${u.port}${u.pathname}${u.search}`;
      },
      openUrl: async (url) => {
        opened.push(url);
        approveInBrowser(url, { remoteProxy: true }).catch((err) => console.error(`the consent driver failed: ${err?.stack ?? err}`));
      },
    },
  });
  const [a, b] = await Promise.all([
    host.signIn(binding(), { server: 'guarded', reason: 'requested' }),
    host.signIn(binding(), { server: 'guarded', reason: 'requested' }),
  ]);
  assert.equal(a.outcome, 'ok', a.message);
  assert.equal(b.outcome, 'ok', b.message);
  assert.equal(opened.length, 1, 'one browser opening for both');
  assert.equal(new URL(mapped[0]).hostname, '127.0.0.1', 'the loopback listener URL is what gets mapped');
  assert.match(new URL(opened[0]).searchParams.get('redirect_uri'), /^http:\/\/127\.0\.0\.1:1\/proxy\/\d+\//, 'the browser is sent back to the external URL');
  assert.ok(host.accessToken(world.mcpUrl));

  const before = await world.counters();
  const first = host.accessToken(world.mcpUrl);
  const refreshed = await host.refresh(binding());
  assert.equal(refreshed.outcome, 'ok', refreshed.message);
  assert.notEqual(host.accessToken(world.mcpUrl), first);
  const after = await world.counters();
  assert.equal(after.tokenRequests.refresh_token - (before.tokenRequests.refresh_token ?? 0), 1);
  assert.equal(after.authorizationRequests, before.authorizationRequests);

  await world.revokeAll();
  const revoked = await host.refresh(binding());
  assert.equal(revoked.outcome, 'invalidGrant');
  await host.deleteTokens(binding(), false);
  assert.equal(host.accessToken(world.mcpUrl), undefined);
  const record = JSON.parse(await store.get(`lazy-mcp.oauth:${world.mcpUrl}`));
  assert.equal(record.tokens, undefined);
  assert.ok(record.client, 'the registration stays until sign-out');
  assert.ok(record.callbackPort > 0, 'the redirect port is kept with the registration');
  await host.deleteTokens(binding(), true);
  assert.equal(await store.get(`lazy-mcp.oauth:${world.mcpUrl}`), undefined);
});

test('a refresh without a stored refresh token asks the authorization server nothing', async () => {
  const host = new authHost.AuthHost({ core, store: new tokenStore.MemoryTokenStore(), browser: { openUrl: async () => assert.fail('no browser for a refresh') } });
  const before = await world.counters();
  const r = await host.refresh(binding());
  assert.equal(r.outcome, 'failed');
  assert.match(r.message, /no refresh token/);
  const after = await world.counters();
  assert.deepEqual(after.tokenRequests, before.tokenRequests);
  assert.equal(after.registrations, before.registrations);
});
