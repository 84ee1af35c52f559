// What `lazy-mcp` says, word for word (issue 23, section 4): a count of one is
// singular ("1 tool", not "1 tools") in progress lines, the log and `diagnostics`;
// a crashed server's exit code is said once; its catalogue announcement names the
// server and the failure once. A real one-tool server (server-sequential-thinking)
// and a process that exits with code 3. `diagnostics` names sources as MCP Diagnostics does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';

const thinkingJs = path.join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-sequential-thinking', 'dist', 'index.js');

test('catalogue and diagnostics: "1 tool", an exit code said once, a failure named once', async () => {
  const w = tempWorld('lazy-mcp-cli-wording-');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      thinking: { command: process.execPath, args: [thinkingJs] },
      crasher: { command: process.execPath, args: ['-e', "console.error('boom'); process.exit(3)"] },
    },
  });
  const cache = path.join(w.root, 'catalogue.json');
  const r = await runCli(['catalogue', '--trust-project', '--verbose', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^thinking: CATALOGUED ONLY — 1 tool, 0 prompts, 0 resources$/m);
  assert.match(r.stderr, /\[thinking\]: catalogued: 1 tool, 0 prompts, 0 resources, 0 resource templates; stopped/);
  assert.doesNotMatch(r.stderr, /\b1 (tools|servers|prompts|resources|attempts)\b/);

  const failed = r.stderr.split('\n').find((l) => l.startsWith('crasher: FAILED'));
  assert.ok(failed, r.stderr);
  assert.match(failed, /exited with code 3/);
  assert.equal(failed.match(/code 3/g).length, 1, failed);

  const announced = r.stderr.split('\n').filter((l) => l.includes("MCP server 'crasher' could not be catalogued"));
  assert.equal(announced.length, 1, r.stderr);
  assert.match(announced[0], /could not be catalogued: server process .* exited with code 3; stderr: boom\. Check its definition/);
  assert.equal(announced[0].match(/could not/gi).length, 1, announced[0]);
  assert.equal(announced[0].match(/'crasher'/g).length, 1, announced[0]);
  assert.match(r.stderr, /1 of 2 servers ok; failed: crasher/);

  const diag = await runCli(['diagnostics', '--trust-project', '--cwd', w.ws, '--cache', cache], { env: w.env });
  assert.equal(diag.code, 0, diag.stderr);
  // Sources as MCP Diagnostics names them: relative to the working directory, not absolute.
  assert.match(diag.stdout, /^thinking\s+CATALOGUED ONLY\s.*\s\.mcp\.json:\d+:\d+$/m);
  assert.ok(!diag.stdout.includes(w.ws), diag.stdout);
  assert.match(diag.stdout, /^2 servers: 1 catalogued only, 0 connected, 0 dormant, 1 failed, 0 need auth, 0 disabled; 1 tool \(/m);
});

test('the README names the states as the product shows them (NEEDS AUTH, not NEED AUTH)', () => {
  const repo = path.join(import.meta.dirname, '..', '..');
  const stateRs = fs.readFileSync(path.join(repo, 'crates', 'lazy-mcp-core', 'src', 'engine', 'state.rs'), 'utf8');
  const labels = new Set([...stateRs.matchAll(/ServerState::\w+(?: \{ \.\. \})? => "([A-Z][A-Z ]+)"/g)].map((m) => m[1]));
  assert.ok(labels.has('NEEDS AUTH') && labels.has('CATALOGUED ONLY'), [...labels].join(', '));
  const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
  const named = [...readme.matchAll(/\b(NEEDS? AUTH|CATALOGUED ONLY|CONNECTED|DORMANT|DISABLED|FAILED|PENDING|CATALOGUING|CONNECTING)\b/g)].map((m) => m[1]);
  assert.ok(named.includes('NEEDS AUTH'), 'the README names NEEDS AUTH');
  assert.deepEqual(named.filter((n) => !labels.has(n)), []);
});
