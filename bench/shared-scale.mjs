// Scale of the shared servers (issue 26): 20 `lazy-mcp serve --stdio --shared` sessions hold
// 50 servers at once through one owner, for several rounds (each round every session calls
// every server once, all sessions at the same time). Reports, after each round: failed calls,
// the server processes running, the owner's open fds and RSS, and the sessions' fds and RSS
// together, so growth between rounds shows. Then, in the sessions and the owner, a full GC and
// the split of their memory (bench/lib/memory-probe.cjs: JS heap used, memory outside the heap,
// WASM linear memory), which tells a leak (grows every round) from a plateau. Writes
// bench/results/shared-scale.{json,md}.
// Usage: node bench/shared-scale.mjs [--clients 20] [--servers 50] [--rounds 4] [--out shared-scale]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot, rssOfPids } from './lib/servers.mjs';

const opts = { clients: 20, servers: 50, rounds: 4, out: 'shared-scale' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in opts)) throw new Error(`unknown flag ${process.argv[i]} (known: ${Object.keys(opts).join(', ')})`);
  opts[key] = key === 'out' ? process.argv[i + 1] : Number(process.argv[i + 1]);
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
// Every process of the run loads the probe; only the sessions and the owner are asked.
const probeDir = path.join(root, 'probe');
fs.mkdirSync(probeDir);
env.NODE_OPTIONS = `--expose-gc --require ${JSON.stringify(path.join(repoRoot, 'bench', 'lib', 'memory-probe.cjs'))}`;
env.LAZY_MCP_MEMORY_PROBE_DIR = probeDir;

/** After a full GC in each of `pids`: the sums of their heap used, memory outside the heap, WASM memory and RSS. */
async function probe(all) {
  // Only a process that loaded the probe: SIGUSR2 would end any other.
  const pids = all.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`LAZY_MCP_MEMORY_PROBE_DIR=${probeDir}`);
    } catch {
      return false;
    }
  });
  if (!pids.length) return undefined;
  for (const pid of pids) {
    fs.rmSync(path.join(probeDir, `${pid}.json`), { force: true });
    process.kill(pid, 'SIGUSR2');
  }
  const read = (pid) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(probeDir, `${pid}.json`), 'utf8'));
    } catch {
      return undefined;
    }
  };
  const deadline = Date.now() + 30_000;
  let reports = pids.map(read);
  while (reports.some((r) => !r) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    reports = pids.map(read);
  }
  if (reports.some((r) => !r || !r.gc)) throw new Error(`memory probe: no report (or no gc) from ${pids.filter((_, i) => !reports[i]?.gc).join(', ')}`);
  const sum = (f) => Math.round(reports.reduce((n, r) => n + f(r), 0) / 1e6);
  return {
    heapUsedMb: sum((r) => r.heapUsed),
    heapTotalMb: sum((r) => r.heapTotal),
    externalMb: sum((r) => r.external),
    wasmMb: sum((r) => r.wasm.reduce((a, b) => a + b, 0)),
    rssAfterGcMb: sum((r) => r.rss),
    processes: pids.length,
    heapUsedBytes: reports.reduce((n, r) => n + r.heapUsed, 0),
  };
}

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
  row.sessions = await probe(sessions.map((s) => s.pid));
  row.owner = owner ? await probe([owner]) : undefined;
  row.servers = await probe(servers);
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
fs.writeFileSync(path.join(outDir, `${opts.out}.json`), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Shared servers at scale: \`node bench/shared-scale.mjs ${process.argv.slice(2).join(' ')}\``.replace(/ `$/, '`'),
  '',
  `${result.date}: ${opts.clients} \`serve --stdio --shared\` sessions, ${opts.servers} servers (tests/fixtures/servers/tiny-server.mjs), ${opts.rounds} rounds; each round every session calls every server once, all at the same time.`,
  '',
  '| round | calls | failed | seconds | server processes | owner fds | owner RSS | sessions fds | sessions RSS | servers RSS |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rounds.map((r) => `| ${r.round} | ${r.calls} | ${r.failed} | ${r.seconds.toFixed(1)} | ${r.serverProcesses} | ${r.ownerFds} | ${r.ownerRssMb} MB | ${r.sessionFds} | ${r.sessionRssMb} MB | ${r.serverRssMb} MB |`),
  '',
  'After each round, a full GC in every session, in the owner and in the servers (bench/lib/memory-probe.cjs), then their memory summed: JS heap used / allocated, memory outside the JS heap (`external`: buffers, the embedding table\'s bytes), the WASM core\'s linear memory, and RSS after the GC.',
  '',
  '| round | sessions heap used | sessions heap allocated | sessions external | sessions WASM memory | sessions RSS after GC | owner heap used | owner external | owner WASM memory | owner RSS after GC | servers heap used | servers RSS after GC |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rounds.map((r) => `| ${r.round} | ${r.sessions.heapUsedMb} MB | ${r.sessions.heapTotalMb} MB | ${r.sessions.externalMb} MB | ${r.sessions.wasmMb} MB | ${r.sessions.rssAfterGcMb} MB | ${r.owner?.heapUsedMb ?? '–'} MB | ${r.owner?.externalMb ?? '–'} MB | ${r.owner?.wasmMb ?? '–'} MB | ${r.owner?.rssAfterGcMb ?? '–'} MB | ${r.servers?.heapUsedMb ?? '–'} MB | ${r.servers?.rssAfterGcMb ?? '–'} MB |`),
  '',
  ...(failures.length ? [`Failed calls, first distinct messages: ${[...new Set(failures)].slice(0, 3).map((f) => `\`${f}\``).join('; ')}`, ''] : []),
  `After the sessions closed: ${leftRunning} server processes and ${ownerLeft} owner left running. Error lines in the sessions' logs: ${errors.length}.`,
  '',
].join('\n');
fs.writeFileSync(path.join(outDir, `${opts.out}.md`), md);
console.log(md);
fs.rmSync(root, { recursive: true, force: true });
process.exit(rounds.some((r) => r.failed > 0) || leftRunning > 0 ? 1 : 0);
