// Raw MCP over HTTP and stdio for hostile-input tests: bodies are strings (a test
// must not JSON.stringify a 100,000-deep value either), replies are collected
// from plain JSON or an SSE stream.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { cliJs } from './cliRun.mjs';

export const initialize = (id = 1) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`;
export const initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

/** `depth` nested arrays around 1, as text. */
export const nested = (depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/** POST `body` (a string); resolves { status, headers, replies: parsed JSON-RPC messages }. */
export async function post(url, body, { token, session, headers = {}, timeoutMs = 30_000 } = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(session ? { 'Mcp-Session-Id': session } : {}),
      ...headers,
    },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let replies = [];
  if (type.startsWith('text/event-stream')) {
    replies = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
  } else if (type.startsWith('application/json') && text.trim() !== '') {
    const parsed = JSON.parse(text);
    replies = Array.isArray(parsed) ? parsed : [parsed];
  }
  return { status: res.status, headers: res.headers, replies, text };
}

/** A `serve --stdio` process spoken to line by line (`nodeArgs`: Node's own, e.g. `-r` preloads). */
export function stdioServe(args, env, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, cliJs, 'serve', '--trust-project', '--stdio', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const messages = [];
  let stderr = '';
  let partial = '';
  const waiters = new Set();
  child.stdout.on('data', (d) => {
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop();
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line));
    for (const w of waiters) w();
  });
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const send = (line) =>
    new Promise((resolve, reject) => child.stdin.write(`${line}\n`, (err) => (err ? reject(err) : resolve())));
  /** The reply with this id (waits for it). */
  const reply = (id, timeoutMs = 60_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = messages.find((m) => m.id === id && m.method === undefined);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no reply to id ${JSON.stringify(id)} in ${timeoutMs} ms\nstderr: ${stderr}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { child, messages, send, reply, exited, stderr: () => stderr };
}

/** Resident memory of a process in bytes (Linux). */
export function rssOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}
