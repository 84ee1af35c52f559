// The world of `npm run bench:day`: one user (one HOME), two projects, eight real MCP servers
// from npm and PyPI — five configured for the user, three in each project's `.mcp.json` — and
// the tool call that exercises each. Python servers come from PyPI into a venv of the tools dir.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { toolsDir } from '../../scripts/lib/paths.mjs';
import { StepError, capture, run } from '../../scripts/lib/run.mjs';
import { repoRoot } from './servers.mjs';

// mcp-server-sqlite's last release needs the `mcp` 1.x API; the others need `mcp` 2.x.
const venvs = {
  'py-day': ['mcp-server-time', 'mcp-server-git', 'mcp-server-fetch'],
  'py-day-sqlite': ['mcp-server-sqlite', 'mcp==1.30.0'],
};

/** `bin(name)` of the PyPI servers, installed once into venvs of the tools dir. */
function pythonServers() {
  const where = {};
  for (const [name, packages] of Object.entries(venvs)) {
    const venv = path.join(toolsDir, name);
    const bin = (p) => path.join(venv, 'bin', p);
    const servers = packages.filter((p) => p.startsWith('mcp-server-'));
    if (!servers.every((p) => fs.existsSync(bin(p)))) {
      if (capture('python3', ['--version']) === null) throw new StepError('python3 is not installed; bench:day needs it for the PyPI servers.');
      console.error(`• installing ${packages.join(', ')} from PyPI into ${venv}`);
      run('python3', ['-m', 'venv', venv]);
      run(bin('pip'), ['install', '--quiet', ...packages]);
    }
    for (const p of servers) where[p] = bin(p);
  }
  return { bin: (p) => where[p] };
}

const npmServer = (name) => path.join(repoRoot, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');

/**
 * A user with two projects under `root`. Returns the launch spec of every server per project
 * (what an eager client spawns), the files written for Lazy MCP, and `calls`: server → the
 * arguments of its cheap, always valid tool call in a project.
 */
export async function makeDayWorld(root, tag) {
  const py = pythonServers();
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  // What mcp-server-fetch fetches: a loopback page (no network; robots.txt ignored by flag).
  const page = http.createServer((_req, res) => res.end('<html><body><p>day bench page</p></body></html>'));
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
  const pageUrl = `http://127.0.0.1:${page.address().port}/`;

  // `tag` in every server's env lets the bench find this run's server processes wherever they
  // run (under a client, or under a shared owner that is not the bench's child).
  const env = (extra = {}) => ({ LAZY_MCP_BENCH_DAY: tag, ...extra });
  const user = {
    memory: { command: process.execPath, args: [npmServer('memory')], env: env({ MEMORY_FILE_PATH: path.join(home, 'memory.jsonl') }) },
    time: { command: py.bin('mcp-server-time'), args: [], env: env() },
    'sequential-thinking': { command: process.execPath, args: [npmServer('sequential-thinking')], env: env() },
    everything: { command: process.execPath, args: [npmServer('everything'), 'stdio'], env: env() },
    fetch: { command: py.bin('mcp-server-fetch'), args: ['--ignore-robots-txt', '--allow-private-ips'], env: env() },
  };
  const projects = ['alpha', 'beta'].map((name) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('git', ['init', '-q', dir]);
    const servers = {
      filesystem: { command: process.execPath, args: [npmServer('filesystem'), dir], env: env() },
      git: { command: py.bin('mcp-server-git'), args: ['--repository', dir], env: env() },
      sqlite: { command: py.bin('mcp-server-sqlite'), args: ['--db-path', path.join(dir, 'app.db')], env: env() },
    };
    fs.writeFileSync(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
    return { name, dir, servers: { ...user, ...servers } };
  });
  fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
  fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), JSON.stringify({ mcpServers: Object.fromEntries(Object.entries(user).map(([k, v]) => [k, { type: 'local', tools: ['*'], ...v }])) }, null, 2));

  const calls = (project) => ({
    memory: ['read_graph', {}],
    time: ['get_current_time', { timezone: 'UTC' }],
    'sequential-thinking': ['sequentialthinking', { thought: 'plan the day', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false }],
    everything: ['echo', { message: 'hello' }],
    fetch: ['fetch', { url: pageUrl, max_length: 200 }],
    filesystem: ['list_directory', { path: project.dir }],
    git: ['git_status', { repo_path: project.dir }],
    sqlite: ['list_tables', {}],
  });
  // server-everything asks the client for its roots when it starts, so a shared process is bound
  // to one workspace's roots (docs/shared-servers.md): one (server, key) pair per project.
  const asksRoots = ['everything'];
  return { home, projects, calls, asksRoots, close: () => page.close() };
}
