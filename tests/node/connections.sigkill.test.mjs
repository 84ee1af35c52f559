// Issue 11 #7: SIGKILL of the host (the CLI, or VS Code's extension host) runs no
// exit handler, yet no server process may outlive it by more than a few seconds:
// the supervisor shell that leads each server's process group ends the group
// when the host's end of its watch pipe closes.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixtures, stdioLimits, waitUntil } from './connections.helper.mjs';
import { groupMembers } from './helpers/cliRun.mjs';
import { loadHostModule, repoRoot } from './helpers/bundle.mjs';

const posix = process.platform !== 'win32';

// Should an assertion fail: nothing this file started may stay behind.
const started = [];
after(() => {
  for (const { host, serverPid } of started) {
    for (const target of [host.pid, -serverPid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

/** Whether a live member of the group has `text` in its command line. */
function groupRuns(pgid, text) {
  return groupMembers(pgid).some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(text);
    } catch {
      return false;
    }
  });
}

/** A host process with one open stdio connection; resolves with its pid and the server's. */
async function hostWithServer(command, args) {
  await loadHostModule('host/connections/index');
  const bundle = path.join(repoRoot, 'out', 'test', 'host_connections_index.cjs');
  const script = `
    const { openConnection } = require(${JSON.stringify(bundle)});
    openConnection({ type: 'stdio', command: ${JSON.stringify(command)}, args: ${JSON.stringify(args)} }, {
      onOpened: ({ pid }) => console.log('opened ' + pid),
      onMessage() {}, onClosed(info) { console.log('closed ' + info.reason); },
    }, { stdio: ${JSON.stringify(stdioLimits())} });
    setInterval(() => {}, 1 << 30);`;
  const host = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const serverPid = await new Promise((resolve, reject) => {
    host.stdout.on('data', (d) => {
      out += d;
      const m = /opened (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    host.on('exit', () => reject(new Error(`host exited early: ${out}`)));
  });
  started.push({ host, serverPid });
  return { host, serverPid };
}

test('SIGKILL of the host: a server ignoring EOF and SIGTERM, and its SIGTERM-resistant child, are gone within seconds', { skip: !posix }, async () => {
  const { host, serverPid } = await hostWithServer(process.execPath, [path.join(fixtures, 'stubborn-family.mjs')]);
  // The server's child is started asynchronously: wait for it to be in the group.
  await waitUntil(() => groupRuns(serverPid, 'stubborn-family.mjs') && groupRuns(serverPid, "process.on('SIGTERM'"), 10_000, 'the server and its child');
  assert.ok(!readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').startsWith('/bin/sh'), 'the server keeps the leader pid (exec)');

  const killedAt = Date.now();
  host.kill('SIGKILL');
  await waitUntil(() => groupMembers(serverPid).length === 0, 5_000, `group ${serverPid} to be gone (members: ${groupMembers(serverPid).join(' ')})`);
  const seconds = (Date.now() - killedAt) / 1000;
  assert.ok(seconds < 5, `${seconds} s`);
});

test('SIGKILL of the host: a wrapper and its grandchild (npx-style) are gone within seconds', { skip: !posix }, async () => {
  const { host, serverPid } = await hostWithServer(process.execPath, [path.join(fixtures, 'wrapper.mjs')]);
  await waitUntil(() => groupRuns(serverPid, 'grandchild.mjs'), 10_000, 'the wrapper and its grandchild');
  host.kill('SIGKILL');
  await waitUntil(() => groupMembers(serverPid).length === 0, 5_000, `group ${serverPid} to be gone (members: ${groupMembers(serverPid).join(' ')})`);
});

test('the server does not inherit the watch pipe, and the supervisor holds none of its stdio', { skip: process.platform !== 'linux' }, async () => {
  const { host, serverPid } = await hostWithServer(process.execPath, [path.join(fixtures, 'stubborn-family.mjs')]);
  try {
    await waitUntil(() => groupRuns(serverPid, "process.on('SIGTERM'"), 10_000, 'the server and its child');
    const { readdirSync, readlinkSync } = await import('node:fs');
    // What an fd of a process points at (undefined when it closed meanwhile).
    const link = (pid, fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return undefined;
      }
    };
    const fdsOf = (pid) => readdirSync(`/proc/${pid}/fd`);
    const supervisor = () => groupMembers(serverPid).find((pid) => pid !== serverPid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/bin/sh'));
    // Right after its fork the supervisor briefly shares the shell's stdio, until its
    // own redirections apply (a loaded machine may not have run it yet).
    await waitUntil(() => supervisor() !== undefined && link(supervisor(), 1) === '/dev/null', 10_000, 'the supervisor to be set up');
    const watcher = supervisor();
    const watchPipe = link(watcher, 3);
    assert.match(watchPipe ?? '', /^(socket|pipe):/);
    for (const fd of fdsOf(serverPid)) assert.notEqual(link(serverPid, fd), watchPipe, `the server holds the watch pipe as fd ${fd}`);
    // The supervisor holds none of the server's stdio (its exit must close them).
    const serverStdio = [0, 1, 2].map((fd) => link(serverPid, fd));
    for (const fd of fdsOf(watcher)) {
      assert.ok(!serverStdio.includes(link(watcher, fd)), `supervisor fd ${fd} is one of the server's stdio pipes`);
    }
  } finally {
    host.kill('SIGKILL');
    await waitUntil(() => groupMembers(serverPid).length === 0, 5_000, 'cleanup');
  }
});

test('serve --stdio SIGTERMed then SIGKILLed mid-stop: a server ignoring EOF and SIGTERM is still gone within seconds', { skip: process.platform !== 'linux' }, async () => {
  const { cliJs, tempWorld, writeJson } = await import('./helpers/cliRun.mjs');
  const { existsSync, readFileSync: read } = await import('node:fs');
  const w = tempWorld('lazy-mcp-sigkill-serve-');
  const signals = path.join(w.root, 'signals.txt');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: { stubborn: { command: process.execPath, args: [path.join(fixtures, 'stubborn-tool.mjs')], env: { STUBBORN_SIGNAL_LOG: signals } } },
  });
  const serve = spawn(process.execPath, [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws], { env: w.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  serve.stdout.on('data', (d) => (out += d));
  serve.stderr.on('data', (d) => (err += d));
  const send = (msg) => serve.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sigkill-test', version: '0' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/call', params: { name: 'stubborn__ping', arguments: {} } });
  // The call is answered by the connected server, which names its pid (= its group).
  await waitUntil(() => /pong (\d+)/.test(out) || serve.exitCode !== null, 30_000, 'the call to be answered');
  assert.match(out, /pong (\d+)/, `stdout: ${out}\nstderr: ${err}`);
  const serverPid = Number(/pong (\d+)/.exec(out)[1]);
  started.push({ host: serve, serverPid });
  assert.ok(groupMembers(serverPid).length >= 2, 'the server and its supervisor are running');

  // The client stops serve: SIGTERM; serve ends the server (stdin, then the group's SIGTERM,
  // which the server ignores); the client's SIGKILL lands before serve's own SIGKILL.
  serve.kill('SIGTERM');
  // (The process that catalogued the server was stopped the same way: wait for this one's.)
  await waitUntil(() => existsSync(signals) && read(signals, 'utf8').includes(`SIGTERM ${serverPid}\n`), 15_000, 'the group SIGTERM of the stop');
  serve.kill('SIGKILL');
  const killedAt = Date.now();
  await waitUntil(() => groupMembers(serverPid).length === 0, 6_000, `group ${serverPid} to be gone after serve was SIGKILLed mid-stop (members: ${groupMembers(serverPid).join(' ')})`);
  const seconds = (Date.now() - killedAt) / 1000;
  assert.ok(seconds < 5, `${seconds} s`);
});
