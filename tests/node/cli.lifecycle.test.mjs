// The built `lazy-mcp serve` with real processes: a server's `timeout` bounds a
// call it never answers (issue 11 #4), and SIGKILL of the gateway leaves no
// server process behind — a server ignoring EOF and SIGTERM, real
// server-everything after notifications/initialized, and a wrapper whose
// grandchild is killed mid-catalogue (issue 11 #7).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, groupMembers, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';
import { countedServer, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'servers');
const launcher = path.join(fixtures, 'counting-launcher.mjs');
const posix = process.platform !== 'win32';

/** Running and not a zombie (an orphan's zombie stays when pid 1 does not reap). */
function running(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]);
  } catch {
    return false;
  }
}

// Should a test fail midway: end every gateway and process group it started
// (the groups are also read back from the pid files the servers write).
const gateways = [];
const groups = new Set();
const pidFiles = [];
after(() => {
  for (const pid of gateways) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const file of pidFiles.filter((f) => fs.existsSync(f))) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) groups.add(Number(line.split(' ')[0]));
  }
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** `serve --stdio` driven by raw JSON lines; resolves once the reply with `untilId` arrived. */
async function gatewayWith(servers, untilId, messages, extraArgs = []) {
  const w = tempWorld('lazy-mcp-lifecycle-');
  pidFiles.push(path.join(w.root, 'pids.log'), path.join(w.root, 'spawns.log'));
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: servers(w) });
  const serve = startCli(['serve', '--trust-project', '--stdio', '--cwd', w.ws, ...extraArgs], { env: w.env, ready: new RegExp(`"id":${untilId}[,}]`) });
  gateways.push(serve.child.pid);
  for (const m of messages) serve.child.stdin.write(`${JSON.stringify(m)}\n`);
  return { w, serve };
}

const initialize = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lifecycle-test', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];
const callTool = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** SIGKILL the gateway, then wait until no live process is left in any of `pgids`. */
async function sigkillLeavesNothing(serve, pgids, withinMs = 8_000) {
  for (const g of pgids) groups.add(g);
  assert.ok(
    pgids.every((g) => groupMembers(g).length > 0),
    `running before the kill: ${pgids.map((g) => `${g}: ${groupMembers(g).join(' ')}`)}`,
  );
  const killedAt = Date.now();
  serve.child.kill('SIGKILL');
  await serve.exited;
  await waitFor('no process of the servers’ groups to survive', () => pgids.every((g) => groupMembers(g).length === 0), withinMs).catch((err) => {
    throw new Error(`${err.message}: ${pgids.map((g) => `group ${g}: ${groupMembers(g).join(' ') || '—'}`).join('; ')}`);
  });
  return Date.now() - killedAt;
}

test('a server configured with "timeout": 1500 that never answers a call: the call fails after ~1.5 s naming the server and the timeout, and the server is sent notifications/cancelled', async () => {
  const w = tempWorld('lazy-mcp-call-timeout-');
  const cancelled = path.join(w.root, 'cancelled.log');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: { slow: { command: process.execPath, args: [path.join(fixtures, 'calls-never-answered.mjs'), cancelled], timeout: 1500 } },
  });
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--cwd', w.ws], env: w.env, stderr: 'pipe' });
  const client = new Client({ name: 'call-timeout-test', version: '1' });
  await client.connect(transport);
  gateways.push(transport.pid);
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'slow__wait'), tools.map((t) => t.name).join(', '));
  // Start the server first, so the time measured is the call's alone.
  await client.callTool({ name: 'slow__wait', arguments: {} }).catch(() => undefined);
  const started = Date.now();
  const error = await client.callTool({ name: 'slow__wait', arguments: {} }).then(
    (r) => assert.fail(`answered: ${JSON.stringify(r)}`),
    (e) => e,
  );
  const elapsed = Date.now() - started;
  assert.match(String(error.message), /'slow'/);
  assert.match(String(error.message), /1500 ms/);
  assert.ok(elapsed >= 1400 && elapsed < 10_000, `failed after ${elapsed} ms (the default would be 120 s)`);
  await waitFor('notifications/cancelled to reach the server', () => fs.existsSync(cancelled) && fs.readFileSync(cancelled, 'utf8').split('\n').filter(Boolean).length >= 2, 10_000);
  for (const line of fs.readFileSync(cancelled, 'utf8').split('\n').filter(Boolean)) {
    assert.equal(typeof JSON.parse(line).params.requestId, 'number', line);
  }
  await client.close();
  await waitFor('the gateway to exit', () => !isAlive(transport.pid), 15_000);
});

for (const mode of ['isolated', 'shared']) {
  // Isolated: the gateway's own supervisor ends the server within seconds. Shared (the default):
  // the owner holds it; the client's socket closing detaches it, and after the handover grace
  // (5 s by default, a call was made; 300 ms in the tests' worlds) the owner's stop (EOF, 2 s,
  // SIGTERM, 2 s, SIGKILL) ends the family.
  const limitMs = mode === 'isolated' ? 8_000 : 16_000;
  test(`SIGKILL of the gateway (${mode}): a connected server that ignores stdin EOF and SIGTERM, with a SIGTERM-resistant child, is gone within ${limitMs / 1000} s`, { skip: !posix }, async () => {
    const pids = (w) => path.join(w.root, 'pids.log');
    const { w, serve } = await gatewayWith(
      (w) => ({ stubborn: { command: process.execPath, args: [path.join(fixtures, 'stubborn-family.mjs'), pids(w)] } }),
      2,
      [...initialize, callTool(2, 'stubborn__noop')],
      [`--${mode}`],
    );
    await serve.started;
    assert.match(serve.out.stdout, /noop done/);
    // Cataloguing ran it once (and stopped it); the call started it again: that one is live.
    const [pid, child] = fs.readFileSync(pids(w), 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
    assert.ok(running(child));
    const ms = await sigkillLeavesNothing(serve, [pid], limitMs);
    assert.ok(!running(child), `the SIGTERM-resistant child ${child} survived`);
    assert.ok(ms < limitMs, `${ms} ms`);
  });
}

test('SIGKILL of the gateway: real server-everything after notifications/initialized is gone within seconds', { skip: !posix }, async () => {
  const log = (w) => path.join(w.root, 'spawns.log');
  const { w, serve } = await gatewayWith((w) => ({ everything: countedServer(log(w), 'server-everything', ['stdio']) }), 2, [
    ...initialize,
    callTool(2, 'everything__echo', { message: 'hi' }),
  ]);
  await serve.started;
  assert.match(serve.out.stdout, /hi/);
  // The connected one, and maybe the cataloguing one still shutting down.
  const live = spawnedPids(log(w)).filter((p) => groupMembers(p).length > 0);
  assert.ok(live.length >= 1, 'server-everything is running');
  await sigkillLeavesNothing(serve, live);
});

test('SIGKILL of the gateway mid-catalogue: a wrapper whose grandchild hangs in initialize and ignores SIGTERM is gone within seconds', { skip: !posix }, async () => {
  const w = tempWorld('lazy-mcp-mid-catalogue-');
  const log = path.join(w.root, 'spawns.log');
  const pids = path.join(w.root, 'pids.log');
  pidFiles.push(log, pids);
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: { hangs: { command: process.execPath, args: [launcher, log, process.execPath, path.join(fixtures, 'stubborn-family.mjs'), pids, 'hang'] } },
  });
  const serve = startCli(['serve', '--trust-project', '--stdio', '--cwd', w.ws], { env: w.env, ready: /never/ });
  serve.started.catch(() => undefined);
  gateways.push(serve.child.pid);
  // Cataloguing starts on its own; wait until the grandchild (and its child) run.
  await waitFor('the wrapper’s grandchild to be running', () => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8').trim() !== '', 20_000);
  const [wrapper] = spawnedPids(log);
  const [grandchild, child] = fs.readFileSync(pids, 'utf8').trim().split(' ').map(Number);
  assert.deepEqual(
    [wrapper, grandchild, child].map((p) => groupMembers(wrapper).includes(p)),
    [true, true, true],
    'wrapper, grandchild and its child share the group',
  );
  await sigkillLeavesNothing(serve, [wrapper]);
});
