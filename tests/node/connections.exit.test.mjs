// If the host process exits without closing its connections (VS Code killing the
// extension host, a crash), no server process may outlive it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fixtures, pidAlive, stdioLimits, waitUntil } from './connections.helper.mjs';
import { loadHostModule, repoRoot } from './helpers/bundle.mjs';

test('a server that ignores EOF and SIGTERM is killed when the host process exits', async () => {
  await loadHostModule('host/connections/index'); // writes the bundle the child process requires
  const bundle = path.join(repoRoot, 'out', 'test', 'host_connections_index.cjs');
  const script = `
    const { openConnection } = require(${JSON.stringify(bundle)});
    openConnection({ type: 'stdio', command: process.execPath, args: [${JSON.stringify(path.join(fixtures, 'stubborn.mjs'))}] }, {
      onOpened: ({ pid }) => { console.log(pid); process.exit(0); },
      onMessage() {}, onClosed() {},
    }, { stdio: ${JSON.stringify(stdioLimits())} });`;
  const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(res.status, 0, res.stderr);
  const pid = Number(res.stdout.trim());
  assert.ok(pid > 0, `host printed the server pid: ${res.stdout}`);
  await waitUntil(() => !pidAlive(pid), 5_000, 'the stubborn server to be gone');
});
