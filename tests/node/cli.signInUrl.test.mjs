// Issue 23 §5: a remote server's authorization metadata chooses the URL a sign-in opens. A
// hostile one names `file:///etc/passwd`, a `vscode://` command URL or plain http to another
// host (mcp-remote's CVE-2025-6514). `lazy-mcp auth login` must not hand such a URL to the
// desktop's opener (an `xdg-open` shim on PATH records every call), must not print it as a
// URL to open, and must fail naming the server and the scheme; the server stays NEEDS AUTH.
// The control: a loopback http authorization endpoint does reach the shim.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startHostileAuthServer } from '../fixtures/oauth/hostileAuthServer.mjs';
import { runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { waitFor } from './helpers/realServers.mjs';

const servers = [];
after(async () => {
  for (const s of servers) await s.stop();
});

/** A world whose PATH starts with an `xdg-open` that records its arguments, on a "desktop". */
async function world(authorizationEndpoint) {
  const auth = await startHostileAuthServer(authorizationEndpoint);
  servers.push(auth);
  const w = tempWorld('lazy-mcp-signin-url-');
  const shims = path.join(w.root, 'shims');
  const opened = path.join(w.root, 'opened.txt');
  fs.mkdirSync(shims);
  for (const opener of ['xdg-open', 'open']) {
    fs.writeFileSync(path.join(shims, opener), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${opened}'\n`, { mode: 0o755 });
  }
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { hostile: { type: 'http', url: auth.mcpUrl } } });
  const env = { ...w.env, PATH: `${shims}:${w.env.PATH}`, DISPLAY: ':0' };
  return { auth, w, env, opened };
}

for (const [endpoint, scheme] of [
  ['file:///etc/passwd', '`file:` scheme'],
  ['vscode://vscode.git/clone?url=http://evil', '`vscode:` scheme'],
  ['http://evil.example/', '`http:` scheme to a host other than this machine'],
]) {
  test(`auth login: an authorization endpoint of ${endpoint} is never opened; the error names the server and the scheme`, async () => {
    const { auth, w, env, opened } = await world(endpoint);
    const r = await runCli(['auth', 'login', 'hostile', '--trust-project', '--cwd', w.ws], { env, timeoutMs: 60_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(auth.counts.registrations >= 1, 'the OAuth client got as far as the authorization URL');
    assert.equal(fs.existsSync(opened), false, `the opener ran: ${fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8') : ''}`);
    assert.doesNotMatch(r.stderr, /open this URL in a browser/);
    assert.match(r.stderr, /not signed in to 'hostile'/);
    assert.match(r.stderr, /MCP server 'hostile': sign-in failed: the authorization server's sign-in URL uses the /);
    assert.ok(r.stderr.includes(scheme), r.stderr);
    assert.match(r.stderr, /Lazy MCP opens only https: URLs, or http: ones on this machine/);
    // Still NEEDS AUTH, with that error.
    const status = await runCli(['auth', 'status', '--json', '--trust-project', '--cwd', w.ws], { env });
    const row = JSON.parse(status.stdout).servers.find((s) => s.server === 'hostile');
    assert.equal(row.signedIn, false);
    assert.equal(row.state, 'NEEDS AUTH');
  });
}

test('auth login: a loopback http authorization endpoint reaches the desktop opener (the shim works)', async () => {
  const { w, env, opened } = await world('{base}/authorize');
  const run = startCli(['auth', 'login', 'hostile', '--trust-project', '--cwd', w.ws], { env, ready: /$^/, timeoutMs: 60_000 });
  run.started.catch(() => undefined);
  try {
    await waitFor('the opener to be called', () => fs.existsSync(opened) && fs.readFileSync(opened, 'utf8').includes('/authorize?'), 30_000);
    assert.match(fs.readFileSync(opened, 'utf8'), /^http:\/\/127\.0\.0\.1:\d+\/authorize\?response_type=code&/);
    assert.match(run.out.stderr, /open this URL in a browser/);
  } finally {
    run.child.kill('SIGKILL');
    await run.exited;
  }
});
