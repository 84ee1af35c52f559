// `lazy-mcp` and a remote MCP server behind OAuth, all real parts: oidc-provider as the
// authorization server, the SDK v1 server behind requireBearerAuth (tests/fixtures/oauth), the
// consent pages driven in headless Chromium, the SDK client as the MCP client of `serve`.
// What a user notices: cataloguing opens nothing and says how to sign in; `auth login` signs in
// and catalogues; calls work; an expired token is refreshed silently (once for many calls); a
// revoked sign-in gives a clear error and signing in again works; no token is ever printed.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { approveInBrowser, startOAuthWorld, requireChromium } from '../fixtures/oauth/index.mjs';
import { cliJs, runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { waitFor } from './helpers/realServers.mjs';
import { assertNoTokenIn } from './helpers/oauthLeaks.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

const w = tempWorld('lazy-mcp-cli-oauth-');
const env = { ...w.env, LAZY_MCP_NO_BROWSER: '1' };
const oauthFile = path.join(w.home, '.config', 'lazy-mcp', 'oauth.json');
/** Every output of every command of this file (the planted-token grep reads it). */
const outputs = [];
let world;

before(async () => {
  world = await startOAuthWorld({ accessTokenTtlSec: 3600 });
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { guarded: { type: 'http', url: world.mcpUrl, tools: ['guarded_echo', 'whoami'] } } });
});
after(async () => {
  await world?.stop();
});

async function cli(args, opts = {}) {
  const r = await runCli([...args, '--cwd', w.ws], { env, timeoutMs: 90_000, ...opts });
  outputs.push(r.stdout, r.stderr);
  return r;
}

/** `auth login SERVER`, the consent given in the headless browser from the URL it prints. */
async function login(server = 'guarded') {
  const run = startCli(['auth', '--trust-project', 'login', server, '--verbose', '--cwd', w.ws], { env, ready: /$^/, timeoutMs: 90_000 });
  run.started.catch(() => undefined);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no authorization URL printed\n${run.out.stderr}`)), 60_000);
    const check = () => {
      const m = /open this URL in a browser:\n\s+(\S+)/.exec(run.out.stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    run.child.stderr.on('data', check);
    check();
  });
  const callback = await approveInBrowser(url);
  const { code } = await run.exited;
  outputs.push(run.out.stdout, run.out.stderr, url, callback);
  return { code, url, callback, stderr: run.out.stderr };
}

async function serveClient() {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--verbose', '--cwd', w.ws], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'cli-oauth-test', version: '1' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async close() {
      await client.close();
      outputs.push(stderr);
    },
  };
}

const echo = (client, text) => client.callTool({ name: 'guarded__guarded_echo', arguments: { text } });

test('cataloguing with no tokens opens nothing, ends NEEDS AUTH and names the command to run', async () => {
  const before = await world.counters();
  const r = await cli(['catalogue', '--trust-project']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /guarded: NEEDS AUTH/);
  assert.match(r.stderr, /run `lazy-mcp auth login guarded`/);
  assert.doesNotMatch(r.stderr, /open this URL/);
  const after = await world.counters();
  assert.equal(after.authorizationRequests, before.authorizationRequests, 'no authorization request');
  assert.equal(after.registrations, before.registrations, 'no client registration while cataloguing');
  const diag = await cli(['diagnostics', '--trust-project', '--json']);
  const row = JSON.parse(diag.stdout).servers.find((s) => s.name === 'guarded');
  assert.equal(row.state.kind, 'NEEDS_AUTH');
  assert.equal(row.auth.needsSignIn, true);
  assert.equal(row.auth.reason, 'not signed in');
  assert.equal(row.auth.nextStep, 'run `lazy-mcp auth login guarded`');
  assert.equal(row.tools, 2, 'the declared tools are exposed as stubs');
});

test('serve says on stderr which server needs sign-in, and a call fails at once with the login command', async () => {
  const s = await serveClient();
  try {
    const started = Date.now();
    const result = await echo(s.client, 'hello').catch((err) => ({ isError: true, content: [{ text: String(err.message) }] }));
    assert.ok(result.isError, JSON.stringify(result));
    assert.match(JSON.stringify(result), /needs you to sign in \(not signed in\): run `lazy-mcp auth login guarded`/);
    assert.ok(Date.now() - started < 15_000, 'fails at once, no waiting for a sign-in');
    assert.match(s.stderr(), /needs you to sign in: run `lazy-mcp auth login guarded`/);
  } finally {
    await s.close();
  }
});

test('auth login signs in through the browser, stores tokens 0600 and catalogues the server; a call works', async () => {
  const before = await world.counters();
  const r = await login();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /signed in to 'guarded' \(CATALOGUED ONLY: 2 tools\)/);
  // Issue 23: not told to run the command it is running; the legacy server's refusal of the era
  // probe (HTTP 400 "No valid session ID") is no warning; the success is logged.
  assert.doesNotMatch(r.stderr, /needs you to sign in/);
  assert.doesNotMatch(r.stderr, /lazy-mcp warn.*request \d+ failed/);
  assert.match(r.stderr, /lazy-mcp info \[guarded\]: Signed in to 'guarded'/);
  const redirect = new URL(new URL(r.url).searchParams.get('redirect_uri'));
  assert.equal(redirect.hostname, '127.0.0.1');
  assert.ok(new URL(r.url).searchParams.get('state'), 'state sent');
  assert.equal(new URL(r.url).searchParams.get('code_challenge_method'), 'S256');
  assert.equal(new URL(r.url).searchParams.get('resource'), world.mcpUrl);
  const after = await world.counters();
  assert.equal(after.registrations - before.registrations, 1);
  assert.equal(after.tokens.authorization_code - (before.tokens.authorization_code ?? 0), 1);
  assert.equal(fs.statSync(oauthFile).mode & 0o777, 0o600);

  const status = await cli(['auth', '--trust-project', 'status']);
  assert.match(status.stdout, /guarded {2}CATALOGUED ONLY {2}signed in/);

  const s = await serveClient();
  try {
    const { tools } = await s.client.listTools();
    assert.ok(tools.some((t) => t.name === 'guarded__guarded_echo'), tools.map((t) => t.name).join(', '));
    const result = await echo(s.client, 'through lazy-mcp');
    assert.equal(result.content[0].text, 'guarded-notes echo: through lazy-mcp');
    assert.doesNotMatch(s.stderr(), /needs you to sign in/);
  } finally {
    await s.close();
  }
});

test('an expired access token is refreshed silently: 0 sign-ins, exactly 1 refresh for 6 concurrent calls', async () => {
  const s = await serveClient();
  try {
    assert.equal((await echo(s.client, 'warm')).content[0].text, 'guarded-notes echo: warm');
    const before = await world.counters();
    await world.expireAccessTokens();
    const one = await echo(s.client, 'after expiry');
    assert.equal(one.content[0].text, 'guarded-notes echo: after expiry');
    let after = await world.counters();
    assert.equal(after.authorizationRequests, before.authorizationRequests, 'no sign-in');
    assert.equal(after.tokenRequests.refresh_token - (before.tokenRequests.refresh_token ?? 0), 1, 'one refresh');

    await world.expireAccessTokens();
    const many = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => echo(s.client, `concurrent ${i}`)));
    assert.deepEqual(
      many.map((m) => m.content[0].text),
      [1, 2, 3, 4, 5, 6].map((i) => `guarded-notes echo: concurrent ${i}`),
    );
    after = await world.counters();
    assert.equal(after.tokenRequests.refresh_token - (before.tokenRequests.refresh_token ?? 0), 2, 'one more refresh for all six calls');
    assert.equal(after.authorizationRequests, before.authorizationRequests, 'still no sign-in');
  } finally {
    await s.close();
  }
});

test('a revoked refresh token gives a clear error and deletes the tokens; signing in again works', async () => {
  const s = await serveClient();
  try {
    assert.equal((await echo(s.client, 'before')).content[0].text, 'guarded-notes echo: before');
    await world.revokeAll();
    const before = await world.counters();
    const failed = await echo(s.client, 'revoked').catch((err) => ({ isError: true, content: [{ text: String(err.message) }] }));
    assert.ok(failed.isError, JSON.stringify(failed));
    assert.match(JSON.stringify(failed), /the sign-in expired or was revoked\): run `lazy-mcp auth login guarded`/);
    const after = await world.counters();
    assert.equal(after.authorizationRequests, before.authorizationRequests, 'no prompt');
    assert.ok((after.tokenErrors.invalid_grant ?? 0) > (before.tokenErrors.invalid_grant ?? 0), 'the AS refused the refresh');
    // The deletion is written in the background, right after the error went out.
    const record = await waitFor(
      'the stored tokens to be deleted',
      () => {
        const r = JSON.parse(JSON.parse(fs.readFileSync(oauthFile, 'utf8'))[`lazy-mcp.oauth:${world.mcpUrl}`]);
        return r.tokens === undefined ? r : undefined;
      },
      10_000,
    );
    assert.ok(record.client, 'the registration stays');
    // A second call: no refresh attempt (no tokens), the same clear error.
    const again = await echo(s.client, 'again').catch((err) => ({ isError: true, content: [{ text: String(err.message) }] }));
    assert.match(JSON.stringify(again), /lazy-mcp auth login guarded/);

    const r = await login();
    assert.equal(r.code, 0, r.stderr);
    // The running serve picks the new tokens up on its next connection.
    assert.equal((await echo(s.client, 'signed in again')).content[0].text, 'guarded-notes echo: signed in again');
  } finally {
    await s.close();
  }
});

test('auth logout deletes the tokens and the registration; status then says how to sign in', async () => {
  const r = await cli(['auth', '--trust-project', 'logout', 'guarded']);
  assert.equal(r.code, 0, r.stderr);
  const stored = JSON.parse(fs.readFileSync(oauthFile, 'utf8'));
  assert.equal(stored[`lazy-mcp.oauth:${world.mcpUrl}`], undefined);
  const status = await cli(['auth', '--trust-project', 'status']);
  assert.match(status.stdout, /guarded .*not signed in/);
});

test('no token value appears in any output, the catalogue, config or diagnostics', async () => {
  const r = await login();
  assert.equal(r.code, 0, r.stderr);
  const s = await serveClient();
  await echo(s.client, 'x');
  await s.close();
  outputs.push((await cli(['config', '--json'])).stdout, (await cli(['diagnostics', '--trust-project', '--json'])).stdout, (await cli(['diagnostics', '--trust-project'])).stdout);
  const cacheDir = path.join(w.home, '.cache', 'lazy-mcp');
  for (const f of fs.readdirSync(cacheDir)) outputs.push(fs.readFileSync(path.join(cacheDir, f), 'utf8'));
  // Every token the authorization server issued in this file (rotated and revoked ones too).
  const record = JSON.parse(JSON.parse(fs.readFileSync(oauthFile, 'utf8'))[`lazy-mcp.oauth:${world.mcpUrl}`]);
  const issued = await world.issuedTokens();
  assert.ok(issued.includes(record.tokens.access_token) && issued.includes(record.tokens.refresh_token), 'the stored tokens are among the issued ones');
  assert.ok(issued.length >= 8, `tokens of every sign-in and refresh of this file (${issued.length})`);
  await assertNoTokenIn(world, outputs);
});
