// Scale of the shared servers (issue 26): 20 `lazy-mcp serve --stdio --shared` sessions hold
// 50 servers at once through one owner, for several rounds (each round every session calls
// every server once, all sessions at the same time). Reports, after each round: failed calls,
// the server processes running, the owner's open fds and RSS, and the sessions' fds and RSS
// together, so growth between rounds shows. Writes bench/results/shared-scale.{json,md}.
// Usage: node bench/shared-scale.mjs [--clients 20] [--servers 50] [--rounds 4]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot, rssOfPids } from './lib/servers.mjs';

const opts = { clients: 20, servers: 50, rounds: 4 };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in opts)) throw new Error(`unknown flag ${process.argv[i]} (known: ${Object.keys(opts).join(', ')})`);
  opts[key] = Number(process.argv[i + 1]);
}
const cli = path.join(repoRoot, 'dist', 'cli.js');
if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-shared-scale-'));
const home = path.join(root, 'home');
fs.mkdirSync(home);
const tiny = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'tiny-server.mjs');
const names = Array.from({ length: opts.servers }, (_, i) => `s${String(i + 1).padStart(2, '0')}`);
fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, { command: process.execPath, args: [tiny, n] }])) }));
const socketDir = path.join(root, 'sock');
const env = { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_CONFIG_HOME: path.join(home, '.config'), LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '500' };
const cache = path.join(root, 'catalogue.json');

async function session(i) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    // A fixed idle time: the rounds must find every server still held.
    args: [cli, 'serve', '--stdio', '--shared', '--fixed-idle', '--cache', cache, '--tool-exposure', 'full', '--cwd', root],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: `scale-${i}`, version: '1' });
  await client.connect(transport);
  return { client, pid: transport.pid, stderr: () => stderr };
}

const fdsOf = (pid) => {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
};
function ownerPid() {
  const log = path.join(socketDir, 'owner-v2.log');
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l)) : [];
  return lines.length ? Number(lines[lines.length - 1].split(' ')[1]) : undefined;
}
/** Server processes: `node tiny-server.mjs NAME` (not the supervisor shells that watch them). */
function serverPids() {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const [exe, script] = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
        return exe === process.execPath && script === tiny;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const t0 = Date.now();
// The first session catalogues the 50 servers (through the owner) and writes the cache; the others start warm.
const first = await session(0);
const listed = (await first.client.listTools()).tools.length;
const rest = await Promise.all(Array.from({ length: opts.clients - 1 }, (_, i) => session(i + 1)));
const sessions = [first, ...rest];
console.log(`${sessions.length} sessions up, ${listed} tools listed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const rounds = [];
const failures = [];
for (let r = 1; r <= opts.rounds; r++) {
  const started = Date.now();
  const outcomes = await Promise.all(
    sessions.flatMap((s, i) =>
      names.map((n) =>
        s.client.callTool({ name: `${n}__echo`, arguments: { message: `r${r} c${i} ${n}` } }).then(
          (res) => {
            const ok = !res.isError && JSON.stringify(res.content).includes(`r${r} c${i} ${n}`);
            if (!ok) failures.push(`${n}: ${JSON.stringify(res.content).slice(0, 300)}`);
            return ok;
          },
          (err) => {
            failures.push(`${n}: ${err.message}`);
            return false;
          },
        ),
      ),
    ),
  );
  const owner = ownerPid();
  const servers = serverPids();
  const row = {
    round: r,
    calls: outcomes.length,
    failed: outcomes.filter((ok) => !ok).length,
    seconds: (Date.now() - started) / 1000,
    serverProcesses: servers.length,
    ownerFds: owner ? fdsOf(owner) : 0,
    ownerRssMb: owner ? Math.round(rssOfPids([owner]) / 1e6) : 0,
    sessionFds: sessions.reduce((sum, s) => sum + fdsOf(s.pid), 0),
    sessionRssMb: Math.round(rssOfPids(sessions.map((s) => s.pid)) / 1e6),
    serverRssMb: Math.round(rssOfPids(servers) / 1e6),
  };
  rounds.push(row);
  console.log(JSON.stringify(row));
  if (process.env.SCALE_STATUS) {
    const { execFileSync } = await import('node:child_process');
    console.log(execFileSync(process.execPath, [cli, 'daemon', 'status'], { env, encoding: 'utf8' }));
  }
}
await Promise.all(sessions.map((s) => s.client.close()));
const deadline = Date.now() + 30_000;
while (Date.now() < deadline && (serverPids().length > 0 || (ownerPid() && fdsOf(ownerPid()) > 0))) await new Promise((r) => setTimeout(r, 200));
const leftRunning = serverPids().length;
const ownerLeft = ownerPid() && fdsOf(ownerPid()) > 0 ? 1 : 0;
const errors = sessions.map((s) => s.stderr()).join('').split('\n').filter((l) => / error/i.test(l));

const result = { date: new Date().toISOString(), opts, listed, rounds, leftRunning, ownerLeft, errorLines: errors.slice(0, 5), failures: [...new Set(failures)].slice(0, 5) };
const outDir = path.join(repoRoot, 'bench', 'results');
fs.writeFileSync(path.join(outDir, 'shared-scale.json'), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Shared servers at scale: \`node bench/shared-scale.mjs\``,
  '',
  `${result.date}: ${opts.clients} \`serve --stdio --shared\` sessions, ${opts.servers} servers (tests/fixtures/servers/tiny-server.mjs), ${opts.rounds} rounds; each round every session calls every server once, all at the same time.`,
  '',
  '| round | calls | failed | seconds | server processes | owner fds | owner RSS | sessions fds | sessions RSS | servers RSS |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rounds.map((r) => `| ${r.round} | ${r.calls} | ${r.failed} | ${r.seconds.toFixed(1)} | ${r.serverProcesses} | ${r.ownerFds} | ${r.ownerRssMb} MB | ${r.sessionFds} | ${r.sessionRssMb} MB | ${r.serverRssMb} MB |`),
  '',
  ...(failures.length ? [`Failed calls, first distinct messages: ${[...new Set(failures)].slice(0, 3).map((f) => `\`${f}\``).join('; ')}`, ''] : []),
  `After the sessions closed: ${leftRunning} server processes and ${ownerLeft} owner left running. Error lines in the sessions' logs: ${errors.length}.`,
  '',
].join('\n');
fs.writeFileSync(path.join(outDir, 'shared-scale.md'), md);
console.log(md);
fs.rmSync(root, { recursive: true, force: true });
process.exit(rounds.some((r) => r.failed > 0) || leftRunning > 0 ? 1 : 0);
