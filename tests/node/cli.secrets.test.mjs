// Planted secrets: a secret in every channel a config can carry one through
// ({file:} in an OpenCode command array, {env:}, ${VAR}, ${env:VAR}, Copilot
// $VAR, token-like literal arguments), in OpenCode, Claude Code, VS Code and
// Copilot CLI files; every server echoes what it was launched with to stderr
// and exits. No command's output (stdout or stderr) may contain any of them.
// Also: {file:} naming /etc/shadow or a file outside the project is a
// positioned problem, and /etc/shadow is never read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { repoRoot } from './helpers/bundle.mjs';

const fixture = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'argv-echo-exit.mjs');
const node = process.execPath;

const planted = {
  fileOutside: 'planted-file-outside-a1b2c3',
  fileInside: 'planted-file-inside-d4e5f6',
  envOpenCode: 'planted-env-opencode-g7h8',
  varClaude: 'planted-var-claude-i9j0k1',
  envVsCode: 'planted-env-vscode-l2m3n4',
  varCopilot: 'planted-var-copilot-o5p6',
  headerArg: 'planted-header-arg-q7r8s9',
  shortFlag: 'planted-short-flag-t1u2',
  bearer: 'planted-bearer-word-v3w4',
  envCommand: 'planted-env-command-x5y6',
  urlVar: 'planted-url-var-z7a8b9',
};

function world() {
  const w = tempWorld('lazy-mcp-secrets-');
  const outside = path.join(w.root, 'outside', 'secret.txt');
  fs.mkdirSync(path.dirname(outside), { recursive: true });
  fs.writeFileSync(outside, `${planted.fileOutside}\n`);
  fs.mkdirSync(path.join(w.ws, 'secrets'));
  fs.writeFileSync(path.join(w.ws, 'secrets', 'token.txt'), planted.fileInside);
  writeJson(path.join(w.ws, 'opencode.json'), {
    mcp: {
      'oc-file': { type: 'local', command: [node, fixture, `{file:${outside}}`, '{file:secrets/token.txt}', '--key={env:OC_TOKEN}'] },
      'oc-shadow': { type: 'local', command: [node, fixture, '{file:../../../../../../etc/shadow}'] },
    },
  });
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      'cl-var': { command: node, args: [fixture, '${MY_TOKEN}', `prefix-\${MY_TOKEN}`] },
      'cl-forms': {
        command: node,
        args: [fixture, '--header', `Authorization: Bearer ${planted.headerArg}`, '-t', planted.shortFlag, `Bearer ${planted.bearer}`],
      },
      'cl-env': { command: 'env', args: [`GITHUB_TOKEN=${planted.envCommand}`, node, fixture] },
      'cl-url': { type: 'http', url: 'http://127.0.0.1:9/p/${URL_TOKEN}/mcp' },
    },
  });
  writeJson(path.join(w.ws, '.vscode', 'mcp.json'), {
    inputs: [{ id: 'api', type: 'promptString', description: 'API key', password: true }],
    servers: { 'vs-env': { command: node, args: [fixture, '${env:VS_TOKEN}', '--input=${input:api}'] } },
  });
  writeJson(path.join(w.home, '.copilot', 'mcp-config.json'), {
    mcpServers: { 'co-env': { type: 'local', command: node, args: [fixture], env: { CO_TOKEN: '$CP_TOKEN' }, tools: ['*'] } },
  });
  const env = {
    ...w.env,
    OC_TOKEN: planted.envOpenCode,
    MY_TOKEN: planted.varClaude,
    VS_TOKEN: planted.envVsCode,
    CP_TOKEN: planted.varCopilot,
    URL_TOKEN: planted.urlVar,
  };
  return { ...w, env, outside };
}

const commands = [
  ['config'],
  ['config', '--json'],
  ['config', '--verbose'],
  ['diagnostics', '--trust-project'],
  ['diagnostics', '--trust-project', '--json'],
  ['catalogue', '--trust-project'],
  ['catalogue', '--trust-project', '--verbose', '--refresh'],
  ['diagnostics', '--trust-project', '--verbose', '--json'],
];

test('planted secrets: no command prints any of them (config, --json, --verbose, diagnostics, catalogue)', { timeout: 300_000 }, async () => {
  const w = world();
  const hits = [];
  let all = '';
  for (const args of commands) {
    const r = await runCli([...args, '--cwd', w.ws], { env: w.env, timeoutMs: 120_000 });
    all += r.stdout + r.stderr;
    for (const [channel, value] of Object.entries(planted)) {
      for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]]) {
        if (text.includes(value)) hits.push(`${args.join(' ')} ${stream}: ${channel}`);
      }
    }
    if (/root:[^:\n]*:\d+:/.test(r.stdout + r.stderr)) hits.push(`${args.join(' ')}: /etc/shadow content`);
  }
  const distinct = new Set(hits.map((h) => h.split(': ').pop())).size;
  console.log(`planted secrets printed: ${distinct} of ${Object.keys(planted).length + 1} (incl. /etc/shadow), ${hits.length} (command, stream) hits over ${commands.length} commands`);
  assert.deepEqual(hits, [], `planted secrets printed:\n${hits.join('\n')}`);
  // The servers really were launched and echoed their argv into what was printed, so the grep means something.
  assert.match(all, /stderr: argv: [^\n]*••••/);
  assert.match(all, /Authorization: ••••/);
});

test('the launch still gets the real values (masking is display-only)', { timeout: 120_000 }, async () => {
  const w = world();
  const r = await runCli(['config', '--json', '--cwd', w.ws], { env: w.env });
  const view = JSON.parse(r.stdout);
  const names = view.servers.map((s) => s.name).sort();
  assert.deepEqual(names, ['cl-env', 'cl-forms', 'cl-url', 'cl-var', 'co-env', 'oc-file', 'vs-env']);
  const ocFile = view.servers.find((s) => s.name === 'oc-file');
  assert.deepEqual(ocFile.transport.args, [fixture, '••••', '••••', '--key=••••']);
  assert.ok(!JSON.stringify(view).includes('secretValues'), 'the secret list itself is never shown');
});

test('{file:} naming /etc/shadow is an error at its file:line:col and is never read; a file outside the project is a warning', { timeout: 120_000 }, async () => {
  const w = world();
  const r = await runCli(['config', '--cwd', w.ws], { env: w.env });
  const opencode = path.join(w.ws, 'opencode.json');
  const shadowLine = r.stdout.split('\n').find((l) => l.includes('[oc-shadow]'));
  assert.ok(shadowLine, r.stdout);
  assert.match(shadowLine, new RegExp(`${opencode.replace(/[.]/g, '\\.')}:\\d+:\\d+: error \\[oc-shadow\\]: .*/etc/shadow`));
  const outsideLine = r.stdout.split('\n').find((l) => l.includes('[oc-file]') && l.includes('warning'));
  assert.ok(outsideLine, r.stdout);
  assert.match(outsideLine, /:\d+:\d+: warning \[oc-file\]: .*outside the project and your home folder/);
  assert.equal(r.code, 3, 'an error in the config is exit 3 for `config`');
});
