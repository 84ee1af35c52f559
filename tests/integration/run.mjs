#!/usr/bin/env node
// VS Code integration-test runner for Lazy MCP.
//
//   node tests/integration/run.mjs [--vsix path/to/lazy-mcp-X.vsix] [--extension-dev-path DIR]
//                                  [--vscode 1.139.1,1.103.2] [--phases dev,warm,...] [--keep]
//
// Runs tests/integration/suite/index.cjs (the @vscode/test-electron contract:
// extensionDevelopmentPath + an extensionTestsPath module exporting run()) inside a real VS Code:
//   * VSCODE_TEST_EXECUTABLE set (a desktop VS Code): @vscode/test-electron's runTests();
//   * otherwise (this machine, CI): code-server's bundled VS Code server (server-main.js) with its
//     web workbench in headless Debian Chromium driven by playwright-core, once per VS Code version
//     in scripts/tools/code-server.mjs (the newest we test and the oldest engines.vscode claims;
//     --vscode picks some), every phase on each.
// Phases: "dev" (extension from its development folder) and, with --vsix, "vsix" (the VSIX is
// installed into an isolated extensions dir; an empty harness extension is the development
// extension, so the INSTALLED Lazy MCP is the one that runs).
// Last line: `integration: N passed, N failed`. Exit code 0 only if every phase ran, no test
// failed and at least one test passed. See tests/integration/README.md.

import { copyApprovalFixture, copyBasicWorkspace, copyOAuthWorkspace, copySharedFixture, copyUntrustedFixture } from './fixtureWorkspace.mjs';
import { startOAuthWorld } from '../fixtures/oauth/index.mjs';
import {
  HARNESS,
  HERE,
  REPO,
  RunnerError,
  VERBOSE,
  endEverything,
  freePort,
  mkdirs,
  runPhaseDesktop,
  runPhaseHeadless,
  say,
  spareFromCleanup,
  tail,
} from './harness.mjs';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);

/** Counts so far (also printed when interrupted). */
const totals = { passes: 0, failures: 0 };
let interrupted = null;
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
  process.on(sig, () => {
    if (interrupted) process.exit(code); // second signal: stop waiting
    interrupted = sig;
    process.stdout.write(`\nitest: ${sig}: ending started processes\n`);
    endEverything().finally(() => {
      process.stdout.write(`integration: ${totals.passes} passed, ${totals.failures + 1} failed\n`);
      process.exit(code);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Launches in the fixture go through a counting launcher that appends each pid
// to .lazy-mcp-test/spawns.log (placeholders: fixtureWorkspace.mjs).

const spawnLogOf = (workspace) => path.join(workspace, '.lazy-mcp-test', 'spawns.log');

async function leftoverServers(workspace) {
  const log = spawnLogOf(workspace);
  if (!fs.existsSync(log)) return [];
  const pids = fs.readFileSync(log, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
  // A zombie has exited (nobody reaped it here: pid 1 of a container may not); it does not count.
  const alive = () => pids.filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  });
  // Shared servers (the default) stop in the owner after its handover grace (SHARED_HANDOVER_GRACE_MS
  // here, 5 s by default) and their stop.
  const deadline = Date.now() + 12_000;
  while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const left = alive();
  for (const pid of left) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  return left;
}

/**
 * Restricted Mode: workspace trust on, the folder not trusted (VS Code's startup prompt off, as
 * after a user chose "Don't Trust"), a user-level server only. Lazy MCP must not make VS Code
 * request a single dialog: the smoke-test driver logs each request to the workbench log.
 */
const untrustedPhase = {
  phase: 'untrusted',
  headlessOnly: true,
  testsPath: path.join(HERE, 'untrusted', 'index.cjs'),
  fixture: (workspace, phaseDir) => copyUntrustedFixture(workspace, path.join(phaseDir, 'home')),
  // Sharing on: an untrusted window must still start no owner of shared servers (issue 26 #8).
  userSettings: { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'lazyMcp.shareServers': true },
  socketDir: true,
  maxDialogs: 0,
};
/**
 * Issue 24 #1: workspace trust on, the folder trusted by the test (as a user would), and
 * `lazyMcp.trustProjectServers` off (the other phases turn it on: their fixtures' project servers
 * are the subject of other tests). The folder's own servers must not run before the user's answer;
 * one non-modal notification, never a dialog.
 */
const approvalPhase = {
  phase: 'approval',
  headlessOnly: true,
  testsPath: path.join(HERE, 'approval', 'index.cjs'),
  fixture: (workspace) => copyApprovalFixture(workspace),
  userSettings: { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'lazyMcp.trustProjectServers': false },
  maxDialogs: 0,
};
/**
 * Issue 26: two windows of one VS Code (two browser tabs, two extension hosts) with
 * `lazyMcp.shareServers` at its default (on), each on its own project (workspaces/shared, copied
 * twice) and one user-level server (workspaces/shared-home). The owner of shared servers listens
 * in a socket directory of the phase's own and lingers briefly, so the runner can see it exit.
 */
const sharedPhase = {
  phase: 'shared',
  headlessOnly: true,
  secondWindow: true,
  socketDir: true,
  testsPath: path.join(HERE, 'shared', 'index.cjs'),
  fixture: (workspace, phaseDir) => copySharedFixture(workspace, secondWorkspaceOf(phaseDir), path.join(phaseDir, 'home')),
  // Fixed idle time: both windows must still hold memory when the second one calls it, however
  // slowly the second window starts (adaptive idle would stop a once-called server after 1 min).
  // VS Code's listing sessions stay open: these phases count processes, and a call VS Code starts
  // in the instant Lazy MCP closes a session that only listed ends "Canceled" (README, "VS Code's
  // own MCP UI"); the dev phase tests the close itself.
  userSettings: { 'lazyMcp.adaptiveIdle': false, 'lazyMcp.closeListingSessions': false, 'lazyMcp.logLevel': 'debug' },
  maxDialogs: 0,
};
/**
 * The `shared` phase's two windows with `lazyMcp.shareServers: false`: each window runs its own
 * process of every server (two memory processes), and no owner of shared servers is started
 * (the runner checks that its socket directory stayed empty).
 */
const isolatedPhase = {
  ...sharedPhase,
  phase: 'isolated',
  testsPath: path.join(HERE, 'isolated', 'index.cjs'),
  userSettings: { 'lazyMcp.shareServers': false, 'lazyMcp.adaptiveIdle': false, 'lazyMcp.closeListingSessions': false, 'lazyMcp.logLevel': 'debug' },
  noOwner: true,
};
const secondWorkspaceOf = (phaseDir) => path.join(phaseDir, 'workspace-second');
/** How long the phase's owner stays after its last client left. */
const SHARED_OWNER_LINGER_MS = 1500;
/**
 * How long the phase's owner keeps a process its last window let go of (5 s by default): the
 * runner's check that no server outlived VS Code waits for it after every phase. No phase tests
 * the grace itself (the node tests do).
 */
const SHARED_HANDOVER_GRACE_MS = 300;

/** Processes whose command line mentions `text` (the owner runs with `--socket-dir DIR`). */
function processesMentioning(text) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/**
 * Issue 14: remote servers behind OAuth, against the real test world (tests/fixtures/oauth/: an
 * oidc-provider authorization server + protected MCP servers) that the runner starts once and
 * keeps across both phases, so `oauth-warm` restarts VS Code on the same server URLs. The tests
 * are `oauth/*.test.cjs`. The browser profile, the page's origin (port) and the web host's
 * secret key half (harness.mjs, serveWebSecretKey) are kept too, so what VS Code keeps in
 * browser storage, SecretStorage with the sign-ins included, survives the restart as it does
 * for a user of code-server or `code serve-web`.
 * No dialog may be requested: every sign-in prompt is non-modal.
 */
const oauthPhases = [
  { phase: 'oauth', oauth: true, testsPath: path.join(HERE, 'oauth', 'index.cjs'), maxDialogs: 0 },
  { phase: 'oauth-warm', oauth: true, reuse: 'oauth', testsPath: path.join(HERE, 'oauth', 'index.cjs'), maxDialogs: 0 },
];

/**
 * Per VS Code version, two independent worlds (two servers needing sign-in, fresh counters):
 * started on first use, ended by the runner.
 */
const oauthWorlds = {};
async function ensureOAuthWorlds(vscodeVersion) {
  if (!oauthWorlds[vscodeVersion]) {
    const worlds = (oauthWorlds[vscodeVersion] = {});
    for (const name of ['guarded', 'spare']) {
      worlds[name] = await startOAuthWorld();
      spareFromCleanup(worlds[name].pid);
      say(`oauth: test world '${name}' for VS Code ${vscodeVersion}: authorization server ${worlds[name].issuer}, MCP server ${worlds[name].mcpUrl}`);
    }
  }
  return oauthWorlds[vscodeVersion];
}

/**
 * Issue 14's planted-token grep: no access or refresh token value the test worlds issued may
 * appear in any file of an OAuth phase (VS Code's and the extension's logs, output channels,
 * global storage with the catalogue, the workspace). The browser profile, which holds what a web
 * window keeps in browser storage, is outside these dirs. Reports file names, never a token.
 */
async function plantedTokenHits(dirs, worlds, runDir) {
  const tokens = (await Promise.all(Object.values(worlds).map((w) => w.issuedTokens()))).flat();
  const needles = tokens.map((t) => Buffer.from(t, 'utf8'));
  const hits = [];
  let files = 0;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile()) {
        files += 1;
        const bytes = fs.readFileSync(file);
        if (needles.some((n) => bytes.includes(n))) hits.push(path.relative(runDir, file));
      }
    }
  };
  for (const dir of dirs) if (fs.existsSync(dir)) walk(dir);
  return { tokens: tokens.length, files, hits };
}

const DIALOG_REQUESTED = 'DialogService: Dialog requested during smoke test.';

/** Dialogs VS Code was asked to show during a headless phase, in every window (0 when there is no log). */
function dialogsRequested(phaseDir) {
  let dialogs = 0;
  for (const log of ['workbench.log', 'workbench-second.log']) {
    try {
      dialogs += fs.readFileSync(path.join(phaseDir, log), 'utf8').split(DIALOG_REQUESTED).length - 1;
    } catch {
      // no such window
    }
  }
  return dialogs;
}

// ---------------------------------------------------------------------------------------------

const USAGE = 'usage: node tests/integration/run.mjs [--vsix FILE.vsix] [--extension-dev-path DIR] [--vscode VERSION[,VERSION]] [--phases PHASE[,PHASE]] [--keep]';

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        vsix: { type: 'string' },
        'extension-dev-path': { type: 'string' },
        vscode: { type: 'string', default: process.env.LAZY_MCP_ITEST_VSCODE },
        phases: { type: 'string', default: process.env.LAZY_MCP_ITEST_PHASES },
        keep: { type: 'boolean', default: process.env.LAZY_MCP_ITEST_KEEP === '1' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new RunnerError(`${err.message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const desktop = process.env.VSCODE_TEST_EXECUTABLE;
  for (const dep of ['mocha/lib/mocha.cjs', desktop ? '@vscode/test-electron' : 'playwright-core']) {
    try {
      require.resolve(dep);
    } catch {
      throw new RunnerError(`npm dependency ${dep.split('/lib/')[0]} is missing from ${path.join(REPO, 'node_modules')} (run: npm ci)`);
    }
  }
  const devPath = path.resolve(values['extension-dev-path'] ?? REPO);
  const manifestFile = path.join(devPath, 'package.json');
  if (!fs.existsSync(manifestFile)) throw new RunnerError(`no extension manifest at ${manifestFile}`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  if (manifest.main && !fs.existsSync(path.resolve(devPath, manifest.main))) {
    throw new RunnerError(`the extension is not built: ${path.resolve(devPath, manifest.main)} is missing (run: npm run build)`);
  }
  const vsix = values.vsix ? path.resolve(values.vsix) : undefined;
  if (vsix && !fs.existsSync(vsix)) throw new RunnerError(`VSIX not found: ${vsix} (build it with: npm run package)`);

  const runDir = path.join(REPO, '.test-runs', `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  mkdirs(runDir);

  const testEnv = { LAZY_MCP_TEST_DEV_PATH: devPath, LAZY_MCP_TEST_REPO_ROOT: REPO };
  // VS Code version -> its tools (code-server's server-main.js, the Node to run it, chromium)
  const toolsOf = {};
  if (desktop) {
    if (!fs.existsSync(desktop)) throw new RunnerError(`VSCODE_TEST_EXECUTABLE=${desktop} does not exist`);
    say(`using desktop VS Code ${desktop} (@vscode/test-electron)`);
    toolsOf.desktop = undefined;
  } else {
    const { ensureIntegrationTools, integrationVersions, ToolError } = await import('../../scripts/tools/index.mjs');
    try {
      for (const v of integrationVersions(values.vscode)) {
        const tools = ensureIntegrationTools(v);
        toolsOf[tools.vscode] = tools;
        say(`VS Code ${tools.vscode}: code-server ${tools.version}'s server (${tools.serverMain}, Node ${tools.node}) + headless ${tools.chromium}`);
      }
    } catch (err) {
      if (err instanceof ToolError) throw new RunnerError(err.message);
      throw err;
    }
  }
  const versions = Object.keys(toolsOf);

  // warm: VS Code restarted on the dev phase's state and workspace (a persisted catalogue).
  const phases = [{ phase: 'dev', devPath, screenshot: path.join(REPO, 'artifacts', 'screenshots', 'mcp-diagnostics.png') }, { phase: 'warm', devPath, reuse: 'dev' }];
  phases.push({ ...untrustedPhase, devPath });
  phases.push({ ...approvalPhase, devPath });
  phases.push({ ...sharedPhase, devPath });
  phases.push({ ...isolatedPhase, devPath });
  phases.push(...oauthPhases.map((p) => ({ ...p, devPath })));
  if (vsix) phases.push({ phase: 'vsix', devPath: HARNESS, vsix });
  if (values.phases) {
    // Only these phases (a reused phase must be listed too, e.g. oauth,oauth-warm).
    const wanted = new Set(values.phases.split(',').map((w) => w.trim()));
    const unknown = [...wanted].filter((w) => !phases.some((p) => p.phase === w));
    if (unknown.length) throw new RunnerError(`unknown phase(s) ${unknown.join(', ')}; known: ${phases.map((p) => p.phase).join(', ')}`);
    phases.splice(0, phases.length, ...phases.filter((p) => wanted.has(p.phase)));
  }
  // every phase on every VS Code version (the screenshot from the newest only); a run's state and
  // workspace are keyed by version/phase so `reuse` stays within one version
  const runs = versions.flatMap((vscode) => phases.map((p) => ({ ...p, vscode, screenshot: toolsOf[vscode]?.newest === false ? undefined : p.screenshot })));
  const perVersion = Object.fromEntries(versions.map((v) => [v, { passes: 0, failures: 0, ms: 0 }]));
  const stateDirs = {};
  const workspaces = {};
  const ports = {};
  let passes = 0;
  let failures = 0;
  const recap = [];
  let ok = true;
  for (const p of runs) {
    if (desktop && p.headlessOnly) {
      say(`${p.phase}: skipped (it counts dialogs in the headless workbench's log)`);
      continue;
    }
    const tools = toolsOf[p.vscode];
    const key = (phase) => `${p.vscode}/${phase}`;
    const phaseDir = path.join(runDir, key(p.phase));
    mkdirs(phaseDir);
    const stateDir = p.reuse ? stateDirs[key(p.reuse)] : phaseDir;
    // a fresh copy of the fixture per phase (tests may edit it freely), unless reused
    const workspace = p.reuse ? workspaces[key(p.reuse)] : path.join(phaseDir, 'workspace');
    let phaseEnv = testEnv;
    if (p.oauth) {
      const worlds = await ensureOAuthWorlds(p.vscode);
      phaseEnv = { ...testEnv, LAZY_MCP_TEST_OAUTH: JSON.stringify(Object.fromEntries(Object.entries(worlds).map(([n, w]) => [n, w.info]))) };
      // One browser profile, page origin and web secret key for the pair (see oauthPhases).
      const shared = path.join(runDir, p.vscode, 'oauth-browser');
      p.profileDir = path.join(shared, 'profile');
      p.webSecretKeyFile = path.join(shared, 'web-secret-key-half');
      p.port = (p.reuse && ports[key(p.reuse)]) || (await freePort());
      ports[key(p.phase)] = p.port;
    }
    let socketDir;
    if (p.socketDir !== false) {
      // Every phase (windows share servers by default): short (a Unix socket path has ~100 bytes)
      // and the phase's own, so the user's real owner is never touched and the owner's exit is checked.
      socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-sock-'));
      fs.chmodSync(socketDir, 0o700);
      phaseEnv = {
        ...phaseEnv,
        LAZY_MCP_SOCKET_DIR: socketDir,
        LAZY_MCP_OWNER_LINGER_MS: String(SHARED_OWNER_LINGER_MS),
        LAZY_MCP_HANDOVER_GRACE_MS: String(SHARED_HANDOVER_GRACE_MS),
      };
    }
    if (p.secondWindow) p.secondWindow = { workspace: secondWorkspaceOf(phaseDir) };
    if (!p.reuse) {
      if (p.fixture) p.fixture(workspace, phaseDir);
      else if (p.oauth) copyOAuthWorkspace(workspace, oauthWorlds[p.vscode]);
      else copyBasicWorkspace(workspace);
    }
    stateDirs[key(p.phase)] = stateDir;
    workspaces[key(p.phase)] = workspace;
    const t0 = Date.now();
    say(`${p.phase}: VS Code ${p.vscode}: extensionDevelopmentPath=${p.devPath} workspace=${workspace}`);
    let r;
    try {
      r = desktop
        ? await runPhaseDesktop({ ...p, executable: desktop, workspace, phaseDir, stateDir, testEnv: phaseEnv })
        : await runPhaseHeadless({ ...p, tools, workspace, phaseDir, stateDir, testEnv: phaseEnv });
    } catch (err) {
      if (interrupted) await new Promise(() => {}); // the signal handler ends the run
      const msg = err instanceof RunnerError || !VERBOSE ? err?.message ?? String(err) : err?.stack;
      say(`${p.phase}: ERROR: ${msg}`);
      r = { code: -1, passes: 0, failures: 1, aborted: true };
    }
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    if (r.missing) {
      say(`${p.phase}: the suite reported no counts (exit code ${r.code}); counting it as 1 failure`);
      r.failures = Math.max(r.failures, 1);
    }
    // Every server process the extension spawned must be gone once VS Code has stopped.
    const orphans = await leftoverServers(workspace);
    if (orphans.length > 0) {
      say(`${p.phase}: FAILED: server processes outlived VS Code: ${orphans.join(', ')} (killed now)`);
      r.failures += 1;
    } else if (fs.existsSync(spawnLogOf(workspace))) {
      say(`${p.phase}: ok: no server process outlived VS Code`);
      r.passes += 1;
    }
    if (socketDir) {
      // The owner of shared servers ends on its own once no window holds a server.
      const deadline = Date.now() + SHARED_OWNER_LINGER_MS + 10_000;
      while (processesMentioning(socketDir).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const owners = processesMentioning(socketDir);
      const traces = fs.readdirSync(socketDir);
      if (p.noOwner && traces.length > 0) {
        say(`${p.phase}: FAILED: an owner of shared servers was started with sharing off (${traces.join(', ')} in ${socketDir})`);
        r.failures += 1;
      } else if (p.noOwner) {
        say(`${p.phase}: ok: no owner of shared servers was started`);
        r.passes += 1;
      }
      if (owners.length > 0) {
        say(`${p.phase}: FAILED: the owner of shared servers (pid ${owners.join(', ')}) was still running ${SHARED_OWNER_LINGER_MS + 10_000} ms after the windows closed (killed now)`);
        for (const pid of owners) process.kill(pid, 'SIGKILL');
        r.failures += 1;
      } else {
        say(`${p.phase}: ok: no owner of shared servers is left running`);
        r.passes += 1;
      }
      fs.rmSync(socketDir, { recursive: true, force: true });
    }
    if (p.maxDialogs !== undefined && !r.aborted) {
      const dialogs = dialogsRequested(phaseDir);
      if (dialogs > p.maxDialogs) {
        say(`${p.phase}: FAILED: VS Code was asked to show ${dialogs} dialog(s) (at most ${p.maxDialogs}; "${DIALOG_REQUESTED}" in ${path.join(phaseDir, 'workbench.log')})`);
        r.failures += 1;
      } else {
        say(`${p.phase}: ok: VS Code was asked to show ${dialogs} dialog(s)`);
        r.passes += 1;
      }
    }
    if (p.oauth && !r.aborted) {
      const found = await plantedTokenHits([...new Set([phaseDir, stateDir])], oauthWorlds[p.vscode], runDir);
      if (found.tokens === 0) {
        say(`${p.phase}: FAILED: the test authorization servers issued no token, so the planted-token grep proves nothing`);
        r.failures += 1;
      } else if (found.hits.length > 0) {
        say(`${p.phase}: FAILED: a token value the test authorization server issued appears in ${found.hits.join(', ')}`);
        r.failures += 1;
      } else {
        say(`${p.phase}: ok: none of the ${found.tokens} issued token values appears in the phase's ${found.files} files (logs, storage, catalogue)`);
        r.passes += 1;
      }
    }
    passes += r.passes;
    failures += r.failures;
    Object.assign(perVersion[p.vscode], {
      passes: perVersion[p.vscode].passes + r.passes,
      failures: perVersion[p.vscode].failures + r.failures,
      ms: perVersion[p.vscode].ms + (Date.now() - t0),
    });
    totals.passes = passes;
    totals.failures = failures;
    const phaseOk = r.code === 0 && r.failures === 0 && r.passes > 0;
    ok &&= phaseOk;
    if (!phaseOk) recap.push(`${p.phase} (VS Code ${p.vscode}): ${r.failed?.length ? r.failed.join(' | ') : `exit code ${r.code}; see the phase's lines above`}`);
    if (!phaseOk) printExtensionLogs(p.phase, phaseDir);
    say(`${p.phase}: VS Code ${p.vscode}: ${r.passes} passed, ${r.failures} failed, exit code ${r.code}, ${secs} s${phaseOk ? '' : ' (FAILED)'}`);
  }
  for (const worlds of Object.values(oauthWorlds)) for (const world of Object.values(worlds)) await world.stop();
  for (const [v, t] of Object.entries(perVersion)) say(`VS Code ${v}: ${t.passes} passed, ${t.failures} failed, ${(t.ms / 1000).toFixed(1)} s`);
  // Named again at the end, where a CI log's tail shows them.
  for (const line of recap) say(`failed: ${line}`);
  if (passes === 0) ok = false;
  if (ok && !values.keep) fs.rmSync(runDir, { recursive: true, force: true });
  else say(`logs and dirs kept in ${runDir}`);
  pruneOldRuns();
  process.stdout.write(`integration: ${passes} passed, ${failures} failed\n`);
  return ok ? 0 : 1;
}

/** On failure: the tail of Lazy MCP's own output-channel logs that VS Code wrote under the phase dir. */
function printExtensionLogs(phase, phaseDir) {
  let files = [];
  try {
    files = fs
      .readdirSync(phaseDir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.log') && /(lazy-mcp\.lazy-mcp|Lazy MCP)/i.test(f) && f.split(path.sep).includes('logs'));
  } catch {
    return;
  }
  for (const f of files) {
    say(`${phase}: extension log ${path.join(phaseDir, f)} (last 40 lines):`);
    for (const line of tail(path.join(phaseDir, f), 40).split('\n')) process.stdout.write(`  [output:${phase}] ${line}\n`);
  }
}

/** Keeps at most the 5 newest kept runs. */
function pruneOldRuns() {
  const root = path.join(REPO, '.test-runs');
  try {
    const runs = fs.readdirSync(root).sort();
    for (const r of runs.slice(0, Math.max(0, runs.length - 5))) fs.rmSync(path.join(root, r), { recursive: true, force: true });
  } catch {
    /* nothing to prune */
  }
}

main().then(
  async (code) => {
    if (interrupted) return;
    await endEverything();
    process.exit(code);
  },
  async (err) => {
    if (interrupted) return;
    await endEverything();
    if (err instanceof RunnerError) process.stderr.write(`itest: ERROR: ${err.message}\n`);
    else process.stderr.write(`itest: ERROR: unexpected failure: ${err?.stack ?? err}\n`);
    process.stdout.write('integration: 0 passed, 1 failed\n');
    process.exit(1);
  },
);
