// The bearer token file of `serve --http`: a directory, a symbolic link (to a
// user-only file whose content must never become the token nor be printed),
// a token with CR/LF are refused with one line naming the file (exit 1, as
// docs/cli.md says for a runtime failure); two servers started at once end up
// with the same token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { spawn } from 'node:child_process';
import { loadHostModule, repoRoot } from './helpers/bundle.mjs';

const ready = /serving \d+ servers? at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n.*Bearer ([\w-]+)" \(token stored in (\S+), mode 0600\)/;

function world() {
  const w = tempWorld('lazy-mcp-token-');
  // A server that answers the handshake: serve reaches "serving" quickly.
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: { fixture: { command: process.execPath, args: [path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs')] } },
  });
  const tokenFile = path.join(w.env.XDG_CONFIG_HOME, 'lazy-mcp', 'token');
  fs.mkdirSync(path.dirname(tokenFile), { recursive: true, mode: 0o700 });
  return { ...w, tokenFile };
}

async function refused(w) {
  const r = await runCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], { env: w.env, timeoutMs: 30_000 });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.ok(r.stderr.includes(w.tokenFile), r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  return r;
}

test('a directory at the token path: one line naming it, exit 1, no stack trace', { timeout: 60_000 }, async () => {
  const w = world();
  fs.mkdirSync(w.tokenFile);
  const r = await refused(w);
  assert.match(r.stderr, /is a directory/);
  assert.doesNotMatch(r.stderr, /EISDIR/);
});

test('a symbolic link at the token path is refused; the linked file is neither used nor printed', { timeout: 60_000 }, async () => {
  const w = world();
  const foreign = path.join(w.root, 'foreign-user-only');
  const secret = 'foreign-file-content-0123456789abcdefghijklmnop';
  fs.writeFileSync(foreign, `${secret}\n`, { mode: 0o600 });
  fs.symlinkSync(foreign, w.tokenFile);
  const r = await refused(w);
  assert.match(r.stderr, /symbolic link/);
  assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), 'the linked file content is not printed');
  assert.equal(fs.readFileSync(foreign, 'utf8'), `${secret}\n`, 'the linked file is untouched');
});

test('a token containing CR/LF is refused with a clear message', { timeout: 60_000 }, async () => {
  const w = world();
  const token = 'abcdefghijklmnopqrstuvwxyz012345\r\nInjected: header-value-0123456789';
  fs.writeFileSync(w.tokenFile, `${token}\n`, { mode: 0o600 });
  const r = await refused(w);
  assert.match(r.stderr, /line break/);
  assert.ok(!r.stderr.includes('Injected'), 'the token is not printed');
});

test('two serve --http started at once end up with the same token', { timeout: 120_000 }, async () => {
  const w = world();
  const a = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], { env: w.env, ready });
  const b = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--cwd', w.ws], { env: w.env, ready });
  try {
    const [[, urlA, tokenA, fileA], [, urlB, tokenB]] = await Promise.all([a.started, b.started]);
    assert.equal(tokenA, tokenB, 'both use the one token in the file');
    assert.equal(fs.readFileSync(fileA, 'utf8').trim(), tokenA);
    assert.equal(fs.statSync(fileA).mode & 0o777, 0o600);
    assert.deepEqual(
      // the token's own temp files (another file of the folder may be mid-write: approved definitions)
      fs.readdirSync(path.dirname(fileA)).filter((n) => n.startsWith(`${path.basename(fileA)}.`) && n.endsWith('.tmp')),
      [],
      'no temp file left',
    );
    for (const url of [urlA, urlB]) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenA}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
      assert.equal(res.status, 200, url);
      await res.body?.cancel();
    }
  } finally {
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
  }
});

test('eight processes asking for the token at the same instant all get the one token in the file', { timeout: 120_000 }, async () => {
  const w = world();
  // The real cliContext.gatewayToken, bundled; each process waits for a go file, then asks at once.
  await loadHostModule('cli/cliContext');
  const bundled = path.join(repoRoot, 'out', 'test', 'cli_cliContext.cjs');
  const go = path.join(w.root, 'go');
  // The core's limits as the WASM returns them (its hostLimits is this generated JSON).
  const limitsJson = path.join(repoRoot, 'crates', 'lazy-mcp-wasm', 'src', 'host_limits.generated.json');
  const script = `const fs = require('fs'); const { gatewayToken } = require(${JSON.stringify(bundled)});
    const limits = JSON.parse(fs.readFileSync(${JSON.stringify(limitsJson)}, 'utf8'));
    while (!fs.existsSync(${JSON.stringify(go)})) {}
    process.stdout.write(gatewayToken({ core: { limits: () => limits } }).token);`;
  const children = Array.from({ length: 8 }, () => {
    const child = spawn(process.execPath, ['-e', script], { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  });
  await new Promise((r) => setTimeout(r, 1500)); // every child is spinning on the go file
  fs.writeFileSync(go, '');
  const results = await Promise.all(children);
  for (const r of results) assert.equal(r.code, 0, r.err);
  const tokens = new Set(results.map((r) => r.out));
  assert.equal(tokens.size, 1, `${tokens.size} different tokens: the file was written more than once`);
  assert.equal(fs.readFileSync(w.tokenFile, 'utf8').trim(), [...tokens][0]);
  assert.deepEqual(fs.readdirSync(path.dirname(w.tokenFile)).filter((n) => n.endsWith('.tmp')), []);
});
