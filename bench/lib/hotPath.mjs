// The hot path of the gateway measured as its users meet it: `lazy-mcp serve
// --http` in a process of its own (so its CPU time is its own), a bare HTTP
// client through it, against the official SDK client and a bare stdio client
// talking to server-everything directly. Used by bench/run.mjs (section 6).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './servers.mjs';

/**
 * Starts `node dist/cli.js serve --http` on a free loopback port with only
 * `servers` configured, isolated from this user's config (own HOME, cwd and XDG
 * dirs), with its servers in its own process tree unless `shared`. `nodeArgs` e.g. `--cpu-prof` for a profile; `cli` another build's dist/cli.js;
 * `wrap` a command that runs node (e.g. valgrind and its options). Resolves once it prints its URL.
 */
export async function startGatewayProcess(servers, { nodeArgs = [], profileDir, cli: cliPath, wrap = [], readyMs = 60_000, shared = process.env.BENCH_GATEWAY_SHARED === '1' } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-bench-gw-'));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'ws');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  const config = path.join(root, 'servers.mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') };
  // BENCH_GATEWAY_CLI: another build's dist/cli.js, for a before/after comparison.
  const cli = path.resolve(cliPath || process.env.BENCH_GATEWAY_CLI || path.join(repoRoot, 'dist', 'cli.js'));
  const args = [...nodeArgs, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), cli];
  args.push('serve', '--http', '127.0.0.1:0', '--config', config, '--cache', path.join(root, 'catalogue.json'), '--idle-timeout', '0');
  // The gateway's own cost beside the do-nothing proxy (which spawns its server itself): the
  // server in this process's tree, not behind the owner of shared servers (their hop is
  // bench/shared-hop.mjs). `shared` (BENCH_GATEWAY_SHARED=1) measures the default instead.
  if (!shared) args.push('--isolated');
  const [command, ...prefix] = [...wrap, process.execPath];
  const child = spawn(command, [...prefix, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lazy-mcp serve --http did not print its URL in ${readyMs / 1000} s: ${err}`)), readyMs);
    child.stdout.on('data', (d) => {
      out += d;
      const url = /serving \d+ servers? at (\S+)/.exec(out)?.[1];
      const token = /Bearer ([^"\s]+)/.exec(out)?.[1];
      if (url && token) {
        clearTimeout(timer);
        resolve({ url, token });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`lazy-mcp serve --http exited with ${code}: ${err}`));
    });
  });
  child.removeAllListeners('exit');
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM'); // the CLI ends its servers and writes the profile on a clean exit
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    fs.rmSync(root, { recursive: true, force: true });
  };
  // stdout: what the process prints after its URL (e.g. `--trace-gc-nvp` lines, bench/gateway-gc.mjs).
  return { ...ready, pid: child.pid, stdout: child.stdout, close };
}

/** CPU time of every thread of process `pid` so far, in nanoseconds (schedstat: ns resolution; children excluded). */
export function processCpuNs(pid) {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}

/**
 * A bare stdio MCP client (newline-delimited JSON-RPC, no SDK, no validation):
 * the baseline for results the SDK's stdio client cannot take (it times out on 10 MB).
 */
export async function rawStdioSession(spec) {
  const child = spawn(spec.command, spec.args, { env: { ...process.env, ...(spec.env ?? {}) }, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let nextId = 1;
  let chunks = [];
  child.stdout.on('data', (d) => {
    let start = 0;
    for (let nl = d.indexOf(10); nl !== -1; nl = d.indexOf(10, start)) {
      chunks.push(d.subarray(start, nl));
      const line = Buffer.concat(chunks).toString('utf8');
      chunks = [];
      start = nl + 1;
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      const w = waiting.get(msg.id);
      if (w) {
        waiting.delete(msg.id);
        w(msg);
      }
    }
    if (start < d.length) chunks.push(d.subarray(start));
  });
  const post = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
      post({ jsonrpc: '2.0', id, method, params });
    });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lazy-mcp-bench-stdio', version: '1' } });
  post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * A message of `bytes` characters for `echo`, with one JSON escape (a quote) per 50
 * characters. The request and the result each carry it: 10 MB (10^7) stays under
 * the 10 MiB line limit of the SDK's stdio transport in server-everything, which
 * exits when a line is longer.
 */
export function bigMessage(bytes) {
  const unit = 'lazy-mcp hot path" payload 0123456789 abcdefghijk ';
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

/** The text of an echo result, checked: the whole message came back intact. */
export function echoedIntact(result, message) {
  const text = result?.content?.[0]?.text;
  return typeof text === 'string' && text === `Echo: ${message}`;
}

/** `minimalProxy.mjs` in front of `spec` (a process of its own): the floor a Node gateway cannot go below. */
export async function startMinimalProxy(spec, { nodeArgs = [] } = {}) {
  const script = path.join(repoRoot, 'bench', 'lib', 'minimalProxy.mjs');
  const child = spawn(process.execPath, [...nodeArgs, script, spec.command, ...spec.args], { env: { ...process.env, ...(spec.env ?? {}) }, stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve, reject) => {
    // Its port is the first line of digits (a node flag such as --trace-gc may print before it).
    let out = '';
    const onData = (d) => {
      out += d;
      const port = /^(\d+)$/m.exec(out)?.[1];
      if (port === undefined) return;
      child.stdout.off('data', onData);
      resolve(Number(port));
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`minimal proxy exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    stdout: child.stdout,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
