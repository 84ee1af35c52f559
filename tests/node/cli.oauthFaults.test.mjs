// `lazy-mcp auth login` and `serve` against a real authorization server (oidc-provider,
// tests/fixtures/oauth) that misbehaves: each fault ends with a clear error naming the server,
// nothing stored that could be used, no retry loop (the authorization server's request count
// stays still afterwards), other servers unaffected, and the listener closed. Plus: a redirect
// whose issuer is wrong or missing (RFC 9207), one that does not belong to the sign-in under
// way, the user cancelling, the callback port in use, and two sign-ins at once.
import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import path from 'node:path';
import { approveInBrowser, denyInBrowser, startOAuthWorld, requireChromium } from '../fixtures/oauth/index.mjs';
import { runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { callOrError, loginSignals, oauthUser, textOf, urlOfTwoLogins } from './helpers/cliOAuth.mjs';
import { assertNoTokenIn } from './helpers/oauthLeaks.mjs';
import { countedServer } from './helpers/realServers.mjs';

// Consent is given in headless Chromium: without it these tests fail now, not after a timeout.
requireChromium();

let world;
/** Every output of every command of this file (the planted-token check reads it). */
const outputs = [];
before(async () => {
  world = await startOAuthWorld({ accessTokenTtlSec: 3600 });
});
after(async () => {
  await world?.setFault(null).catch(() => undefined);
  await world?.stop();
});

/** The authorization server's request count does not move for `ms` (nothing retries in a loop). */
async function assertStill(ms = 3000) {
  const before = (await world.counters()).asRequests;
  await new Promise((r) => setTimeout(r, ms));
  assert.equal((await world.counters()).asRequests, before, 'no request to the authorization server after the error');
}

/** A fresh home (own token file) whose project configures `guarded`, optionally with an `oauth` key. */
function freshUser(oauth) {
  const w = tempWorld('lazy-mcp-oauth-faults-');
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { guarded: { type: 'http', url: world.mcpUrl, ...(oauth ? { oauth } : {}) } } });
  const env = { ...w.env, LAZY_MCP_NO_BROWSER: '1' };
  const file = path.join(w.home, '.config', 'lazy-mcp', 'oauth.json');
  const record = () => {
    if (!fs.existsSync(file)) return undefined;
    const text = JSON.parse(fs.readFileSync(file, 'utf8'))[`lazy-mcp.oauth:${world.mcpUrl}`];
    return text === undefined ? undefined : JSON.parse(text);
  };
  return { w, env, record };
}

/** Starts `auth login guarded`; `url` resolves with the authorization URL it prints (or never). */
function startLogin(user) {
  const run = startCli(['auth', '--trust-project', 'login', 'guarded', '--cwd', user.w.ws], { env: user.env, ready: /$^/, timeoutMs: 120_000 });
  run.started.catch(() => undefined);
  void run.exited.then(() => outputs.push(run.out.stdout, run.out.stderr));
  return { run, ...loginSignals(run, 'guarded') };
}

async function loginFails(user) {
  const r = await runCli(['auth', '--trust-project', 'login', 'guarded', '--cwd', user.w.ws], { env: user.env, timeoutMs: 120_000 });
  outputs.push(r.stdout, r.stderr);
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /open this URL/, 'no browser for a sign-in that cannot work');
  assert.equal(user.record()?.tokens, undefined, 'no tokens stored');
  return r.stderr;
}

for (const [fault, options, expected] of [
  ['down', {}, /not signed in to 'guarded': .*sign-in failed: .*cannot be reached/],
  ['slow', { delayMs: 60_000 }, /not signed in to 'guarded': .*sign-in failed: .*did not answer within 10000 ms/],
  ['metadataMissing', {}, /not signed in to 'guarded': .*sign-in failed: the authorization server answered HTTP 404/],
  ['malformedMetadata', {}, /not signed in to 'guarded': .*sign-in failed: .*JSON/],
  ['issuerMismatch', {}, /not signed in to 'guarded': .*sign-in failed: issuer mismatch: the authorization server http:\/\/127\.0\.0\.1:\d+ sent metadata naming /],
  ['registrationRefused', {}, /not signed in to 'guarded': .*sign-in failed: .*(regist|access_denied|403)/i],
]) {
  test(`authorization server fault "${fault}": a clear error, nothing stored, bounded`, async () => {
    await world.setFault(fault, options);
    try {
      const started = Date.now();
      const before = (await world.counters()).asRequests;
      const stderr = await loginFails(freshUser());
      assert.match(stderr, expected);
      assert.ok(Date.now() - started < 60_000, 'bounded by the request timeout');
      assert.ok((await world.counters()).asRequests - before <= 12, 'a handful of requests, not a retry loop');
      await assertStill();
    } finally {
      await world.setFault(null);
    }
  });
}

test('the token endpoint answering garbage: a clear error after consent, no tokens stored', async () => {
  const user = freshUser();
  const { run, url } = startLogin(user);
  const authUrl = await url;
  await world.setFault('tokenGarbage');
  try {
    await approveInBrowser(authUrl);
    const { code } = await run.exited;
    assert.equal(code, 1, run.out.stderr);
    assert.match(run.out.stderr, /not signed in to 'guarded': .*sign-in failed: /);
    assert.equal(user.record()?.tokens, undefined);
  } finally {
    await world.setFault(null);
  }
});

test('the user cancels on the consent page: "sign-in cancelled", nothing stored', async () => {
  const user = freshUser();
  const { run, url } = startLogin(user);
  await denyInBrowser(await url);
  const { code } = await run.exited;
  assert.equal(code, 1, run.out.stderr);
  assert.match(run.out.stderr, /not signed in to 'guarded': .*sign-in cancelled/);
  assert.equal(user.record()?.tokens, undefined);
});

test('a redirect with the wrong state is refused and changes nothing; after the sign-in no listener is left', async () => {
  const user = freshUser();
  const { run, url } = startLogin(user);
  const authUrl = new URL(await url);
  const redirect = authUrl.searchParams.get('redirect_uri');
  const forged = await fetch(`${redirect}?code=forged-code&state=not-the-state`);
  assert.equal(forged.status, 400);
  assert.match(await forged.text(), /state mismatch/);
  assert.equal(user.record()?.tokens, undefined, 'nothing stored by the forged redirect');
  await approveInBrowser(authUrl.href);
  const { code } = await run.exited;
  assert.equal(code, 0, run.out.stderr);
  assert.ok(user.record()?.tokens?.access_token);
  // No sign-in under way: the loopback port is closed.
  await assert.rejects(fetch(`${redirect}?code=late&state=x`), /fetch failed/);
});

test('the callback port in use: a clear error naming the port, nothing stored', async () => {
  const blocker = http.createServer((_, res) => res.end('not lazy-mcp'));
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  const port = blocker.address().port;
  try {
    const stderr = await loginFails(freshUser({ callbackPort: port }));
    assert.match(stderr, new RegExp(`callback port ${port} on 127\\.0\\.0\\.1 is in use`));
  } finally {
    blocker.close();
  }
});

test('two sign-ins to the same server at once: one browser consent, both end signed in', async () => {
  const user = freshUser();
  // A first sign-in registers the client (and its redirect port); then the tokens are gone.
  const first = startLogin(user);
  await approveInBrowser(await first.url);
  assert.equal((await first.run.exited).code, 0, first.run.out.stderr);
  const file = path.join(user.w.home, '.config', 'lazy-mcp', 'oauth.json');
  const all = JSON.parse(fs.readFileSync(file, 'utf8'));
  const key = `lazy-mcp.oauth:${world.mcpUrl}`;
  all[key] = JSON.stringify({ ...JSON.parse(all[key]), tokens: undefined });
  fs.writeFileSync(file, JSON.stringify(all), { mode: 0o600 });

  const before = await world.counters();
  const a = startLogin(user);
  const b = startLogin(user);
  await approveInBrowser(await urlOfTwoLogins(a, b));
  const [ra, rb] = await Promise.all([a.run.exited, b.run.exited]);
  assert.equal(ra.code, 0, a.run.out.stderr);
  assert.equal(rb.code, 0, b.run.out.stderr);
  const after = await world.counters();
  assert.equal(after.tokens.authorization_code - before.tokens.authorization_code, 1, 'one sign-in at the AS');
  assert.ok(user.record().tokens.access_token);
});

for (const [fault, expected] of [
  ['redirectIssMismatch', /sign-in failed: the redirect came from another authorization server \(issuer mismatch: expected http:\/\/127\.0\.0\.1:\d+\)/],
  ['redirectIssMissing', /sign-in failed: the redirect carries no `iss` although the authorization server http:\/\/127\.0\.0\.1:\d+ says it sends one \(RFC 9207\)/],
]) {
  test(`RFC 9207: a redirect whose issuer is ${fault === 'redirectIssMissing' ? 'missing' : 'another'} is refused; the code is never exchanged`, async () => {
    const user = freshUser();
    const { run, url } = startLogin(user);
    const authUrl = await url;
    await world.setFault(fault);
    try {
      const before = await world.counters();
      await approveInBrowser(authUrl);
      const { code } = await run.exited;
      assert.equal(code, 1, run.out.stderr);
      assert.match(run.out.stderr, /not signed in to 'guarded': /);
      assert.match(run.out.stderr, expected);
      assert.equal(user.record()?.tokens, undefined, 'no tokens stored');
      const after = await world.counters();
      assert.ok(after.faultResponses > before.faultResponses, 'the redirect was rewritten');
      assert.equal(after.tokenRequests.authorization_code ?? 0, before.tokenRequests.authorization_code ?? 0, 'the code was not sent to the token endpoint');
    } finally {
      await world.setFault(null);
    }
  });
}

describe('a fault while a running serve refreshes: a clear error, no retry loop, the other server answers', () => {
  let user;
  before(async () => {
    user = oauthUser(
      'lazy-mcp-oauth-refresh-faults-',
      {
        guarded: { type: 'http', url: world.mcpUrl },
        everything: countedServer(path.join(tempWorld('lazy-mcp-oauth-spawns-').root, 'spawns.log'), 'server-everything', ['stdio']),
      },
      outputs,
    );
    const login = await user.login('guarded');
    assert.equal(login.code, 0, login.stderr);
  });

  // (`metadataMissing` is no fault for a refresh: the SDK then uses the default endpoint
  // paths, and this authorization server's /token is there.)
  for (const [fault, options, expected] of [
    ['down', {}, /refreshing the sign-in failed: .*cannot be reached/],
    ['slow', { delayMs: 60_000 }, /refreshing the sign-in failed: .*did not answer within 10000 ms/],
    ['malformedMetadata', {}, /refreshing the sign-in failed: /],
    ['issuerMismatch', {}, /refreshing the sign-in failed: issuer mismatch/],
    ['tokenGarbage', {}, /refreshing the sign-in failed: /],
    ['tokenError', {}, /refreshing the sign-in failed: /],
  ]) {
    test(`"${fault}" during a refresh`, async () => {
      const s = await user.serve();
      try {
        assert.match(textOf(await callOrError(s.client, 'everything__echo', { message: 'warm' })), /warm/);
        await world.expireAccessTokens();
        await world.setFault(fault, options);
        const started = Date.now();
        const failed = await callOrError(s.client, 'guarded__guarded_echo', { text: 'during the fault' });
        assert.ok(failed.isError, JSON.stringify(failed));
        assert.match(textOf(failed), /MCP server 'guarded'/);
        assert.match(textOf(failed), expected);
        assert.ok(Date.now() - started < 60_000, 'bounded');
        await assertStill();
        // The other server is unaffected, during the fault.
        assert.match(textOf(await callOrError(s.client, 'everything__echo', { message: 'unaffected' })), /unaffected/);
        assert.ok(user.record(world.mcpUrl).tokens?.refresh_token, 'the tokens are kept');
      } finally {
        await world.setFault(null);
        await s.close();
      }
    });
  }

  test('after the faults the next call refreshes and works', async () => {
    const s = await user.serve();
    try {
      assert.equal(textOf(await callOrError(s.client, 'guarded__guarded_echo', { text: 'recovered' })), 'guarded-notes echo: recovered');
    } finally {
      await s.close();
    }
  });
});

test('no token value appears in any output of this file', async () => {
  await assertNoTokenIn(world, outputs);
});
