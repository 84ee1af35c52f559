// The machinery behind the VS Code integration runner (run.mjs) and the VS Code benchmark
// (bench/vscode-startup.mjs): tracked process groups, isolated env, code-server's VS Code server
// + headless Chromium, or a desktop VS Code via @vscode/test-electron. See README.md here.
import crypto from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(import.meta.url);

export const SUITE = path.join(HERE, 'suite', 'index.cjs');
export const HARNESS = path.join(HERE, 'vsix-harness');

const ms = (name, dflt) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};
export const TIMEOUTS = {
  serverReady: ms('LAZY_MCP_ITEST_SERVER_TIMEOUT_MS', 60_000),
  pageLoad: ms('LAZY_MCP_ITEST_PAGE_TIMEOUT_MS', 60_000),
  suite: ms('LAZY_MCP_ITEST_TIMEOUT_MS', 5 * 60_000),
  install: ms('LAZY_MCP_ITEST_INSTALL_TIMEOUT_MS', 120_000),
  browserStart: 30_000,
  kill: 5_000,
};
export const VERBOSE = process.env.LAZY_MCP_ITEST_VERBOSE === '1';

export const say = (line) => process.stdout.write(`itest: ${line}\n`);

export class RunnerError extends Error {}

// ---------------------------------------------------------------------------------------------
// Child processes: every one is spawned detached (its own process group) and tracked, so the
// whole group (server-main's extension host, pty host, watchers; chromium's renderers) is ended.

const groups = new Map(); // pgid -> name

function spawnTracked(name, cmd, args, opts) {
  const child = spawn(cmd, args, { ...opts, detached: true });
  if (child.pid) groups.set(child.pid, name);
  child.on('error', () => {});
  return child;
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function endGroup(pgid) {
  if (!groups.has(pgid)) return;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  const deadline = Date.now() + TIMEOUTS.kill;
  while (groupAlive(pgid) && Date.now() < deadline) await delay(100);
  if (groupAlive(pgid)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
    await delay(100);
  }
  groups.delete(pgid);
}

/** Linux: pids of all live descendants of this process (for test-electron's own children). */
function descendants(root = process.pid) {
  let entries;
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const parent = new Map();
  for (const e of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(e), ppid);
    } catch {
      /* raced */
    }
  }
  const out = [];
  const walk = (pid) => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

/** Runner-owned processes that outlive phases (the OAuth test world); the runner ends them itself. */
const spared = new Set();
export function spareFromCleanup(pid) {
  spared.add(pid);
}

export async function endEverything() {
  await Promise.all([...groups.keys()].map((g) => endGroup(g)));
  for (const pid of descendants()) {
    if (spared.has(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

process.on('exit', () => {
  // last resort, synchronous
  for (const pgid of groups.keys()) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});
/** Counts so far (also printed when interrupted). */

// ---------------------------------------------------------------------------------------------
// Helpers

/** Rejects with a clear message after `ms`; the other racers keep their own cleanup. */
export function withTimeout(promise, timeoutMs, what) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new RunnerError(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

export async function freePort() {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

function httpStatus(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.setTimeout(2_000, () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

export function mkdirs(...dirs) {
  for (const d of dirs) fs.mkdirSync(d, { recursive: true });
}

/** Short-lived TMPDIRs (VS Code and git put unix sockets there; paths must stay short). */
const tmpDirs = new Set();
process.on('exit', () => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * Env for every process we start: inherited, with HOME/XDG/TMPDIR isolated and VS Code-terminal
 * leftovers removed.
 */
function isolatedEnv(homeRoot, extra) {
  const home = path.join(homeRoot, 'home');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-itest-'));
  tmpDirs.add(tmp);
  const xdg = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  };
  mkdirs(...Object.values(xdg));
  const env = { ...process.env, ...xdg, TMPDIR: tmp, ...extra };
  for (const k of Object.keys(env)) {
    // VS Code-terminal leftovers, and what an outer `npm test` exported (npm would read those
    // npm_config_* as configuration in any npm/npx the tests or the extension start)
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE' || (/^npm_/i.test(k) && !/^npm_config_(registry|cafile|strict_ssl|https?_proxy|proxy|noproxy)$/i.test(k))) delete env[k];
  }
  return env;
}

/** Lines written into a log file, and (prefixed) to stdout when verbose. */
function teeLines(stream, logFd, prefix, print) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    fs.writeSync(logFd, chunk);
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (print) process.stdout.write(`${prefix}${line}\n`);
    }
  });
}

export function tail(file, n = 30) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '';
  }
}

function readResult(file) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    return { passes: Number(r.passes) || 0, failures: Number(r.failures) || 0, error: r.error, failed: Array.isArray(r.failed) ? r.failed.map(String) : [] };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Headless: code-server's VS Code server + Debian Chromium

async function startServer({ tools, port, dirs, env, logFile }) {
  const logFd = fs.openSync(logFile, 'a');
  const args = [
    tools.serverMain,
    '--host', '127.0.0.1',
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--telemetry-level', 'off',
    '--user-data-dir', dirs.userData,
    '--server-data-dir', dirs.serverData,
    '--extensions-dir', dirs.extensions,
    ...(process.env.LAZY_MCP_TEST_VSCODE_LOG ? ['--log', process.env.LAZY_MCP_TEST_VSCODE_LOG] : []),
  ];
  const child = spawnTracked('vscode-server', tools.node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  teeLines(child.stdout, logFd, '  [server] ', VERBOSE);
  teeLines(child.stderr, logFd, '  [server] ', VERBOSE);
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new RunnerError(`VS Code server exited early (code ${code}, signal ${signal}); log: ${logFile}\n${tail(logFile)}`);
  });
  exited.catch(() => {});
  const ready = (async () => {
    for (;;) {
      const status = await httpStatus(`http://127.0.0.1:${port}/`);
      if (status >= 200 && status < 500) return;
      await delay(200);
    }
  })();
  await withTimeout(Promise.race([ready, exited]), TIMEOUTS.serverReady, `the VS Code server on port ${port} (log: ${logFile})`);
  return { child, exited };
}

async function installVsixServer({ tools, vsix, dirs, env, logFile }) {
  const logFd = fs.openSync(logFile, 'a');
  const child = spawnTracked(
    'vsix-install',
    tools.node,
    [
      tools.serverMain,
      '--accept-server-license-terms',
      '--user-data-dir', dirs.userData,
      '--server-data-dir', dirs.serverData,
      '--extensions-dir', dirs.extensions,
      '--install-extension', vsix,
      '--force',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  teeLines(child.stdout, logFd, '  [install] ', true);
  teeLines(child.stderr, logFd, '  [install] ', true);
  try {
    const [code, signal] = await withTimeout(once(child, 'exit'), TIMEOUTS.install, `the VSIX install (${vsix})`);
    if (code !== 0) throw new RunnerError(`installing ${vsix} failed (code ${code}, signal ${signal}); log: ${logFile}`);
  } finally {
    await endGroup(child.pid);
  }
  const installed = fs.readdirSync(dirs.extensions).filter((d) => !d.startsWith('.') && d !== 'extensions.json');
  if (!installed.some((d) => d.startsWith('lazy-mcp.lazy-mcp-'))) {
    throw new RunnerError(`after installing ${vsix}, no lazy-mcp.lazy-mcp-* folder in ${dirs.extensions} (found: ${installed.join(', ') || 'nothing'})`);
  }
}

async function startChromium({ executable, profileDir, env, logFile }) {
  const logFd = fs.openSync(logFile, 'a');
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    `--user-data-dir=${profileDir}`,
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    'about:blank',
  ];
  const child = spawnTracked('chromium', executable, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  teeLines(child.stdout, logFd, '  [chromium] ', VERBOSE);
  let wsUrl;
  const found = new Promise((resolve, reject) => {
    let buf = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      fs.writeSync(logFd, chunk);
      if (wsUrl) return;
      buf += chunk;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(buf);
      if (m) resolve((wsUrl = m[1]));
    });
    child.on('exit', (code, signal) =>
      reject(new RunnerError(`chromium exited early (code ${code}, signal ${signal}); log: ${logFile}\n${tail(logFile)}`)),
    );
  });
  await withTimeout(found, TIMEOUTS.browserStart, `chromium's DevTools endpoint (log: ${logFile})`);
  const { chromium } = require('playwright-core');
  const browser = await withTimeout(chromium.connectOverCDP(wsUrl), TIMEOUTS.browserStart, 'playwright to connect to chromium');
  return { child, browser };
}

/** Marks the extension host's console lines (see suite/index.cjs) among the workbench's log lines. */
const LOG_MARKER = '\u2063';

/** Workbench log lines that are expected offline and only clutter the output. */
const NOISE = [
  /^\[(AgentHost|AgentHostChannel|ChatModelSelection|AccountPolicyGate|Service Worker|reconnection-grace-time)/,
  /No signed-in session resolved/,
  /ENOTFOUND|ECONNREFUSED|EAI_AGAIN/,
  /Timed out waiting for authentication provider/,
  /^(Resolving|Resolved) connection token|^Creating a socket/,
  /^Updating additional builtin extensions cache/,
  /^\s*$/,
];

/**
 * codeAutomationLog(level, message) carries the workbench's whole log, which (in an extension test
 * run) includes the extension host's console. Everything goes to workbench.log. Printed: lines the
 * suite marked (mocha's output), and, once the suite has started, every other line that is not
 * known noise; before that only warnings/errors that mention Lazy MCP (e.g. a failed activation).
 * LAZY_MCP_ITEST_VERBOSE=1 prints everything.
 */
function makeLogSink(phase, logFile) {
  const fd = fs.openSync(logFile, 'a');
  const hostLines = [];
  let started = false;
  const out = (line) => process.stdout.write(`  [exthost:${phase}] ${line}\n`);
  const sink = (level, message) => {
    const text = String(message);
    fs.writeSync(fd, `${level}: ${text.replaceAll(LOG_MARKER, '')}\n`);
    const lines = text.split('\n');
    if (lines.every((l) => l.startsWith(LOG_MARKER))) {
      started = true;
      for (const l of lines) {
        hostLines.push(l.slice(LOG_MARKER.length));
        out(l.slice(LOG_MARKER.length));
      }
      return;
    }
    const tag = level === 'info' || level === 'log' ? '' : `${level}: `;
    const noise = NOISE.some((re) => re.test(lines[0]));
    const relevant = (level === 'error' || level === 'warn' || level === 'warning') && /lazy-?mcp/i.test(text);
    if (VERBOSE || relevant || (started && !noise)) {
      for (const l of lines) out(`${tag}${l.replaceAll(LOG_MARKER, '')}`);
    }
  };
  // The page's console (every frame, webviews included) in a file of its own, for tests to
  // count (e.g. CSP violations); kept out of the workbench log, whose dialog count it would skew.
  const consoleFd = fs.openSync(path.join(path.dirname(logFile), 'page-console.log'), 'a');
  const record = (type, text) => fs.writeSync(consoleFd, `${type}: ${String(text).replaceAll('\n', ' ')}\n`);
  return { sink, hostLines, record };
}

/** Creates a phase's VS Code dirs and user settings; the suite's env and result file. */
function preparePhase({ phase, phaseDir, dirs, workspace, testEnv, userSettings }) {
  mkdirs(...Object.values(dirs), path.join(dirs.userData, 'User'));
  writeUserSettings(path.join(dirs.userData, 'User', 'settings.json'), userSettings);
  const resultFile = path.join(phaseDir, 'mocha-result.json');
  const env = isolatedEnv(phaseDir, {
    ...testEnv,
    LAZY_MCP_TEST_PHASE: phase,
    LAZY_MCP_TEST_RESULT_FILE: resultFile,
    LAZY_MCP_TEST_EXTENSIONS_DIR: dirs.extensions,
    LAZY_MCP_TEST_WORKSPACE: workspace,
    // Tests count what the browser's console logged (e.g. CSP violations in a webview).
    LAZY_MCP_TEST_PAGE_CONSOLE_LOG: path.join(phaseDir, 'page-console.log'),
  });
  return { resultFile, env };
}

/** Clicks the first element matching `selector` in any frame of the page (webviews are nested iframes). */
async function clickInFrames(page, selector) {
  for (const frame of page.frames()) {
    const element = await frame.$(selector).catch(() => null);
    if (element) {
      // noWaitAfter: a link may replace the webview (opening an editor in its column).
      await element.click({ noWaitAfter: true });
      return 'clicked';
    }
  }
  return `no element matches ${selector} in ${page.frames().length} frames`;
}

/**
 * Layout of the first frame holding `selector`: its viewport width and whether its
 * document needs horizontal scrolling (scrollWidth > clientWidth). The request is a
 * selector, or JSON `{selector, width?, words?}`: `width` resizes the window first (it
 * stays so), `words` also returns `brokenWords`, the words of table cells that are drawn
 * on more than one line (a mid-word break).
 */
async function measureInFrames(page, request) {
  const { selector, width, words } = request.startsWith('{') ? JSON.parse(request) : { selector: request };
  if (width && page.viewportSize()?.width !== width) {
    await page.setViewportSize({ width, height: page.viewportSize()?.height ?? 900 });
    await new Promise((r) => setTimeout(r, 1000)); // the workbench and the webview re-lay out
  }
  for (const frame of page.frames()) {
    const element = await frame.$(selector).catch(() => null);
    if (element) {
      // Runs in the page (a string: this file's globals are Node's).
      const m = await frame.evaluate(`(() => {
        const d = document.scrollingElement ?? document.documentElement;
        const brokenWords = [];
        if (${Boolean(words)}) {
          for (const cell of document.querySelectorAll('td, th')) {
            const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              for (const m of node.textContent.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                if (lines.size < 2) continue;
                // Where the word goes to the next line: after a hyphen or a slash is a break the
                // language allows (open-code, /usr/bin/node); anywhere else it is mid-word.
                let top;
                for (let i = 0; i < m[0].length; i += 1) {
                  const c = document.createRange();
                  c.setStart(node, m.index + i);
                  c.setEnd(node, m.index + i + 1);
                  const t = c.getClientRects()[0]?.top;
                  if (t === undefined) continue;
                  if (top !== undefined && Math.round(t) !== Math.round(top) && !/[-/‐–]/.test(m[0][i - 1])) {
                    brokenWords.push(m[0].slice(0, i) + '|' + m[0].slice(i));
                    break;
                  }
                  top = t;
                }
              }
            }
          }
        }
        // Tables wider than the page, with their columns' widths (what makes them so).
        const tables = [...document.querySelectorAll('table')]
          .filter((t) => t.getBoundingClientRect().right > d.clientWidth)
          .map((t) => ({ right: Math.round(t.getBoundingClientRect().right), columns: [...t.querySelectorAll('th')].map((th) => th.textContent + ' ' + Math.round(th.getBoundingClientRect().width)) }));
        return { innerWidth: window.innerWidth, scrollWidth: d.scrollWidth, clientWidth: d.clientWidth, brokenWords, tables };
      })()`);
      return JSON.stringify({ found: true, viewportWidth: page.viewportSize()?.width, ...m });
    }
  }
  return JSON.stringify({ found: false, frames: page.frames().length });
}

/**
 * The web host's half of the key that encrypts VS Code's SecretStorage in the browser. The web
 * workbench keeps secrets in localStorage, sealed with a key it combines with one it POSTs for at
 * `<page>/mint-key`; code-server and `code serve-web` answer that from a key file that outlives
 * restarts. The bare VS Code server these tests drive has no such route (404): the workbench then
 * cannot seal, and every secret is lost when the window reloads. Given a file, the runner answers
 * the route from it, as those hosts do, so secrets survive a restart on the same profile.
 */
async function serveWebSecretKey(page, keyFile) {
  if (!fs.existsSync(keyFile)) {
    fs.mkdirSync(path.dirname(keyFile), { recursive: true });
    fs.writeFileSync(keyFile, crypto.randomBytes(32), { mode: 0o600 });
  }
  const key = fs.readFileSync(keyFile);
  await page.route('**/mint-key', (route) =>
    route.request().method() === 'POST' ? route.fulfill({ status: 200, contentType: 'application/octet-stream', body: key }) : route.fallback(),
  );
}

export async function runPhaseHeadless({ phase, tools, devPath, workspace, phaseDir, stateDir, vsix, testEnv, screenshot, testsPath = SUITE, profileDir, port: fixedPort, userSettings, webSecretKeyFile, secondWindow }) {
  // stateDir: where VS Code keeps its state; the warm phase reuses the dev phase's.
  const dirs = {
    userData: path.join(stateDir, 'user-data'),
    serverData: path.join(stateDir, 'server-data'),
    extensions: path.join(stateDir, 'extensions'),
    profile: profileDir ?? path.join(phaseDir, 'chromium-profile'),
  };
  const { resultFile, env } = preparePhase({ phase, phaseDir, dirs, workspace, userSettings, testEnv: { ...testEnv, LAZY_MCP_TEST_LOG_MARKER: LOG_MARKER } });
  const serverLog = path.join(phaseDir, 'server.log');
  const chromiumLog = path.join(phaseDir, 'chromium.log');

  if (vsix) {
    say(`${phase}: installing ${vsix} into ${dirs.extensions}`);
    await installVsixServer({ tools, vsix, dirs, env, logFile: path.join(phaseDir, 'install.log') });
  }

  // a fixed port keeps the page's origin, and with it the workbench's browser storage (IndexedDB)
  const port = fixedPort ?? (await freePort());
  let server;
  let browser;
  let chrome;
  const { sink, hostLines, record } = makeLogSink(phase, path.join(phaseDir, 'workbench.log'));
  try {
    server = await startServer({ tools, port, dirs, env, logFile: serverLog });
    say(`${phase}: VS Code server ready on 127.0.0.1:${port}`);
    chrome = await startChromium({ executable: tools.chromium, profileDir: dirs.profile, env, logFile: chromiumLog });
    browser = chrome.browser;
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    // Large enough for a readable screenshot of MCP Diagnostics.
    await page.setViewportSize({ width: 1400, height: 900 });
    if (webSecretKeyFile) await serveWebSecretKey(page, webSecretKeyFile);

    let resolveExit;
    const exitCode = new Promise((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationExit', (code) => {
      resolveExit(Number(code));
    });
    // A test asks for a screenshot (while the extension is still live) by creating
    // .lazy-mcp-test/screenshot.request; the runner answers with screenshot.done.
    const request = path.join(workspace, '.lazy-mcp-test', 'screenshot.request');
    const shooter = setInterval(() => {
      if (!screenshot || !fs.existsSync(request)) return;
      fs.rmSync(request, { force: true });
      fs.mkdirSync(path.dirname(screenshot), { recursive: true });
      page.screenshot({ path: screenshot }).then(
        () => say(`${phase}: screenshot saved to ${path.relative(REPO, screenshot)}`),
        (err) => say(`${phase}: screenshot failed: ${err.message}`),
      ).finally(() => fs.writeFileSync(path.join(workspace, '.lazy-mcp-test', 'screenshot.done'), ''));
    }, 200);
    exitCode.finally(() => clearInterval(shooter));
    // A test clicks inside a webview (which the extension host cannot reach) by writing a
    // CSS selector to .lazy-mcp-test/click.request; the runner clicks the first match in
    // any frame and answers with click.done ("clicked" or why not).
    const clickRequest = path.join(workspace, '.lazy-mcp-test', 'click.request');
    const clicker = setInterval(() => {
      if (!fs.existsSync(clickRequest)) return;
      const selector = fs.readFileSync(clickRequest, 'utf8').trim();
      fs.rmSync(clickRequest, { force: true });
      clickInFrames(page, selector)
        .catch((err) => `click failed: ${err.message}`)
        .then((outcome) => fs.writeFileSync(path.join(workspace, '.lazy-mcp-test', 'click.done'), outcome));
    }, 200);
    exitCode.finally(() => clearInterval(clicker));
    // measure.request holding a CSS selector: the runner answers measure.done with the layout
    // of the frame holding it (JSON: innerWidth, scrollWidth, clientWidth, viewportWidth).
    const measureRequest = path.join(workspace, '.lazy-mcp-test', 'measure.request');
    const measurer = setInterval(() => {
      if (!fs.existsSync(measureRequest)) return;
      const selector = fs.readFileSync(measureRequest, 'utf8').trim();
      fs.rmSync(measureRequest, { force: true });
      measureInFrames(page, selector)
        .catch((err) => JSON.stringify({ found: false, error: err.message }))
        .then((outcome) => {
          // Written whole, then renamed: the test polls for the file and reads it at once.
          const done = path.join(workspace, '.lazy-mcp-test', 'measure.done');
          fs.writeFileSync(`${done}.tmp`, outcome);
          fs.renameSync(`${done}.tmp`, done);
        });
    }, 200);
    exitCode.finally(() => clearInterval(measurer));
    await page.exposeFunction('codeAutomationLog', (level, message) => sink(String(level), message));
    page.on('console', (msg) => {
      record(msg.type(), msg.text());
      if (VERBOSE) process.stdout.write(`  [page:${msg.type()}] ${msg.text()}\n`);
    });
    const crashed = new Promise((_, reject) => {
      page.on('crash', () => reject(new RunnerError('the workbench page crashed')));
      browser.on('disconnected', () => reject(new RunnerError('chromium disconnected')));
    });
    crashed.catch(() => {});

    const remote = (p) => `vscode-remote://127.0.0.1:${port}${p.split(path.sep).map(encodeURIComponent).join('/')}`;
    const payload = [
      ['extensionDevelopmentPath', remote(devPath)],
      ['extensionTestsPath', remote(testsPath)],
    ];
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    if (VERBOSE) say(`${phase}: opening ${url}`);
    const openedAt = Date.now();
    await withTimeout(
      Promise.race([page.goto(url, { waitUntil: 'domcontentloaded', timeout: 0 }), server.exited, crashed]),
      TIMEOUTS.pageLoad,
      'the VS Code workbench page to load',
    );
    say(`${phase}: workbench loaded, running the suite (timeout ${Math.round(TIMEOUTS.suite / 1000)} s)`);
    // A second window of the same VS Code server (another tab: its own extension host), on
    // `secondWindow.workspace`, running the same tests path (the suite tells the windows apart).
    const second = secondWindow ? await openSecondWindow({ phase, context, port, devPath, testsPath, phaseDir, workspace: secondWindow.workspace, crashed }) : undefined;
    const code = await withTimeout(Promise.race([exitCode, server.exited, crashed]), TIMEOUTS.suite, `the test suite to finish (phase ${phase})`);
    let result = readResult(resultFile) ?? countsFromLines(hostLines);
    if (second) {
      const secondCode = await withTimeout(Promise.race([second.exitCode, server.exited, crashed]), TIMEOUTS.suite, `the second window's suite to finish (phase ${phase})`);
      const secondResult = readResult(secondWindowResultFile(resultFile)) ?? countsFromLines(second.hostLines);
      result =
        result && secondResult
          ? { passes: result.passes + secondResult.passes, failures: result.failures + secondResult.failures, failed: [...(result.failed ?? []), ...(secondResult.failed ?? []).map((t) => `(second window) ${t}`)] }
          : null;
      return { code: code || secondCode, openedAt, ...(result ?? { passes: 0, failures: 0, missing: true }) };
    }
    return { code, openedAt, ...(result ?? { passes: 0, failures: 0, missing: true }) };
  } finally {
    // A profile kept for a later phase is closed as a user closes the browser: Chromium writes
    // the page's storage (localStorage commits are batched) before it exits. A kill loses it.
    if (browser && profileDir && chrome) await closeChromiumGracefully(browser, chrome.child);
    if (browser) await withTimeout(browser.close(), 10_000, 'chromium to close').catch(() => {});
    await endEverything();
  }
}

/** Where the second window's suite writes its counts (tests/integration/suite/index.cjs). */
export const secondWindowResultFile = (resultFile) => resultFile.replace(/\.json$/, '-second-window.json');

/** Opens a second workbench page (its own extension host) and runs the tests there too. */
async function openSecondWindow({ phase, context, port, devPath, testsPath, phaseDir, workspace, crashed }) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  const { sink, hostLines, record } = makeLogSink(`${phase}:second`, path.join(phaseDir, 'workbench-second.log'));
  let resolveExit;
  const exitCode = new Promise((r) => (resolveExit = r));
  await page.exposeFunction('codeAutomationExit', (code) => resolveExit(Number(code)));
  await page.exposeFunction('codeAutomationLog', (level, message) => sink(String(level), message));
  page.on('console', (msg) => record(msg.type(), msg.text()));
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p.split(path.sep).map(encodeURIComponent).join('/')}`;
  const payload = [
    ['extensionDevelopmentPath', remote(devPath)],
    ['extensionTestsPath', remote(testsPath)],
  ];
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  await withTimeout(Promise.race([page.goto(url, { waitUntil: 'domcontentloaded', timeout: 0 }), crashed]), TIMEOUTS.pageLoad, 'the second VS Code window to load');
  say(`${phase}: second window loaded on ${workspace}`);
  return { exitCode, hostLines };
}

async function closeChromiumGracefully(browser, child) {
  try {
    const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send('Browser.close').catch(() => {});
    await withTimeout(exited, 15_000, 'chromium to exit after Browser.close');
  } catch (err) {
    say(`chromium did not close gracefully (${err.message}); what the page stored last may be lost`);
  }
}

function countsFromLines(lines) {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /mocha: (\d+) passing, (\d+) failing/.exec(lines[i]);
    if (m) return { passes: Number(m[1]), failures: Number(m[2]) };
  }
  return null;
}

/** `extra` (a phase's own settings) overrides the defaults, e.g. to turn workspace trust on. */
function writeUserSettings(file, extra = {}) {
  const settings = {
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'workbench.startupEditor': 'none',
    'workbench.enableExperiments': false,
    'chat.disableAIFeatures': false,
    // The fixtures' project servers run without approval (issue 24); the `approval` phase turns it off.
    'lazyMcp.trustProjectServers': true,
    ...extra,
  };
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

// ---------------------------------------------------------------------------------------------
// Desktop: @vscode/test-electron

export async function runPhaseDesktop({ phase, executable, devPath, workspace, phaseDir, stateDir, vsix, testEnv }) {
  const { runTests, resolveCliArgsFromVSCodeExecutablePath } = require('@vscode/test-electron');
  const dirs = { userData: path.join(stateDir, 'user-data'), extensions: path.join(stateDir, 'extensions') };
  const { resultFile, env } = preparePhase({ phase, phaseDir, dirs, workspace, testEnv });
  if (vsix) {
    const [cli] = resolveCliArgsFromVSCodeExecutablePath(executable);
    say(`${phase}: installing ${vsix} with ${cli}`);
    const r = spawnSync(cli, ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix, '--force'], {
      env,
      stdio: 'inherit',
      timeout: TIMEOUTS.install,
      killSignal: 'SIGKILL',
      shell: process.platform === 'win32',
    });
    if (r.status !== 0) throw new RunnerError(`installing ${vsix} with ${cli} failed (${r.error?.message ?? `code ${r.status}`})`);
  }
  const extensionTestsEnv = Object.fromEntries(
    Object.entries(env).filter(([k]) => k.startsWith('LAZY_MCP_') || k === 'HOME' || k === 'TMPDIR' || k.startsWith('XDG_')),
  );
  const run = runTests({
    vscodeExecutablePath: executable,
    extensionDevelopmentPath: devPath,
    extensionTestsPath: SUITE,
    extensionTestsEnv,
    launchArgs: [
      workspace,
      '--user-data-dir', dirs.userData,
      '--extensions-dir', dirs.extensions,
    ],
  }).then(
    (code) => code,
    (err) => (typeof err?.code === 'number' ? err.code : Promise.reject(err)),
  );
  try {
    const code = await withTimeout(run, TIMEOUTS.suite, `the test suite to finish (phase ${phase})`);
    return { code, ...(readResult(resultFile) ?? { passes: 0, failures: 0, missing: true }) };
  } finally {
    await endEverything();
  }
}

