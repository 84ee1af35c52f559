// Reliability probe of the built `lazy-mcp serve` (dist/cli.js): bad inputs over
// HTTP and stdio while a control client keeps calling a tool, then memory after
// 10,000 abandoned HTTP sessions and after a 200 MB stdin line, each against the
// process's own baseline. A script, not a test: it prints a table.
// Usage: node scripts/build.mjs && node bench/reliability.mjs [--sessions N] [--line-mb N]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cliJs = path.join(repoRoot, 'dist', 'cli.js');
const argValue = (flag, fallback) => {
  const i = process.argv.indexOf(flag);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const abandonedSessions = argValue('--sessions', 10_000);
const lineMb = argValue('--line-mb', 200);

// ---- a throwaway world with one small stdio server --------------------------
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-reliability-'));
const ws = path.join(root, 'ws');
const home = path.join(root, 'home');
fs.mkdirSync(ws, { recursive: true });
fs.mkdirSync(home, { recursive: true });
const tiny = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { tiny: { command: process.execPath, args: [tiny, 'tiny'] } } }));
const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') };

const rss = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const nested = (depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const call = (id, args) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"tiny__echo","arguments":${args}}}`;
const initialize = (id) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`;

/** Bad inputs: [label, body (string or Buffer)]. Every one must get an error answer. */
function badInputs() {
  const list = [];
  for (const depth of [129, 1000, 5000, 100_000]) list.push([`tools/call arguments nested ${depth} deep`, call(`deep-${depth}`, `{"m":${nested(depth)}}`)]);
  for (const depth of [129, 100_000]) list.push([`params nested ${depth} deep`, `{"jsonrpc":"2.0","id":"p${depth}","method":"tools/list","params":${nested(depth)}}`]);
  list.push(
    ['truncated JSON', '{"jsonrpc":"2.0","id":"t1","method":"tools/list"'],
    ['not JSON at all', 'hello there'],
    ['empty object', '{}'],
    ['empty batch', '[]'],
    ['batch of numbers', '[1,2,3]'],
    ['a string', '"tools/list"'],
    ['a number', '42'],
    ['null', 'null'],
    ['jsonrpc "1.0"', '{"jsonrpc":"1.0","id":"v1","method":"tools/list"}'],
    ['jsonrpc missing', '{"id":"v0","method":"tools/list"}'],
    ['jsonrpc a number', '{"jsonrpc":2,"id":"v2","method":"tools/list"}'],
    ['method a number', '{"jsonrpc":"2.0","id":"m1","method":42}'],
    ['method an object', '{"jsonrpc":"2.0","id":"m2","method":{"a":1}}'],
    ['unknown method', '{"jsonrpc":"2.0","id":"m3","method":"no/such"}'],
    ['method of 1 MB', `{"jsonrpc":"2.0","id":"m4","method":"${'x'.repeat(1 << 20)}"}`],
    ['id null', '{"jsonrpc":"2.0","id":null,"method":"tools/list"}'],
    ['id true', '{"jsonrpc":"2.0","id":true,"method":"tools/list"}'],
    ['id an object', '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}'],
    ['id an array', '{"jsonrpc":"2.0","id":[1],"method":"tools/list"}'],
    ['id nested 100,000 deep', `{"jsonrpc":"2.0","id":${nested(100_000)},"method":"tools/list"}`],
    ['id a 1 MB string, unknown tool', call('i'.repeat(1 << 20), '{}').replace('tiny__echo', 'nope')],
    ['id 1e400, unknown method', '{"jsonrpc":"2.0","id":1e400,"method":"no/such"}'],
    ['id 2^64, unknown method', '{"jsonrpc":"2.0","id":18446744073709551616,"method":"no/such"}'],
    ['params a string', '{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":"x"}'],
    ['params null', '{"jsonrpc":"2.0","id":"s2","method":"tools/call","params":null}'],
    ['tools/call without params', '{"jsonrpc":"2.0","id":"s3","method":"tools/call"}'],
    ['tools/call of an unknown tool', call('s4', '{}').replace('tiny__echo', 'tiny__nope')],
    ['tools/call name a number', '{"jsonrpc":"2.0","id":"s5","method":"tools/call","params":{"name":7}}'],
    ['invalid UTF-8 in a string', Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"u1","method":"no/such","params":{"x":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}')])],
    ['NUL and control characters', '{"jsonrpc":"2.0","id":"c1","method":"no/such\u0000\u0007"}'],
    ['byte-order mark first', '\ufeff{"jsonrpc":"2.0","id":"b1","method":"tools/list"}'],
    ['a response nobody asked for, with an error id', '{"jsonrpc":"2.0","id":{"x":1},"method":"ping","result":{}}'],
  );
  return list;
}

// ---- a control client calling a tool in a loop -----------------------------
function controlLoop(client) {
  const state = { served: 0, failure: undefined, running: true };
  state.done = (async () => {
    while (state.running) {
      try {
        await client.callTool({ name: 'tiny__echo', arguments: { message: 'control' } });
        state.served += 1;
      } catch (err) {
        state.failure = err;
        return;
      }
    }
  })();
  return state;
}

function startServe(args) {
  const child = spawn(process.execPath, [cliJs, 'serve', ...args, '--cwd', ws], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { child, out: () => stdout, err: () => stderr };
}

async function until(what, predicate, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function post(url, token, body, session) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`, ...(session ? { 'Mcp-Session-Id': session } : {}) },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, text, session: res.headers.get('mcp-session-id') };
}

// ---- HTTP -------------------------------------------------------------------
async function probeHttp() {
  const serve = startServe(['--http', '127.0.0.1:0']);
  await until('serve --http to print its address', () => /Bearer [\w-]+"/.test(serve.out()));
  const url = /at (http:\/\/\S+\/mcp)/.exec(serve.out())[1];
  const token = /Bearer ([\w-]+)"/.exec(serve.out())[1];
  const control = new Client({ name: 'control', version: '1' });
  await control.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const loop = controlLoop(control);
  const { session } = await post(url, token, initialize(1));
  const inputs = badInputs();
  inputs.push(['batch: initialize next to a call nested 5000 deep', `[${initialize('b-init')},${call('b-deep', `{"m":${nested(5000)}}`)}]`]);
  inputs.push(['body of 17 MB', `{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"x":"${'a'.repeat(17 << 20)}"}}`]);
  let answered = 0;
  const missed = [];
  for (const [label, body] of inputs) {
    const before = loop.served;
    let ok = false;
    try {
      const r = await post(url, token, body, label.startsWith('batch') ? undefined : session);
      ok = r.status >= 400 || /"error"\s*:/.test(r.text);
    } catch (err) {
      missed.push(`${label}: ${err.message}`);
    }
    // The control client must be served after each input.
    await until(`the control client after "${label}"`, () => loop.failure !== undefined || loop.served > before, 30_000).catch(() => undefined);
    const controlOk = loop.failure === undefined && loop.served > before && serve.child.exitCode === null;
    if (ok && controlOk) answered += 1;
    else if (!missed.some((m) => m.startsWith(label))) missed.push(`${label}: ${ok ? 'control client not served' : 'no error answer'}`);
  }
  loop.running = false;
  await loop.done;
  await control.close();

  // Memory: abandoned sessions (initialize, never DELETE), against this process's baseline.
  const baseline = rss(serve.child.pid);
  for (let i = 0; i < abandonedSessions; i++) await post(url, token, initialize(i));
  const afterSessions = rss(serve.child.pid);
  const alive = serve.child.exitCode === null;
  serve.child.kill('SIGTERM');
  return { tried: inputs.length, answered, missed, controlServed: loop.served, alive, baseline, afterSessions };
}

// ---- stdio ------------------------------------------------------------------
async function probeStdio() {
  const serve = startServe(['--stdio']);
  const replies = [];
  let partial = '';
  serve.child.stdout.removeAllListeners('data');
  serve.child.stdout.on('data', (d) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop();
    for (const l of lines) if (l.trim()) replies.push(JSON.parse(l));
  });
  const write = (data) => new Promise((resolve) => (serve.child.stdin.write(data) ? resolve() : serve.child.stdin.once('drain', resolve)));
  await write(`${initialize('init')}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
  await until('initialize answered', () => replies.some((r) => r.id === 'init'));
  const inputs = badInputs();
  inputs.push(['batch line: initialize next to a call nested 5000 deep', `[${initialize('b-init')},${call('b-deep', `{"m":${nested(5000)}}`)}]`]);
  let answered = 0;
  let controlServed = 0;
  const missed = [];
  for (const [index, [label, line]] of inputs.entries()) {
    const from = replies.length;
    await write(Buffer.isBuffer(line) ? Buffer.concat([line, Buffer.from('\n')]) : `${line.replaceAll('\n', ' ')}\n`);
    // The control request goes right behind it and must be served.
    const ctl = `ctl-${index}`;
    await write(`${call(ctl, '{"message":"control"}')}\n`);
    const served = await until(`control ${ctl}`, () => replies.some((r) => r.id === ctl && r.result), 30_000).then(
      () => true,
      () => false,
    );
    if (served) controlServed += 1;
    const gotError = replies.slice(from).some((r) => r.error && r.id !== ctl);
    if (served && gotError) answered += 1;
    else missed.push(`${label}: ${served ? 'no error answer' : 'control request not served'}`);
  }
  // Memory: one oversized line against this process's baseline.
  const baseline = rss(serve.child.pid);
  let peak = baseline;
  await write('{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"tiny__echo","arguments":{"message":"');
  const chunk = 'a'.repeat(1 << 20);
  for (let i = 0; i < lineMb; i++) {
    await write(chunk);
    if (i % 8 === 0) peak = Math.max(peak, rss(serve.child.pid));
  }
  await write('"}}}\n');
  await until('the oversized line answered', () => replies.some((r) => r.id === 'huge'), 120_000);
  const afterLine = rss(serve.child.pid);
  peak = Math.max(peak, afterLine);
  const alive = serve.child.exitCode === null;
  serve.child.stdin.end();
  await new Promise((resolve) => serve.child.once('exit', resolve));
  return { tried: inputs.length, answered, missed, controlServed, alive, baseline, afterLine, peak };
}

const http = await probeHttp();
const stdio = await probeStdio();
fs.rmSync(root, { recursive: true, force: true });

console.log(`\nLazy MCP reliability probe (dist/cli.js, Node ${process.version}, ${os.cpus().length} CPUs)\n`);
console.log('| transport | bad inputs tried | answered with an error while the control client was served | control calls served | process alive |');
console.log('|---|---|---|---|---|');
console.log(`| HTTP | ${http.tried} | ${http.answered} | ${http.controlServed} | ${http.alive ? 'yes' : 'NO'} |`);
console.log(`| stdio | ${stdio.tried} | ${stdio.answered} | ${stdio.controlServed} | ${stdio.alive ? 'yes' : 'NO'} |`);
console.log('\n| memory (RSS of the lazy-mcp process) | baseline | after | peak |');
console.log('|---|---|---|---|');
console.log(`| ${abandonedSessions.toLocaleString('en')} abandoned HTTP sessions | ${mb(http.baseline)} | ${mb(http.afterSessions)} | |`);
console.log(`| one ${lineMb} MB stdin line | ${mb(stdio.baseline)} | ${mb(stdio.afterLine)} | ${mb(stdio.peak)} |`);
for (const [name, r] of [['HTTP', http], ['stdio', stdio]]) if (r.missed.length) console.log(`\n${name} misses:\n  ${r.missed.join('\n  ')}`);
process.exit(http.answered === http.tried && stdio.answered === stdio.tried && http.alive && stdio.alive ? 0 : 1);
