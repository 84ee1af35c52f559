// README command 2 (`npm test`): every check, in order, on a fresh machine too.
// Stops at the first failing step; ends with one "tests: N passed, N failed" line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './lib/paths.mjs';
import { vsixPath } from './package.mjs';

const nodeBin = process.execPath;
const bin = (name) => path.join(repoRoot, 'node_modules', '.bin', name);

const steps = [
  { name: 'npm dependencies', when: () => !fs.existsSync(path.join(repoRoot, 'node_modules', '.package-lock.json')), cmd: 'npm', args: ['ci', '--no-fund', '--no-audit'] },
  { name: 'cargo fmt --check', cmd: 'cargo', args: ['fmt', '--all', '--check'] },
  { name: 'cargo clippy', cmd: 'cargo', args: ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings'] },
  { name: 'cargo test', cmd: 'cargo', args: ['test', '--workspace'] },
  // The engine natively against real npm servers (installed by npm ci) with a tiny stdio host.
  { name: 'engine vs real servers', cmd: 'cargo', args: ['test', '-p', 'lazy-mcp-core', '--test', 'engine_real_servers', '--', '--ignored'], env: { LAZY_MCP_PEERS: path.join(repoRoot, 'node_modules') } },
  { name: 'typescript type-check', cmd: () => bin('tsc'), args: ['-p', '.'] },
  { name: 'eslint', cmd: () => bin('eslint'), args: ['--max-warnings', '0', '.'] },
  { name: 'build (wasm + bundle)', cmd: nodeBin, args: ['scripts/build.mjs'] },
  // The node tests' OAuth world runs oidc-provider, which needs Node >= 22: installed here (once,
  // cached in the tools dir) so it is not left to whichever test file gets there first.
  { name: 'Node 22 for the tests', cmd: nodeBin, args: ['scripts/tools/node.mjs', '22'] },
  // The node tests' OAuth consent is given in headless Chromium: installed before the first test
  // that needs it (not in the integration step, which comes later), so a fresh machine passes.
  { name: 'Chromium for the tests', cmd: nodeBin, args: ['scripts/tools/chromium.mjs'] },
  // The PyPI servers the node tests run (mcp-server-time, -git; the protocol-era venvs), in venvs
  // of the tools dir: installed here once, not by test files racing each other.
  { name: 'PyPI servers for the tests', cmd: nodeBin, args: ['scripts/lib/pythonServers.mjs'] },
  // In a temporary folder of their own (TMPDIR), removed afterwards: the tests' worlds (homes,
  // projects, token stores) must not pile up in /tmp run after run. Two files at a time: most
  // tests wait on processes and timers, not on the CPU (each file is its own process, each test
  // world its own HOME, socket directory and ports).
  { name: 'node tests', cmd: nodeBin, args: ['--test', '--test-concurrency=2', 'tests/node/'], ownTmp: true },
  { name: 'package VSIX', cmd: nodeBin, args: ['scripts/package.mjs', '--skip-build'] },
  // every phase on each VS Code version of scripts/tools/code-server.mjs (newest and oldest tested)
  { name: 'VS Code integration', cmd: nodeBin, args: () => ['tests/integration/run.mjs', '--vsix', vsixPath()] },
];

// Test counts as each runner prints them.
const counters = [
  { re: /^test result: \w+\. (\d+) passed; (\d+) failed/, pass: 1, fail: 2 },
  { re: /^# pass (\d+)$/, pass: 1 },
  { re: /^# fail (\d+)$/, fail: 1 },
  { re: /^integration: (\d+) passed, (\d+) failed$/, pass: 1, fail: 2 },
];
const totals = { passed: 0, failed: 0 };

function count(line) {
  for (const c of counters) {
    const m = line.trim().match(c.re);
    if (!m) continue;
    if (c.pass) totals.passed += Number(m[c.pass]);
    if (c.fail) totals.failed += Number(m[c.fail]);
  }
}

function runStep(step) {
  return new Promise((resolve) => {
    const cmd = typeof step.cmd === 'function' ? step.cmd() : step.cmd;
    const args = typeof step.args === 'function' ? step.args() : step.args;
    const tmp = step.ownTmp ? fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-test-')) : undefined;
    const env = { ...process.env, ...(step.env ?? {}), ...(tmp ? { TMPDIR: tmp } : {}) };
    const child = spawn(cmd, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env });
    let pending = '';
    const onData = (stream) => (chunk) => {
      stream.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(count);
    };
    child.stdout.on('data', onData(process.stdout));
    child.stderr.on('data', onData(process.stderr));
    child.on('error', (err) => {
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
      resolve({ ok: false, why: `could not start ${cmd}: ${err.message}` });
    });
    child.on('close', (code, signal) => {
      count(pending);
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
      resolve(code === 0 ? { ok: true } : { ok: false, why: `exit ${code ?? signal}` });
    });
  });
}

const results = [];
let failed;
for (const step of steps) {
  if (step.when && !step.when()) continue;
  console.log(`\n━━ ${step.name}`);
  const started = Date.now();
  const res = await runStep(step);
  results.push({ name: step.name, ok: res.ok, seconds: (Date.now() - started) / 1000 });
  if (!res.ok) {
    failed = `${step.name} failed (${res.why})`;
    break;
  }
}

console.log('\n━━ summary');
for (const r of results) console.log(`${r.ok ? '✔' : '✖'} ${r.name.padEnd(24)} ${r.seconds.toFixed(1)} s`);
if (failed) {
  console.log(`\n✖ ${failed}`);
  totals.failed = Math.max(totals.failed, 1);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed`);
process.exit(failed ? 1 : 0);
