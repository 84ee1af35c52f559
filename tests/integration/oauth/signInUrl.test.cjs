// Issue 23 §5 in the real VS Code: a remote server whose authorization metadata names a
// `file:` or `vscode:` URL as the place to sign in. Sign In must not hand that URL to
// `env.openExternal` (the extension records every URL it hands over: `openedUrls()`), the user
// must see an error naming the server and the scheme, and the server stays NEEDS AUTH with it.
// The hostile authorization servers run in this extension host (tests/fixtures/oauth/
// hostileAuthServer.mjs); the servers are added to the workspace's opencode.json and removed
// again, so the oauth-warm phase sees the workspace as the other tests left it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vscode = require('vscode');

const { api, phase, stateOf, waitFor, workspace } = require('../suite/helpers.cjs');

const repo = process.env.LAZY_MCP_TEST_REPO_ROOT;
const hostileFixture = () => import(pathToFileURL(path.join(repo, 'tests', 'fixtures', 'oauth', 'hostileAuthServer.mjs')).href);

if (phase === 'oauth') {
  suite('A hostile sign-in URL (issue 23)', function () {
    test('Sign In to a server whose authorization endpoint is file: or vscode: opens nothing and says why', async function () {
      this.timeout(120_000);
      const lazy = await api();
      const { startHostileAuthServer } = await hostileFixture();
      const cases = [
        { server: 'hostile-file', endpoint: 'file:///etc/passwd', scheme: '`file:` scheme' },
        { server: 'hostile-vscode', endpoint: 'vscode://vscode.git/clone?url=http://evil', scheme: '`vscode:` scheme' },
      ];
      const started = [];
      const configFile = path.join(workspace, 'opencode.json');
      const original = fs.readFileSync(configFile, 'utf8');
      try {
        for (const c of cases) started.push({ ...c, auth: await startHostileAuthServer(c.endpoint) });
        const config = JSON.parse(original);
        for (const s of started) config.mcp[s.server] = { type: 'remote', url: s.auth.mcpUrl };
        fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
        for (const s of started) await waitFor(`${s.server} NEEDS AUTH`, () => stateOf(lazy, s.server) === 'NEEDS_AUTH', 30_000);

        for (const s of started) {
          const opened = lazy.openedUrls().length;
          const shown = lazy.notifications().length;
          await vscode.commands.executeCommand('lazyMcp.signIn', s.server);
          const notice = await waitFor(
            `the error about ${s.server}`,
            () => lazy.notifications().slice(shown).find((n) => n.message.includes(`'${s.server}'`) && n.message.includes('sign-in failed')),
            30_000,
          );
          assert.ok(notice.message.includes(s.scheme), notice.message);
          assert.match(notice.message, /Lazy MCP opens only https: URLs/);
          assert.ok(s.auth.counts.registrations >= 1, 'the OAuth client got as far as the authorization URL');
          assert.equal(lazy.openedUrls().length, opened, `nothing handed to openExternal: ${lazy.openedUrls().slice(opened).join(', ')}`);
          const row = lazy.snapshot().servers.find((x) => x.name === s.server);
          assert.equal(row.state.kind, 'NEEDS_AUTH');
          assert.equal(row.auth.signingIn, false);
          assert.ok(row.lastError.includes(s.scheme), row.lastError);
        }
        assert.ok(!lazy.notifications().some((n) => n.progress && /signing in to hostile/.test(n.message) && !n.ended), 'no sign-in progress left up');
      } finally {
        fs.writeFileSync(configFile, original);
        for (const s of started) await waitFor(`${s.server} removed`, () => stateOf(lazy, s.server) === undefined, 30_000).catch(() => undefined);
        for (const s of started) await s.auth.stop();
      }
    });
  });
}
