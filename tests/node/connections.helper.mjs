// Shared test plumbing for the connection layer: builds the TypeScript with
// esbuild (once per test process), drives a connection with hand-written
// JSON-RPC, and checks processes by pid.

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtures = path.join(repoRoot, 'tests/fixtures/servers');
export const everythingBin = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const require = createRequire(import.meta.url);

// Safety net: whatever a failing test left running is SIGKILLed (whole process group) when
// the test process exits, so even `--test-force-exit` leaves no server behind.
const spawnedGroups = new Set();
const spawnedPids = new Set();
process.on('exit', () => {
  for (const pid of spawnedPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const pgid of spawnedGroups) {
    try {
      process.kill(process.platform === 'win32' ? pgid : -pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

let built;
/** The connection layer, bundled to CommonJS, plus a few internals for unit tests. */
export function loadConnections() {
  if (built) return built;
  const esbuild = require('esbuild');
  const dir = path.join(repoRoot, 'out/test');
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `connections.${process.pid}.cjs`);
  esbuild.buildSync({
    stdin: {
      contents: [
        "export * from './index';",
        "export { SseParser } from './sseParser';",
        "export { LineSplitter, StderrRing } from './lineFraming';",
        "export { writeBatched, flushBatched } from './batchedWrite';",
        "export { groupIsAlive } from './processGroup';",
        "export { WasmCore } from '../../core/wasmCore';",
        "export { planWindowsSpawn, escapeArgument, escapeCommand } from './windowsCommand';",
      ].join('\n'),
      resolveDir: path.join(repoRoot, 'extension/src/host/connections'),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  built = require(outfile);
  rmSync(outfile, { force: true });
  return built;
}

let policy;
let core;
/** The real core (dist/core, built by `node scripts/build.mjs`). */
function coreRules() {
  const { WasmCore } = loadConnections();
  core ??= new WasmCore(path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js'), () => undefined);
  return core;
}

/**
 * The rules and limits an HTTP connection runs by, from the real core, as the engine driver
 * passes them (`ConnectionOptions.http`).
 */
export function httpPolicy() {
  policy ??= coreRules().httpPolicy();
  return policy;
}

/**
 * How a stdio connection stops, from the real core (`hostLimits().stdio`), as the engine
 * driver passes them (`ConnectionOptions.stdio`); `overrides` shortens a wait for a test.
 */
export function stdioLimits(overrides = {}) {
  const { WasmCore } = loadConnections();
  const limits = new WasmCore(path.join(repoRoot, 'dist', 'core', 'lazy_mcp_wasm.js'), () => undefined).limits().stdio;
  return { ...limits, ...overrides };
}

/**
 * Open a connection and record everything it reports. `next(pred)` waits for a
 * matching message; `request(method, params)` sends a request and resolves with
 * its response.
 */
export function drive(transport, opts = {}) {
  const { openConnection, TRANSPORT_ERROR_CODE } = loadConnections();
  const messages = [];
  const stderr = [];
  const logs = [];
  const waiters = [];
  let openedInfo;
  let resolveOpened;
  const opened = new Promise((r) => (resolveOpened = r));
  let resolveClosed;
  const closed = new Promise((r) => (resolveClosed = r));
  let closedCount = 0;
  let nextId = 1;
  const initializeIds = new Set();
  // What the engine owns over HTTP (ARCHITECTURE.md, "Who owns HTTP transport state"), played
  // here: the requests in flight, the negotiated version (a header on each later message), and
  // sending nothing more until `initialize` is answered.
  const http = transport.type !== 'stdio';
  // And, as the engine does (engine/server/http_transport.rs): which transport a probing POST's
  // status settles (the rule of http_status.rs's `transport_after_first_post`, which the WASM
  // module does not export: the engine reads it itself; cli.legacySseFallback.test.mjs checks the
  // engine's own), and what started and answered the first exchange (the engine's deadline bounds it).
  let probing = transport.type === 'http';
  const connectStarts = [];
  const connectAnswers = [];
  const inFlight = new Set();
  let protocolVersion;
  let held = [];
  const send = (json, meta = {}) => {
    if (http && initializeIds.size > 0 && !meta.initialize) return void held.push([json, meta]);
    const rest = { ...meta };
    delete rest.initialize;
    if (rest.requestId !== undefined) inFlight.add(rest.requestId);
    conn.send(json, http && protocolVersion !== undefined ? { ...rest, headers: { 'mcp-protocol-version': protocolVersion } } : rest);
  };

  const events = {
    onOpened(info) {
      openedInfo = info;
      if (info.pid) spawnedGroups.add(info.pid);
      resolveOpened(info);
    },
    onMessage(json) {
      // What the core does with what a connection passes on: an empty body is nothing, a
      // batch is split, an answer ends its request in flight, and an accepted `initialize`
      // reply settles the version that what waited, and all after, carries.
      // A stdio line arrives as the bytes read (the core decodes it), the rest as text.
      const text = typeof json === 'string' ? json : new TextDecoder().decode(json);
      if (text.trim() === '') return;
      const parsed = JSON.parse(text);
      for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
        if (msg.method === undefined && typeof msg.id === 'number') inFlight.delete(msg.id);
        if (initializeIds.delete(msg.id)) {
          if (msg.result?.protocolVersion) protocolVersion = msg.result.protocolVersion;
          const waiting = held;
          held = [];
          for (const [j, m] of waiting) send(j, m);
        }
        messages.push(msg);
        for (const w of [...waiters]) {
          if (w.pred(msg)) {
            waiters.splice(waiters.indexOf(w), 1);
            clearTimeout(w.timer);
            w.resolve(msg);
          }
        }
      }
    },
    onConnectStarted() {
      connectStarts.push(Date.now());
    },
    onConnectAnswered(status) {
      connectAnswers.push(status);
      if (!probing) return;
      const signIn = opts.auth !== undefined && (status === 401 || status === 403);
      const mode = [400, 404, 405].includes(status) ? 'legacy' : signIn ? 'probing' : 'streamable';
      probing = mode === 'probing';
      conn.setTransport(mode);
    },
    onReplyEnded(id, reason, httpStatus) {
      // The core fails a request still in flight with the transport's reason (upstream.rs).
      if (!inFlight.has(id)) return;
      const data = { transport: transport.type, ...(httpStatus !== undefined ? { httpStatus } : {}) };
      events.onMessage(JSON.stringify({ jsonrpc: '2.0', id, error: { code: TRANSPORT_ERROR_CODE, message: reason, data } }));
    },
    onClosed(info) {
      closedCount++;
      if (openedInfo?.pid) spawnedGroups.delete(openedInfo.pid);
      resolveClosed(info);
      // Nothing more will arrive: fail whoever still waits, at once.
      for (const w of waiters.splice(0)) {
        clearTimeout(w.timer);
        w.reject(new Error(`connection closed (${info.reason}) while waiting for ${w.what}`));
      }
    },
    onStderr(line) {
      stderr.push(line);
    },
  };
  const conn = openConnection(transport, events, {
    log: (level, msg) => logs.push({ level, msg }),
    ...(transport.type === 'stdio' ? { stdio: stdioLimits() } : { http: httpPolicy() }),
    ...opts,
  });

  const d = {
    conn,
    messages,
    stderr,
    logs,
    opened,
    closed,
    get openedInfo() {
      return openedInfo;
    },
    get closedCount() {
      return closedCount;
    },
    /** HTTP: when each first exchange started (`onConnectStarted`), and the statuses that answered them. */
    connectStarts,
    connectAnswers,
    next(pred, timeoutMs = 10000, what = 'a message') {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve, reject, what };
        w.timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages).slice(0, 500)}`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    request(method, params = {}, timeoutMs = 10000) {
      const id = nextId++;
      if (method === 'initialize') initializeIds.add(id);
      // As the core's `send` effect says: a request, its id.
      send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), { requestId: id, initialize: method === 'initialize' });
      return d.next((m) => m.id === id && m.method === undefined, timeoutMs, `the response to ${method}`);
    },
    notify(method, params) {
      // The core marks the legacy handshake's last message: the server's GET stream may open after it.
      const meta = method === 'notifications/initialized' ? { openEventStream: true } : {};
      send(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }), meta);
    },
    /** initialize → notifications/initialized, as a client would. */
    async handshake(protocolVersion = '2025-11-25') {
      const init = await d.request('initialize', {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'lazy-mcp-connection-test', version: '0.0.0' },
      });
      if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
      d.notify('notifications/initialized');
      return init.result;
    },
  };
  return d;
}

/** Race a promise against a timeout that fails the test. */
export function within(ms, promise, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]);
}

/** True while the pid is a running (not zombie) process. */
export function pidAlive(pid) {
  if (process.platform === 'linux') {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return false;
    }
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

export async function waitUntil(cond, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start a real server process that listens on a port (server-everything's HTTP
 * modes). Resolves once the port accepts connections. `stop()` kills it.
 */
export async function startListeningServer(args, port, timeoutMs = 15000) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawnedPids.add(child.pid);
  child.once('exit', () => spawnedPids.delete(child.pid));
  const output = [];
  child.stdout.on('data', (c) => output.push(String(c)));
  child.stderr.on('data', (c) => output.push(String(c)));
  const exited = new Promise((r) => child.once('exit', r));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output.join('')}`);
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server on port ${port} not ready: ${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

export const clientInfo = { name: 'lazy-mcp-connection-test', version: '0.0.0' };

/** Linux: the live (non-zombie) pids whose process group is `pgid`. */
export function groupMembers(pgid) {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') out.push(Number(entry));
  }
  return out;
}
