// Runs the built `dist/cli.js` as a subprocess in a throwaway home (HOME,
// XDG_CONFIG_HOME, XDG_CACHE_HOME), so no real user config leaks in.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './bundle.mjs';

export const cliJs = path.join(repoRoot, 'dist', 'cli.js');

export function tempWorld(prefix) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  // Each world its own owner of shared servers (sharing is on by default), so
  // tests running side by side never meet in one owner.
  const runtime = path.join(root, 'run');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: runtime,
    // A test's owner exits soon after its last session instead of lingering 30 s.
    LAZY_MCP_OWNER_LINGER_MS: '2000',
    // A shared process stops 300 ms after its last client left instead of after the 5 s
    // handover grace, so waits for "nothing left" end sooner. A test of the grace itself
    // sets it (or deletes this key for the default).
    LAZY_MCP_HANDOVER_GRACE_MS: '300',
  };
  return { root, home, ws, env };
}

export function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** Run to completion: { code, stdout, stderr }. */
export function runCli(args, { env, cwd, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliJs, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`lazy-mcp ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Start a long-running command; resolves once stdout matched `ready`. */
export function startCli(args, { env, ready, timeoutMs = 60_000 }) {
  const child = spawn(process.execPath, [cliJs, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in ${timeoutMs} ms\nstdout: ${out.stdout}\nstderr: ${out.stderr}`)), timeoutMs);
    const check = () => {
      const m = ready.exec(out.stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready\nstdout: ${out.stdout}\nstderr: ${out.stderr}`));
    });
  });
  return { child, out, exited, started };
}

/** Live (non-zombie) members of a process group, Linux. */
export function groupMembers(pgid) {
  const live = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') live.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return live;
}
