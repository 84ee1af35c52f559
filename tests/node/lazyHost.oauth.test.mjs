// The shared Node host as VS Code runs it (a call may wait for a sign-in), against the real
// authorization server and protected MCP server of tests/fixtures/oauth, the official SDK
// client as the MCP client and the consent pages driven in headless Chromium. What a user
// notices: a tool that needs more scopes asks once, signs in with the union of the scopes
// (never a refresh instead) and the waiting call returns its real result; a call-time ask
// nobody answers ends with the call, leaving no listener or "signing in" behind, and Sign In
// works again; Cancel ends a sign-in as cancelled.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { approveInBrowser, startOAuthWorld, requireChromium } from '../fixtures/oauth/index.mjs';
import { builtCoreModule, loadHostModule } from './helpers/bundle.mjs';
import { waitFor } from './helpers/realServers.mjs';
import { assertNoTokenIn } from './helpers/oauthLeaks.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');
const { AuthHost } = await loadHostModule('host/auth/authHost');
const { FileTokenStore } = await loadHostModule('host/auth/fileTokenStore');

let world;
const hosts = [];
const logs = [];
before(async () => {
  world = await startOAuthWorld({ stepUp: true });
});
after(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
  await assertNoTokenIn(world, logs);
  await world?.stop();
});

/** A host like VS Code's (signInMayWait) on a fresh home; `openUrl` is the browser hook. */
async function vscodeLikeHost(openUrl, guarded = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-host-oauth-'));
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { guarded: { type: 'http', url: world.mcpUrl, ...guarded } } }));
  const core = new WasmCore(builtCoreModule, () => {});
  const host = new LazyHost({
    core,
    discovery: { home, workspaceFolders: [ws], platform: 'linux', env: { HOME: home, PATH: process.env.PATH ?? '' } },
    // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    store: new BlobFile(path.join(root, 'catalogue.json')),
    settings: { signInMayWait: true },
    log: (level, message, server) => logs.push(`${level} ${server ?? ''} ${message}`),
    gateway: {},
    auth: new AuthHost({ core, store: new FileTokenStore(path.join(root, 'oauth.json'), core.limits().signIn.tokenStoreMaxBytes), browser: { openUrl } }),
  });
  hosts.push(host);
  await host.start();
  return host;
}

const row = (host) => host.snapshot().servers.find((s) => s.name === 'guarded');

async function client(host) {
  const c = new Client({ name: 'lazy-host-oauth-test', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(host.endpointUrl('guarded')), { requestInit: { headers: { Authorization: `Bearer ${host.gatewayToken}` } } }));
  return c;
}

const text = (result) => result.content.map((c) => c.text).join('\n');

test('a tool that needs more scopes: one ask, a sign-in with the union of the scopes, the waiting call returns its real result', async () => {
  const asked = [];
  const host = await vscodeLikeHost(async (url, prompt) => {
    asked.push({ url, prompt });
    approveInBrowser(url).catch((err) => console.error(`consent failed: ${err?.stack ?? err}`));
  });
  await waitFor('guarded NEEDS AUTH', () => row(host)?.state.kind === 'NEEDS_AUTH', 30_000);
  host.driver.handle({ type: 'signIn', server: 'guarded' });
  await waitFor('guarded CATALOGUED', () => row(host)?.state.kind === 'CATALOGUED', 60_000);
  assert.equal(new URL(asked[0].url).searchParams.get('scope'), 'mcp:tools', 'the first sign-in asks for the advertised scope');

  const c = await client(host);
  try {
    assert.equal(text(await c.callTool({ name: 'guarded_echo', arguments: { text: 'before' } })), 'guarded-notes echo: before');
    const before = await world.counters();
    const result = await c.callTool({ name: 'admin_note', arguments: { text: 'stepped up' } }, undefined, { timeout: 120_000 });
    assert.equal(text(result), 'guarded-notes admin note: stepped up (scopes mcp:tools mcp:admin)');
    assert.equal(asked.length, 2, 'one more browser opening');
    assert.equal(asked[1].prompt.toolName, 'admin_note', 'the ask names the tool');
    assert.deepEqual(new URL(asked[1].url).searchParams.get('scope').split(' ').sort(), ['mcp:admin', 'mcp:tools'], 'granted + required scopes');
    let after = await world.counters();
    assert.equal(after.tokens.authorization_code - before.tokens.authorization_code, 1, 'one sign-in');
    assert.equal((after.tokenRequests.refresh_token ?? 0) - (before.tokenRequests.refresh_token ?? 0), 0, 'no refresh instead of the sign-in');
    assert.equal(after.mcp.insufficientScope - (before.mcp.insufficientScope ?? 0), 1, 'refused once, no loop');

    // The stepped-up scopes stay: the tool works again without asking, the other tools too.
    assert.match(text(await c.callTool({ name: 'admin_note', arguments: { text: 'again' } })), /admin note: again/);
    assert.equal(text(await c.callTool({ name: 'guarded_echo', arguments: { text: 'after' } })), 'guarded-notes echo: after');
    after = await world.counters();
    assert.equal(after.tokens.authorization_code - before.tokens.authorization_code, 1);
    assert.equal(asked.length, 2);
  } finally {
    await c.close();
  }
});

test('a call-time ask nobody answers ends with the call: no listener, not "signing in", and Sign In works again', async () => {
  const asked = [];
  const host = await vscodeLikeHost(
    (url, prompt, cancelled) => {
      // The user never answers the ask: only the host's cancellation ends it.
      const entry = { url, prompt, withdrawn: false };
      asked.push(entry);
      return new Promise((_, reject) => cancelled.addEventListener('abort', () => ((entry.withdrawn = true), reject(new Error('withdrawn')))));
    },
    { timeout: 4000 },
  );
  await waitFor('guarded NEEDS AUTH', () => row(host)?.state.kind === 'NEEDS_AUTH', 30_000);
  const c = await client(host);
  try {
    const started = Date.now();
    const failed = await c.callTool({ name: 'whoami', arguments: {} }).then(
      (r) => r,
      (err) => ({ isError: true, content: [{ text: String(err.message) }] }),
    );
    assert.ok(failed.isError, JSON.stringify(failed));
    assert.match(text(failed), /needs you to sign in .*no sign-in within the call's timeout/);
    assert.ok(Date.now() - started < 20_000, 'bounded by the call timeout');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].prompt.toolName, 'whoami');
    await waitFor('the ask withdrawn', () => asked[0].withdrawn, 10_000);
    await waitFor('not signing in any more', () => row(host).auth.signingIn === false, 10_000);
    const redirect = new URL(asked[0].url).searchParams.get('redirect_uri');
    await assert.rejects(fetch(`${redirect}?code=late&state=x`), /fetch failed/, 'the loopback listener is closed');

    // Sign In starts a new sign-in (before the fix it did nothing while the old one hung).
    host.driver.handle({ type: 'signIn', server: 'guarded' });
    await waitFor('a second browser opening', () => asked.length === 2, 30_000);
    assert.equal(row(host).auth.signingIn, true);
    // Cancel (the progress notification's) ends it as cancelled.
    host.driver.handle({ type: 'cancelSignIn', server: 'guarded' });
    await waitFor('the sign-in ended cancelled', () => row(host).auth.signingIn === false && /cancelled/.test(row(host).auth.reason ?? ''), 10_000);
    assert.equal(asked[1].withdrawn, true);
    const second = new URL(asked[1].url).searchParams.get('redirect_uri');
    await assert.rejects(fetch(`${second}?code=late&state=x`), /fetch failed/);
  } finally {
    await c.close();
  }
});
