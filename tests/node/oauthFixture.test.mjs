// The OAuth test world (tests/fixtures/oauth) works with an independent, official client: the MCP
// SDK v1's own auth() flow signs in through the real consent pages (headless Chromium), calls a
// protected tool, refreshes silently after the access token expires, and fails cleanly after every
// grant is revoked. Also: each fault switch does what the sign-in fault tests rely on, and nothing
// keeps running after stop().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

import { startOAuthWorld, approveInBrowser, denyInBrowser, requireChromium } from '../fixtures/oauth/index.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

const TTL_SEC = 3;

/** A loopback redirect listener like a real client's: resolves with the callback's query. */
async function startCallbackListener() {
  let deliver;
  const received = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('You can close this window.');
    if (url.pathname === '/callback') {
      received.push(url.searchParams);
      deliver?.(url.searchParams);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    redirectUrl: `http://127.0.0.1:${server.address().port}/callback`,
    next: () => new Promise((resolve) => (received.length ? resolve(received.shift()) : (deliver = (p) => (received.shift(), resolve(p))))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** An in-memory OAuthClientProvider, the shape the SDK asks every client to supply. */
function memoryProvider(redirectUrl) {
  const saved = { authorizationUrls: [] };
  return {
    saved,
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return { client_name: 'oauth fixture test', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    },
    state: () => (saved.state = `state-${Math.random().toString(36).slice(2)}`),
    clientInformation: () => saved.client,
    saveClientInformation: (info) => (saved.client = info),
    tokens: () => saved.tokens,
    saveTokens: (tokens) => (saved.tokens = tokens),
    redirectToAuthorization: (url) => saved.authorizationUrls.push(url.href),
    saveCodeVerifier: (v) => (saved.verifier = v),
    codeVerifier: () => saved.verifier,
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') delete saved.tokens;
      if (scope === 'all' || scope === 'client') delete saved.client;
    },
  };
}

async function connect(mcpUrl, provider) {
  const client = new Client({ name: 'oauth-fixture-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
}

/** Waits until the MCP server itself rejects this access token (it expired), by asking it. */
async function untilRejected(mcpUrl, accessToken, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await res.body?.cancel();
    if (res.status === 401) return;
    if (Date.now() > deadline) throw new Error(`the access token was still accepted after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('the SDK v1 client signs in, calls a tool, refreshes silently, and is refused after revoke-all', { timeout: 180_000 }, async (t) => {
  const world = await startOAuthWorld({ accessTokenTtlSec: TTL_SEC });
  t.after(() => world.stop());
  const callback = await startCallbackListener();
  t.after(() => callback.close());
  const provider = memoryProvider(callback.redirectUrl);

  // No tokens: the server answers 401 and the SDK's auth() registers + sends the user to the AS.
  assert.equal(await auth(provider, { serverUrl: world.mcpUrl }), 'REDIRECT');
  assert.equal(provider.saved.authorizationUrls.length, 1);
  const authUrl = new URL(provider.saved.authorizationUrls[0]);
  assert.equal(authUrl.origin, world.issuer);
  assert.equal(authUrl.searchParams.get('resource'), world.mcpUrl, 'the resource indicator names the MCP server');
  assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
  let counters = await world.counters();
  assert.equal(counters.registrations, 1);
  assert.deepEqual(counters.tokens, {});

  // The consent driver logs in and approves; the browser lands on our loopback callback.
  const landed = callback.next();
  const callbackUrl = await approveInBrowser(authUrl.href);
  const params = await landed;
  assert.ok(callbackUrl.startsWith(callback.redirectUrl));
  assert.equal(params.get('state'), provider.saved.state);
  assert.equal(params.get('iss'), world.issuer, 'RFC 9207 issuer on the redirect');
  assert.equal(await auth(provider, { serverUrl: world.mcpUrl, authorizationCode: params.get('code') }), 'AUTHORIZED');
  assert.ok(provider.saved.tokens.access_token && provider.saved.tokens.refresh_token, 'access and refresh token issued');

  const client = await connect(world.mcpUrl, provider);
  t.after(() => client.close());
  assert.equal(client.getServerVersion().name, 'guarded-notes');
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['guarded_echo', 'whoami']);
  const echoed = await client.callTool({ name: 'guarded_echo', arguments: { text: 'first' } });
  assert.equal(echoed.content[0].text, 'guarded-notes echo: first');
  counters = await world.counters();
  assert.deepEqual(counters.tokens, { authorization_code: 1 });
  assert.equal(counters.authorizations, 1);

  // The access token expires: the next call gets a 401, the SDK refreshes with the refresh token
  // (no new authorization, no browser) and the call returns its real result.
  const firstAccess = provider.saved.tokens.access_token;
  const firstRefresh = provider.saved.tokens.refresh_token;
  await untilRejected(world.mcpUrl, firstAccess, 30_000);
  const again = await client.callTool({ name: 'guarded_echo', arguments: { text: 'after expiry' } });
  assert.equal(again.content[0].text, 'guarded-notes echo: after expiry');
  counters = await world.counters();
  assert.deepEqual(counters.tokens, { authorization_code: 1, refresh_token: 1 });
  assert.equal(counters.authorizations, 1, 'no second authorization');
  assert.equal(provider.saved.authorizationUrls.length, 1, 'no second redirect to the browser');
  assert.notEqual(provider.saved.tokens.access_token, firstAccess);
  assert.notEqual(provider.saved.tokens.refresh_token, firstRefresh, 'the refresh token rotates');
  assert.equal(counters.mcp.toolCalls.guarded_echo, 2);

  // expireAccessTokens() does on demand what the TTL did: one more silent refresh.
  // The live tokens it removed (the adapter counts live entries only).
  assert.equal((await world.expireAccessTokens()).removed, 1);
  const third = await client.callTool({ name: 'guarded_echo', arguments: { text: 'expired on demand' } });
  assert.equal(third.content[0].text, 'guarded-notes echo: expired on demand');
  counters = await world.counters();
  assert.deepEqual(counters.tokens, { authorization_code: 1, refresh_token: 2 });
  assert.equal(counters.authorizations, 1);

  // Every grant revoked: the stored tokens stop working, the refresh answers invalid_grant and the
  // SDK falls back to a new authorization (a redirect), never a silent success.
  await world.revokeAll();
  await assert.rejects(client.callTool({ name: 'whoami', arguments: {} }), UnauthorizedError);
  counters = await world.counters();
  assert.equal(counters.tokenErrors.invalid_grant, 1);
  assert.equal(provider.saved.authorizationUrls.length, 2, 'a new sign-in is asked for');
  assert.equal(counters.mcp.toolCalls.whoami, undefined);
});

test('cancelling on the consent page sends access_denied to the callback', { timeout: 120_000 }, async (t) => {
  const world = await startOAuthWorld();
  t.after(() => world.stop());
  const callback = await startCallbackListener();
  t.after(() => callback.close());
  const provider = memoryProvider(callback.redirectUrl);
  assert.equal(await auth(provider, { serverUrl: world.mcpUrl }), 'REDIRECT');
  const landed = callback.next();
  await denyInBrowser(provider.saved.authorizationUrls[0]);
  const params = await landed;
  assert.equal(params.get('error'), 'access_denied');
  assert.equal(params.get('state'), provider.saved.state);
  assert.equal(params.get('code'), null);
  const counters = await world.counters();
  assert.equal(counters.authorizationErrors.access_denied, 1);
  assert.deepEqual(counters.tokens, {});
});

test('fault switches break the authorization server the way the fault tests expect, and clear', { timeout: 120_000 }, async (t) => {
  const world = await startOAuthWorld();
  t.after(() => world.stop());
  const metadata = `${world.issuer}/.well-known/openid-configuration`;
  const post = (path, body) => fetch(`${world.issuer}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  await world.setFault('metadataMissing');
  assert.equal((await fetch(metadata)).status, 404);
  await world.setFault('malformedMetadata');
  await assert.rejects((await fetch(metadata)).json(), SyntaxError);
  await world.setFault('issuerMismatch');
  assert.notEqual((await (await fetch(metadata)).json()).issuer, world.issuer);
  await world.setFault('registrationRefused');
  const refused = await post('/reg', { redirect_uris: ['http://127.0.0.1:1/callback'] });
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).error, 'access_denied');
  await world.setFault('tokenGarbage');
  const garbage = await fetch(`${world.issuer}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }) });
  assert.equal(garbage.status, 200);
  assert.match(garbage.headers.get('content-type'), /text\/html/);
  await world.setFault('tokenError');
  assert.equal((await fetch(`${world.issuer}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token' }) })).status, 500);
  await world.setFault('down');
  await assert.rejects(fetch(metadata), /fetch failed/);
  await world.setFault('slow', { delayMs: 600 });
  const started = Date.now();
  assert.equal((await fetch(metadata)).status, 200);
  assert.ok(Date.now() - started >= 550, 'the slow fault delays the answer');
  await assert.rejects(world.setFault('noSuchFault'), /unknown fault/);

  await world.setFault(null);
  const healthy = await (await fetch(metadata)).json();
  assert.equal(healthy.issuer, world.issuer);
  assert.equal((await post('/reg', { redirect_uris: ['http://127.0.0.1:1/callback'] })).status, 201);
});

test('stop() ends the world: both ports refuse connections afterwards', { timeout: 60_000 }, async () => {
  const world = await startOAuthWorld();
  assert.equal((await fetch(`${world.issuer}/.well-known/openid-configuration`)).status, 200);
  await world.stop();
  await assert.rejects(fetch(`${world.issuer}/.well-known/openid-configuration`), /fetch failed/);
  await assert.rejects(fetch(world.mcpUrl, { method: 'POST' }), /fetch failed/);
});

test('remoteProxy: a redirect to a remote window port-proxy URL (/proxy/PORT/...) reaches the loopback listener', { timeout: 120_000 }, async (t) => {
  const world = await startOAuthWorld();
  t.after(() => world.stop());
  const callback = await startCallbackListener();
  t.after(() => callback.close());
  // What vscode.env.asExternalUri gives in a web/remote window: the workbench server's proxy path.
  // (The workbench server here is played by the MCP server's port: the browser never reaches it.)
  const port = new URL(callback.redirectUrl).port;
  const proxied = `http://127.0.0.1:${new URL(world.mcpUrl).port}/proxy/${port}/callback`;
  const provider = memoryProvider(proxied);
  assert.equal(await auth(provider, { serverUrl: world.mcpUrl }), 'REDIRECT');
  const landed = callback.next();
  const callbackUrl = await approveInBrowser(provider.saved.authorizationUrls[0], { remoteProxy: true });
  assert.ok(callbackUrl.startsWith(`${proxied}?`));
  const params = await landed;
  assert.equal(params.get('state'), provider.saved.state);
  assert.equal(await auth(provider, { serverUrl: world.mcpUrl, authorizationCode: params.get('code') }), 'AUTHORIZED');
});
