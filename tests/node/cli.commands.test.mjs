// `lazy-mcp` as a user runs it: the built dist/cli.js as a subprocess. Help,
// usage errors, `config` over Claude Code + Copilot CLI + OpenCode files with
// secrets that must never be printed, `catalogue` and `diagnostics`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cliJs, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const secrets = ['claude-env-secret-7f3a', 'copilot-header-secret-91bd', 'opencode-env-secret-c44e', 'vscode-arg-secret-0d2e'];

function assertNoSecrets(...texts) {
  for (const text of texts) for (const s of secrets) assert.ok(!text.includes(s), `secret ${s} leaked:\n${text}`);
}

test('--help on the command and on each subcommand, exit 0', async () => {
  const main = await runCli(['--help']);
  assert.equal(main.code, 0);
  assert.match(main.stdout, /serve --stdio/);
  for (const cmd of ['serve', 'diagnostics', 'config', 'catalogue']) {
    const r = await runCli([cmd, '--help']);
    assert.equal(r.code, 0, `${cmd} --help`);
    assert.match(r.stdout, new RegExp(`Usage: lazy-mcp ${cmd}`));
    assert.match(r.stdout, /Exit codes/);
  }
});

test('usage errors: one clear message on stderr, exit 2', async () => {
  const cases = [
    [['serve', '--trust-project', '--stdio', '--bogus'], /unknown flag --bogus/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['serve'], /exactly one of --stdio or --http/],
    [['serve', '--trust-project', '--http', '0.0.0.0:8080'], /loopback only/],
    [['serve', '--trust-project', '--http', '192.168.1.5:80'], /loopback only/],
    [['serve', '--trust-project', '--stdio', '--idle-timeout', 'soon'], /--idle-timeout soon/],
    [['config', '--config'], /--config needs a value/],
    [['config', '--format', 'vs-code'], /--format must follow the --config/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
  }
});

test('config errors exit 3: no servers, a missing --config file', async () => {
  const w = tempWorld('lazy-mcp-cli-empty-');
  const none = await runCli(['config', '--cwd', w.ws], { env: w.env });
  assert.equal(none.code, 3);
  const missing = await runCli(['serve', '--trust-project', '--stdio', '--cwd', w.ws, '--config', path.join(w.root, 'nope.json')], { env: w.env });
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /nope\.json: no such file/);
  const diag = await runCli(['diagnostics', '--trust-project', '--cwd', w.ws], { env: w.env });
  assert.equal(diag.code, 3);
  assert.match(diag.stderr, /no MCP servers configured/);
});

test('config --json: Claude Code, Copilot CLI and OpenCode files, sources, shadowing, secrets masked', async () => {
  const w = tempWorld('lazy-mcp-cli-config-');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { API_TOKEN: secrets[0] } },
      shared: { command: 'claude-wins', args: [] },
    },
  });
  writeJson(path.join(w.ws, '.copilot', 'mcp-config.json'), {
    mcpServers: {
      remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: `Bearer ${secrets[1]}` }, tools: ['*'] },
      shared: { type: 'local', command: 'copilot-loses', args: [], tools: ['*'] },
    },
  });
  writeJson(path.join(w.ws, 'opencode.json'), {
    mcp: { notes: { type: 'local', command: ['node', 'notes.js'], environment: { NOTES_KEY: secrets[2] } } },
  });
  // A file outside the known locations: its format (VS Code) is inferred by the core from its shape.
  const extra = path.join(w.root, 'more-servers.json');
  writeJson(extra, { servers: { tokened: { command: 'tool', args: ['--token', secrets[3]] } } });

  const r = await runCli(['config', '--json', '--cwd', w.ws, '--config', extra], { env: w.env });
  assert.equal(r.code, 0, r.stderr);
  assertNoSecrets(r.stdout, r.stderr);
  const view = JSON.parse(r.stdout);
  const byName = Object.fromEntries(view.servers.map((s) => [s.name, s]));
  assert.deepEqual(Object.keys(byName).sort(), ['memory', 'notes', 'remote', 'shared', 'tokened']);
  assert.equal(byName.memory.source.format, 'claude-code');
  assert.equal(byName.memory.source.file, path.join(w.ws, '.mcp.json'));
  assert.ok(byName.memory.source.line > 0 && byName.memory.source.column > 0);
  assert.equal(byName.memory.transport.env.API_TOKEN, '••••');
  assert.equal(byName.remote.source.format, 'copilot-cli');
  assert.equal(byName.remote.transport.headers.Authorization, '••••');
  assert.equal(byName.notes.source.format, 'open-code');
  assert.equal(byName.notes.transport.env.NOTES_KEY, '••••');
  assert.equal(byName.tokened.source.format, 'vs-code');
  assert.equal(byName.shared.transport.command, 'claude-wins');
  assert.equal(view.shadowed.length, 1);
  assert.equal(view.shadowed[0].name, 'shared');
  assert.equal(view.shadowed[0].loser.format, 'copilot-cli');

  const text = await runCli(['config', '--cwd', w.ws, '--config', extra], { env: w.env });
  assert.equal(text.code, 0, text.stderr);
  assertNoSecrets(text.stdout, text.stderr);
  assert.match(text.stdout, /memory\n.*API_TOKEN=•••• npx -y @modelcontextprotocol\/server-memory/);
  assert.match(text.stdout, /Shadowed/);
  assert.match(text.stdout, /\.copilot\/mcp-config\.json:\d+:\d+ \(copilot-cli, project\)/);
});

test('config: a broken file is reported with file:line:col, exit 3; the other files still load', async () => {
  const w = tempWorld('lazy-mcp-cli-broken-');
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { ok: { command: 'x' } } });
  writeJson(path.join(w.ws, 'opencode.json'), '{\n  "mcp": {\n    "bad": { "type": "local", "command": ["x"] ,, }\n  }\n}\n');
  const r = await runCli(['config', '--cwd', w.ws], { env: w.env });
  assert.equal(r.code, 3);
  assert.match(r.stdout, /ok\n/);
  assert.match(r.stdout, new RegExp(`${path.join(w.ws, 'opencode.json').replaceAll('.', '\\.')}:3:\\d+: error`));
});

test('config: a --config file whose format cannot be told needs --format', async () => {
  const w = tempWorld('lazy-mcp-cli-format-');
  const odd = path.join(w.root, 'odd.json');
  writeJson(odd, { whatever: {} });
  const r = await runCli(['config', '--cwd', w.ws, '--config', odd], { env: w.env });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /add --format/);
  writeJson(odd, { mcpServers: { a: { command: 'x' } } });
  const given = await runCli(['config', '--json', '--cwd', w.ws, '--config', odd, '--format', 'copilot-cli'], { env: w.env });
  assert.equal(given.code, 0, given.stderr);
  assert.equal(JSON.parse(given.stdout).servers[0].source.format, 'copilot-cli');
});

test('catalogue: progress per server on stderr, a failing server exits 1, nothing left running; diagnostics shows the table', async () => {
  const w = tempWorld('lazy-mcp-cli-catalogue-');
  const spawnLog = path.join(w.root, 'spawns.log');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      memory: countedServer(spawnLog, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }),
      broken: { command: process.execPath, args: ['-e', 'process.exit(7)'] },
    },
  });
  const cache = path.join(w.root, 'catalogue.json');
  const r = await runCli(['catalogue', '--trust-project', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /memory: CATALOGUED ONLY — \d+ tools/);
  assert.match(r.stderr, /broken: FAILED/);
  assert.match(r.stderr, /1 of 2 servers ok; failed: broken/);
  assert.ok(fs.existsSync(cache), 'catalogue persisted');
  await waitFor('no server left', () => spawnedPids(spawnLog).every((p) => !isAlive(p)), 10_000);

  // Only `memory`, from the persisted catalogue: no spawn, exit 0.
  const before = spawnedPids(spawnLog).length;
  const warm = await runCli(['catalogue', '--trust-project', 'memory', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(warm.code, 0, warm.stderr);
  assert.equal(spawnedPids(spawnLog).length, before, 'a warm catalogue spawns nothing');
  const refreshed = await runCli(['catalogue', '--trust-project', '--refresh', 'memory', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(refreshed.code, 0, refreshed.stderr);
  assert.equal(spawnedPids(spawnLog).length, before + 1, '--refresh catalogues again');
  const unknown = await runCli(['catalogue', '--trust-project', 'nosuch', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no configured server named nosuch/);

  const diag = await runCli(['diagnostics', '--trust-project', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(diag.code, 0, diag.stderr);
  assert.match(diag.stdout, /^SERVER\s+STATE\s+TRANSPORT\s+PROTOCOL\s+TOOLS/m);
  assert.match(diag.stdout, /^memory\s+CATALOGUED ONLY\s+stdio\s+legacy 2025-11-25\s+\d+/m);
  assert.match(diag.stdout, /^broken\s+FAILED/m);
  const json = await runCli(['diagnostics', '--trust-project', '--json', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(JSON.parse(json.stdout).servers.length, 2);
  await waitFor('no server left', () => spawnedPids(spawnLog).every((p) => !isAlive(p)), 10_000);
});

test('catalogue of a config that lists lazy-mcp itself: that entry catalogues as 0 tools, nothing is started twice', async () => {
  const w = tempWorld('lazy-mcp-cli-self-');
  const spawnLog = path.join(w.root, 'spawns.log');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      lazy: { command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio'] },
      memory: countedServer(spawnLog, 'server-memory', [], { MEMORY_FILE_PATH: path.join(w.root, 'memory.jsonl') }),
    },
  });
  const r = await runCli(['catalogue', '--trust-project', '--cwd', w.ws], { env: w.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /lazy: CATALOGUED ONLY — 0 tools/);
  assert.equal(spawnedPids(spawnLog).length, 1, 'memory was catalogued once, not again by a nested lazy-mcp');
  await waitFor('no server left', () => spawnedPids(spawnLog).every((p) => !isAlive(p)), 10_000);
});
