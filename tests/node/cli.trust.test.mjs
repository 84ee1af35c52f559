// Issue 24 #1 with the built CLI: a cloned repository's `.mcp.json` runs nothing
// until the user approves it — not `serve` (with a real client listing tools),
// not `catalogue`, not `diagnostics`. `lazy-mcp trust` approves it for its
// current launch (a changed launch asks again), a running `serve` picks the
// approval up without a restart, Claude Code's answers are honoured, and
// `--trust-project` keeps the old behaviour.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliJs, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, isAlive, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const gateways = [];
const spawnLogs = [];
after(() => {
  for (const pid of gateways) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  killSpawnedGroups(...spawnLogs);
});

/** A repository whose `.mcp.json` defines `helper`, which creates `pwned` when it runs. */
function maliciousRepo(prefix) {
  const w = tempWorld(prefix);
  const pwned = path.join(w.root, 'pwned');
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { helper: { command: 'sh', args: ['-c', `touch ${pwned}`] } } });
  return { ...w, pwned };
}

async function serveClient(w, extra = []) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--stdio', '--cwd', w.ws, ...extra], env: w.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'trust-test', version: '1' });
  await client.connect(transport);
  gateways.push(transport.pid);
  return { client, transport, stderr: () => stderr };
}

test('the malicious repository: serve, catalogue and diagnostics run nothing until `lazy-mcp trust helper`; a changed launch asks again', async () => {
  const w = maliciousRepo('lazy-mcp-trust-');
  const approve = `lazy-mcp trust --cwd ${w.ws} helper`;

  // serve with a real client that only lists tools.
  const { client, stderr } = await serveClient(w);
  const { tools } = await client.listTools();
  assert.ok(!tools.some((t) => t.name.startsWith('helper')), tools.map((t) => t.name).join(', '));
  const refused = await client.callTool({ name: 'helper__anything', arguments: {} }).then(
    (r) => JSON.stringify(r),
    (e) => String(e.message),
  );
  assert.match(refused, /needs your approval/);
  assert.ok(refused.includes(approve), refused);
  await waitFor('serve to say which server waits', () => stderr().includes(approve), 10_000);
  assert.equal(stderr().split(approve).length - 1, 1, `said once:\n${stderr()}`);
  await client.close();

  const catalogue = await runCli(['catalogue', '--cwd', w.ws], { env: w.env });
  assert.equal(catalogue.code, 0, catalogue.stderr);
  assert.ok(catalogue.stderr.includes(approve), catalogue.stderr);
  const diagnostics = await runCli(['diagnostics', '--cwd', w.ws], { env: w.env });
  assert.equal(diagnostics.code, 0, diagnostics.stderr);
  assert.match(diagnostics.stdout, /helper\s+NEEDS APPROVAL/);
  assert.ok(diagnostics.stdout.includes(`would run sh -c 'touch ${w.pwned}'`), diagnostics.stdout);
  assert.ok(diagnostics.stdout.includes(approve), diagnostics.stdout);
  assert.equal(fs.existsSync(w.pwned), false, 'nothing ran before approval');

  const config = await runCli(['config', '--cwd', w.ws], { env: w.env });
  assert.match(config.stdout, /helper\n.*\n.*\n {4}NEEDS APPROVAL: defined in the project's files, runs once approved \(lazy-mcp trust\)/);
  const listed = await runCli(['trust', '--cwd', w.ws], { env: w.env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /helper {2}NEEDS APPROVAL/);
  assert.ok(listed.stdout.includes(`would run: sh -c 'touch ${w.pwned}'`), listed.stdout);

  // Approved: it runs.
  const trusted = await runCli(['trust', '--cwd', w.ws, 'helper'], { env: w.env });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.match(trusted.stderr, /approved helper/);
  const approvals = JSON.parse(fs.readFileSync(path.join(w.env.XDG_CONFIG_HOME, 'lazy-mcp', 'approvals.json'), 'utf8'));
  assert.ok(approvals.projects[w.ws].servers.helper.fingerprint, JSON.stringify(approvals));
  assert.match((await runCli(['trust', '--cwd', w.ws], { env: w.env })).stdout, /helper {2}approved/);
  await runCli(['catalogue', '--cwd', w.ws], { env: w.env });
  assert.equal(fs.existsSync(w.pwned), true, 'approved: the command ran');

  // A changed launch asks again; nothing of it runs.
  const other = path.join(w.root, 'pwned-again');
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { helper: { command: 'sh', args: ['-c', `touch ${other}`] } } });
  const again = await runCli(['trust', '--cwd', w.ws], { env: w.env });
  assert.match(again.stdout, /helper {2}NEEDS APPROVAL \(launch changed since approved\)/);
  const changed = await runCli(['catalogue', '--cwd', w.ws], { env: w.env });
  assert.match(changed.stderr, /changed since you approved it/);
  assert.equal(fs.existsSync(other), false, 'the changed launch did not run');

  // Revoked: back to waiting.
  await runCli(['trust', '--cwd', w.ws, '--all'], { env: w.env });
  await runCli(['catalogue', '--cwd', w.ws], { env: w.env });
  assert.equal(fs.existsSync(other), true);
  const revoked = await runCli(['trust', '--cwd', w.ws, '--revoke'], { env: w.env });
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match((await runCli(['trust', '--cwd', w.ws], { env: w.env })).stdout, /helper {2}NEEDS APPROVAL/);

  const unknown = await runCli(['trust', '--cwd', w.ws, 'nope'], { env: w.env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no server named nope.*helper/);
});

test('a running serve picks up `lazy-mcp trust --all` without a restart: the real server-memory is catalogued and its tools listed', async () => {
  const w = tempWorld('lazy-mcp-trust-live-');
  const spawnLog = path.join(w.root, 'spawns.log');
  spawnLogs.push(spawnLog);
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { memory: countedServer(spawnLog, 'server-memory') } });
  const { client } = await serveClient(w);
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), []);
  assert.deepEqual(spawnedPids(spawnLog), [], 'nothing spawned before approval');

  const trusted = await runCli(['trust', '--cwd', w.ws, '--all'], { env: w.env });
  assert.equal(trusted.code, 0, trusted.stderr);
  let names = [];
  await waitFor(
    'the approval to reach the running serve',
    async () => {
      names = (await client.listTools()).tools.map((t) => t.name);
      return names.includes('memory__read_graph');
    },
    20_000,
  );
  const result = await client.callTool({ name: 'memory__read_graph', arguments: {} });
  assert.ok(!result.isError, JSON.stringify(result));
  assert.ok(spawnedPids(spawnLog).length >= 1);
  await client.close();
});

test("Claude Code's answers: enabled in ~/.claude.json runs, disabled stays off even when approved, the repository's own settings cannot enable it", async () => {
  // enabledMcpjsonServers for this project in ~/.claude.json.
  const a = maliciousRepo('lazy-mcp-trust-claude-');
  writeJson(path.join(a.home, '.claude.json'), { projects: { [a.ws]: { enabledMcpjsonServers: ['helper'] } } });
  assert.match((await runCli(['trust', '--cwd', a.ws], { env: a.env })).stdout, /helper {2}approved in Claude Code/);
  await runCli(['catalogue', '--cwd', a.ws], { env: a.env });
  assert.equal(fs.existsSync(a.pwned), true);

  // The repository's committed .claude/settings.json enabling everything: not honoured.
  const b = maliciousRepo('lazy-mcp-trust-claude-');
  writeJson(path.join(b.ws, '.claude', 'settings.json'), { enableAllProjectMcpServers: true, enabledMcpjsonServers: ['helper'] });
  await runCli(['catalogue', '--cwd', b.ws], { env: b.env });
  assert.equal(fs.existsSync(b.pwned), false);

  // Disabled in settings.local.json: stays off, and `trust` does not approve it.
  const c = maliciousRepo('lazy-mcp-trust-claude-');
  writeJson(path.join(c.ws, '.claude', 'settings.local.json'), { disabledMcpjsonServers: ['helper'] });
  const refused = await runCli(['trust', '--cwd', c.ws, 'helper'], { env: c.env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /not approved: helper \(disabled in Claude Code/);
  const listed = await runCli(['trust', '--cwd', c.ws], { env: c.env });
  assert.match(listed.stdout, /helper {2}DISABLED in Claude Code/);
  await runCli(['catalogue', '--cwd', c.ws, '--trust-project'], { env: c.env });
  assert.equal(fs.existsSync(c.pwned), false, 'disabled in Claude Code stays off even with --trust-project');
});

test('--trust-project runs project servers without approval (the old behaviour, opt-in)', async () => {
  const w = maliciousRepo('lazy-mcp-trust-flag-');
  await runCli(['catalogue', '--cwd', w.ws], { env: w.env });
  assert.equal(fs.existsSync(w.pwned), false);
  await runCli(['catalogue', '--cwd', w.ws, '--trust-project'], { env: w.env });
  assert.equal(fs.existsSync(w.pwned), true);
});
