// `npm run bench:day`: a scripted working day of one user — 3 VS Code-like windows and 4 CLI
// sessions over 2 projects, 8 real servers from npm and PyPI, calls spread over the hours by a
// fixed seed — run once per mode, side by side:
//   eager   each client starts every server it has configured and keeps it (today's MCP clients);
//   lazy    each client is its own `lazy-mcp serve --stdio` (started on first use, idle stop);
//   shared  the same, with the per-user shared servers (modes a build does not have are skipped).
// Time is compressed (--hour-seconds real seconds per simulated hour); the idle timeout is scaled
// the same way. Reports peak server processes, processes·hours, peak RSS of all server processes
// and first-call latency; writes bench/results/day.{json,md}.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeDayWorld } from './lib/dayWorld.mjs';
import { repoRoot, rssOfPids } from './lib/servers.mjs';

const opts = { hours: 8, hourSeconds: 12, seed: 7, idleMinutes: 10, modes: 'eager,lazy,shared', out: 'day', windows: 3, clis: 4, windowUses: 4, cliUses: 3, callsScale: 1 };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
  if (!(key in opts)) throw new Error(`unknown flag ${process.argv[i]} (known: ${Object.keys(opts).join(', ')})`);
  opts[key] = typeof opts[key] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const cli = path.join(repoRoot, 'dist', 'cli.js');
if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
const realMs = (hours) => hours * opts.hourSeconds * 1000;
const idleMs = Math.round(realMs(opts.idleMinutes / 60));
// The owner's handover grace (5 s real time) compressed like the idle time, or it would stand
// for 25 simulated minutes at 12 s per hour.
const graceMs = Math.max(1, Math.round(realMs(5 / 3600)));

// --- the day's script (same for every mode) -------------------------------------------------
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function script(world) {
  const rnd = mulberry32(opts.seed);
  const pick = (list, n) => [...list].sort(() => rnd() - 0.5).slice(0, n);
  const clients = [];
  const projectOf = (i, cycle) => cycle[i % cycle.length];
  for (let i = 0; i < opts.windows; i++) clients.push({ id: `window${i + 1}`, project: projectOf(i, ['alpha', 'alpha', 'beta']), from: 0, to: opts.hours, uses: opts.windowUses });
  Array.from({ length: opts.clis }, (_, i) => projectOf(i, ['alpha', 'beta'])).forEach((p, i) => {
    const from = Math.floor(rnd() * (opts.hours - 2) * 4) / 4;
    clients.push({ id: `cli${i + 1}`, project: p, from, to: Math.min(opts.hours, from + 1 + Math.floor(rnd() * 9) / 4), uses: opts.cliUses });
  });
  const events = [];
  for (const c of clients) {
    const project = world.projects.find((p) => p.name === c.project);
    c.servers = pick(Object.keys(project.servers), c.uses);
    events.push({ at: c.from, client: c, kind: 'start' }, { at: c.to, client: c, kind: 'stop' });
    for (let h = Math.floor(c.from); h < c.to; h++) {
      const perHour = Math.round((1 + Math.floor(rnd() * 6)) * opts.callsScale);
      for (let k = 0; k < perHour; k++) {
        const at = h + rnd();
        if (at > c.from + 0.01 && at < c.to - 0.01) events.push({ at, client: c, kind: 'call', server: c.servers[Math.floor(rnd() * c.servers.length)] });
      }
    }
  }
  events.sort((a, b) => a.at - b.at || (a.kind === 'start' ? -1 : 1));
  // A project's servers, and a user server that asks for roots, are one (server, key) pair per
  // project; the other user servers are one each.
  const projectServers = Object.keys(world.projects[0].servers).filter((s) => world.asksRoots.includes(s) || world.projects.some((p) => p.servers[s] !== world.projects[0].servers[s]));
  const pairs = new Set(events.filter((e) => e.kind === 'call').map((e) => (projectServers.includes(e.server) ? `${e.server}@${e.client.project}` : e.server)));
  return { clients, events, pairs, overlap: scriptOverlap(clients, events, projectServers, opts.idleMinutes / 60) };
}

// What the script itself allows, before any process runs: a client holds a server from each call
// until the idle time after it (merged), lazily; one process per pair holds the union of its
// clients' spans. Their ratio is the best processes·hours sharing can reach with this idle time
// (start-up and stop time left out); with an endless idle time a client holds a server from its
// first call to its session's end.
function scriptOverlap(clients, events, projectServers, idleHours) {
  const merge = (spans) => {
    let total = 0;
    let end = -Infinity;
    for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
      if (b <= end) continue;
      total += b - Math.max(a, end);
      end = b;
    }
    return total;
  };
  const calls = events.filter((e) => e.kind === 'call');
  const pairOfCall = (e) => (projectServers.includes(e.server) ? `${e.server}@${e.client.project}` : e.server);
  const profile = (span) => {
    const byClient = new Map();
    const byPair = new Map();
    for (const e of calls) {
      const s = span(e);
      const k = `${e.client.id}/${e.server}`;
      byClient.set(k, [...(byClient.get(k) ?? []), s]);
      byPair.set(pairOfCall(e), [...(byPair.get(pairOfCall(e)) ?? []), s]);
    }
    const lazy = [...byClient.values()].reduce((t, spans) => t + merge(spans), 0);
    const shared = [...byPair.values()].reduce((t, spans) => t + merge(spans), 0);
    return { lazyHours: lazy, sharedHours: shared, ratio: shared / lazy };
  };
  const firstCall = new Map();
  for (const e of calls) if (!firstCall.has(`${e.client.id}/${e.server}`)) firstCall.set(`${e.client.id}/${e.server}`, e.at);
  return {
    calls: calls.length,
    clientServerUses: firstCall.size,
    atIdle: profile((e) => [e.at, Math.min(e.client.to, e.at + idleHours)]),
    endlessIdle: profile((e) => [firstCall.get(`${e.client.id}/${e.server}`), e.client.to]),
  };
}

// --- measuring: this run's server processes, wherever they run -------------------------------
function serverPids(tag) {
  return serverProcs(tag).map((p) => p.pid); // the watchers too: none may be left running
}

/** This run's live server processes: pid and command line. */
function serverProcs(tag) {
  const procs = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!env.includes(`LAZY_MCP_BENCH_DAY=${tag}\0`)) continue;
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1');
      if (!/@modelcontextprotocol\/server-|py-day(-sqlite)?\/bin\/mcp-server-/.test(cmd)) continue;
      // Lazy MCP's supervisor watcher (a ~1 MB `sh` per server, supervisor.ts) carries the
      // server's command line too: counted apart, not as a second server process.
      const watcher = cmd.startsWith('/bin/sh\0-c\0') && cmd.includes('\0lazy-mcp-supervisor\0');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      procs.push({ pid: Number(entry), cmd, watcher });
    } catch {
      // gone while we looked, or not ours to read
    }
  }
  return procs;
}

/** The (server, key) pair a process serves: `memory`, or `filesystem@alpha` for a project's. */
function pairOf(cmd, world) {
  const server = cmd.match(/server-([a-z-]+)/)?.[1] ?? '?';
  const project = world.projects.find((p) => cmd.includes(p.dir));
  return project ? `${server}@${project.name}` : server;
}

// Every 100 ms: how many processes of each pair run. Per pair that gives processes·hours, the
// hours at least one ran (what one process per pair, stopped on the same idle rule, would cost),
// the most at once, and the processes started; plus what ran at the peak.
function sampler(tag, world) {
  const s = { peak: 0, peakRss: 0, procHours: 0, last: Date.now(), pairs: {}, atPeak: {}, peakPairsAlive: 0, peakWatchers: 0, peakWatcherRss: 0 };
  const tick = () => {
    const now = Date.now();
    const dt = (now - s.last) / realMs(1);
    const all = serverProcs(tag);
    const procs = all.filter((p) => !p.watcher);
    const watchers = all.filter((p) => p.watcher).map((p) => p.pid);
    s.peakWatchers = Math.max(s.peakWatchers, watchers.length);
    s.peakWatcherRss = Math.max(s.peakWatcherRss, rssOfPids(watchers));
    const pids = procs.map((p) => p.pid);
    const count = {};
    for (const p of procs) {
      const pair = pairOf(p.cmd, world);
      count[pair] = (count[pair] ?? 0) + 1;
      const e = (s.pairs[pair] ??= { procHours: 0, heldHours: 0, maxAtOnce: 0, pids: new Set() });
      e.pids.add(p.pid);
    }
    for (const [pair, n] of Object.entries(count)) {
      const e = s.pairs[pair];
      e.procHours += n * dt;
      e.heldHours += dt;
      e.maxAtOnce = Math.max(e.maxAtOnce, n);
    }
    s.procHours += pids.length * dt;
    s.last = now;
    s.peakPairsAlive = Math.max(s.peakPairsAlive, Object.keys(count).length);
    if (pids.length > s.peak) (s.peak = pids.length), (s.atPeak = count);
    s.peakRss = Math.max(s.peakRss, rssOfPids(pids));
  };
  const timer = setInterval(tick, 100);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      const pairs = Object.fromEntries(Object.entries(s.pairs).sort().map(([k, e]) => [k, { procHours: e.procHours, heldHours: e.heldHours, maxAtOnce: e.maxAtOnce, starts: e.pids.size }]));
      return { ...s, pairs };
    },
  };
}

// --- the clients of each mode ----------------------------------------------------------------
function baseEnv(world, runtimeDir) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: world.home,
    XDG_CONFIG_HOME: path.join(world.home, '.config'),
    XDG_CACHE_HOME: path.join(world.home, '.cache'),
    XDG_RUNTIME_DIR: runtimeDir,
    LAZY_MCP_TOOLS_DIR: process.env.LAZY_MCP_TOOLS_DIR ?? '',
    LAZY_MCP_HANDOVER_GRACE_MS: String(graceMs),
  };
}

function serveArgs(mode) {
  const args = [cli, 'serve', '--stdio', '--trust-project', '--tool-exposure', 'full', '--idle-timeout', String(idleMs)];
  if (supportsShared) args.push(mode === 'shared' ? '--shared' : '--isolated');
  return args;
}

async function connect(command, args, env, cwd) {
  const client = new Client({ name: 'bench-day', version: '1.0.0' });
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
  const errors = [];
  transport.stderr?.on('data', (d) => errors.push(String(d)));
  client.onclose = () => process.env.BENCH_DAY_DEBUG && console.error(`closed: ${command} ${args.join(' ')}: ${errors.join('').slice(-400)}`);
  await client.connect(transport);
  return client;
}

const makeClient = {
  async eager(c, world, env) {
    const project = world.projects.find((p) => p.name === c.project);
    const entries = await Promise.all(Object.entries(project.servers).map(async ([name, s]) => [name, await connect(s.command, s.args, { ...env, ...s.env }, project.dir)]));
    const byName = Object.fromEntries(entries);
    return {
      call: (server, [tool, args]) => byName[server].callTool({ name: tool, arguments: args }),
      close: () => Promise.all(entries.map(([, client]) => client.close())),
    };
  },
  async lazy(c, world, env, mode) {
    const project = world.projects.find((p) => p.name === c.project);
    const client = await connect(process.execPath, serveArgs(mode), env, project.dir);
    return {
      call: (server, [tool, args]) => client.callTool({ name: `${server}__${tool}`, arguments: args }),
      close: () => client.close(),
    };
  },
};
makeClient.shared = makeClient.lazy;

const supportsShared = /--shared/.test(spawnSync(process.execPath, [cli, 'serve', '--help'], { encoding: 'utf8' }).stdout ?? '');

async function runMode(mode) {
  const tag = `${mode}-${process.pid}-${Date.now()}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `lazy-mcp-day-${mode}-`));
  const runtimeDir = path.join(root, 'run');
  fs.mkdirSync(runtimeDir, { mode: 0o700 });
  const world = await makeDayWorld(root, tag);
  const env = baseEnv(world, runtimeDir);
  const { clients, events, pairs, overlap } = script(world);
  if (mode !== 'eager') {
    // Yesterday's catalogue: lazy users start warm (cataloguing is a one-off, not part of a day).
    for (const p of world.projects) {
      const r = spawnSync(process.execPath, [cli, 'catalogue', '--trust-project'], { cwd: p.dir, env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`catalogue in ${p.dir} failed: ${r.stderr}`);
    }
    await waitGone(tag, 15_000);
  }
  const live = new Map();
  const inFlight = new Map();
  const first = [];
  const seen = new Set();
  const outcome = { ok: 0, failed: 0, errors: [] };
  const started = Date.now();
  const sample = sampler(tag, world);
  const pending = [];
  for (const e of events) {
    const wait = started + realMs(e.at) - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (e.kind === 'start') live.set(e.client.id, makeClient[mode](e.client, world, env, mode));
    else if (e.kind === 'stop') {
      // A session ends after its calls answered (a slow eager start can push them past its end).
      const c = live.get(e.client.id);
      live.delete(e.client.id);
      const calls = inFlight.get(e.client.id) ?? [];
      pending.push(Promise.allSettled(calls).then(() => c).then((x) => x.close()).catch(() => {}));
    } else {
      const c = live.get(e.client.id);
      const project = world.projects.find((p) => p.name === e.client.project);
      const key = `${e.client.id}/${e.server}`;
      const call = c.then(async (x) => {
          const t0 = performance.now();
          const res = await x.call(e.server, world.calls(project)[e.server]);
          if (res.isError) throw new Error(`${e.server}: ${JSON.stringify(res.content).slice(0, 200)}`);
          if (!seen.has(key)) (seen.add(key), first.push(performance.now() - t0));
          outcome.ok++;
        }).catch((err) => {
          outcome.failed++;
          if (outcome.errors.length < 5) outcome.errors.push(`${key}: ${err.message}`);
        });
      pending.push(call);
      inFlight.set(e.client.id, [...(inFlight.get(e.client.id) ?? []), call]);
    }
  }
  await Promise.all(pending);
  const measured = sample.stop();
  if (mode === 'shared') spawnSync(process.execPath, [cli, 'daemon', 'stop'], { env, encoding: 'utf8' });
  const leftover = await waitGone(tag, 15_000);
  world.close();
  fs.rmSync(root, { recursive: true, force: true });
  first.sort((a, b) => a - b);
  const q = (p) => (first.length ? first[Math.min(first.length - 1, Math.floor(p * first.length))] : NaN);
  return {
    mode,
    clients: clients.length,
    distinctPairs: pairs.size,
    peakProcesses: measured.peak,
    processHours: measured.procHours,
    peakRssMB: measured.peakRss / 2 ** 20,
    firstCallMsMedian: q(0.5),
    firstCallMsP90: q(0.9),
    calls: outcome,
    leftover,
    peakPairsAlive: measured.peakPairsAlive,
    supervisorWatchers: { peak: measured.peakWatchers, peakRssMB: measured.peakWatcherRss / 2 ** 20 },
    atPeak: measured.atPeak,
    pairs: measured.pairs,
    scriptOverlap: overlap,
  };
}

// Why the ratios are what they are: what the script lets sharing save, what ran at the peak, and
// per (server, key) pair the processes·hours, hours with at least one process, most at once and
// starts of each lazy mode.
function profileLines(results) {
  const o = results[0]?.scriptOverlap;
  if (!o) return [];
  const lazyModes = results.filter((r) => r.mode !== 'eager');
  const out = [
    '',
    `Profile. The script makes ${o.calls} calls over ${o.clientServerUses} (client, server) uses. A client holds a server from a call to the idle time after it; one process per pair holds the union of its clients' spans.`,
    `- With the ${opts.idleMinutes} min idle time: lazy per client ${fmt(o.atIdle.lazyHours)} h of holds, one process per pair ${fmt(o.atIdle.sharedHours)} h: sharing can reach ${fmt(o.atIdle.ratio, 2)}× processes·hours at best (start and stop time left out).`,
    `- With an endless idle time (each client holds a server from its first call to its session's end): ${fmt(o.endlessIdle.lazyHours)} h and ${fmt(o.endlessIdle.sharedHours)} h, ${fmt(o.endlessIdle.ratio, 2)}×.`,
    ...lazyModes.map((r) => `- ${r.mode} at its peak: ${r.peakProcesses} processes of ${Object.keys(r.atPeak).length} pairs (${Object.entries(r.atPeak).map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ')}); besides them up to ${r.supervisorWatchers.peak} supervisor watchers (\`sh\`, ${fmt(r.supervisorWatchers.peakRssMB, 0)} MB together), not counted above.`),
  ];
  const pairs = [...new Set(lazyModes.flatMap((r) => Object.keys(r.pairs)))].sort();
  out.push('', `| pair | ${lazyModes.map((r) => `${r.mode}: proc·h / hours running / most at once / starts`).join(' | ')} |`, `|---|${lazyModes.map(() => '---').join('|')}|`);
  for (const k of pairs) {
    out.push(`| ${k} | ${lazyModes.map((r) => (r.pairs[k] ? `${fmt(r.pairs[k].procHours, 2)} / ${fmt(r.pairs[k].heldHours, 2)} / ${r.pairs[k].maxAtOnce} / ${r.pairs[k].starts}` : '—')).join(' | ')} |`);
  }
  out.push('', '`everything` asks for roots, so its shared processes are one per project (two at once is two keys).');
  return out;
}

async function waitGone(tag, ms) {
  const deadline = Date.now() + ms;
  while (serverPids(tag).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  return serverPids(tag).length;
}

if (opts.modes === 'script') {
  // Only the script's own overlap (no process runs): for trying other client mixes and idle times.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-day-script-'));
  const world = await makeDayWorld(root, 'script');
  const { pairs, overlap } = script(world);
  world.close();
  fs.rmSync(root, { recursive: true, force: true });
  console.log(JSON.stringify({ distinctPairs: pairs.size, ...overlap }));
  process.exit(0);
}

const results = [];
for (const mode of opts.modes.split(',')) {
  if (mode === 'shared' && !supportsShared) {
    console.log('shared: this build has no shared servers (serve --shared is unknown); skipped');
    continue;
  }
  console.log(`• ${mode}: ${opts.hours} h at ${opts.hourSeconds} s per hour, idle timeout ${opts.idleMinutes} min (${idleMs} ms real), handover grace 5 s (${graceMs} ms real)`);
  const r = await runMode(mode);
  console.log(`  ${JSON.stringify(r)}`);
  results.push(r);
}

const lazy = results.find((r) => r.mode === 'lazy');
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const lines = [
  `Scripted day: ${opts.hours} simulated hours (${opts.hourSeconds} s each), seed ${opts.seed}, ${opts.windows} windows + ${opts.clis} CLI sessions (using ${opts.windowUses} and ${opts.cliUses} servers, calls ×${opts.callsScale}), 2 projects, 8 servers (5 user, 3 per project), idle timeout ${opts.idleMinutes} min and the owner's 5 s handover grace scaled.`,
  '',
  '| mode | peak server processes | processes·hours | peak RSS of servers | first call median / p90 | calls ok / failed | left running |',
  '|---|---|---|---|---|---|---|',
  ...results.map((r) => {
    const ratio = (v, base) => (lazy && r !== lazy && base ? ` (${fmt(v / base, 2)}×)` : '');
    return `| ${r.mode} | ${r.peakProcesses} (distinct server·key pairs used: ${r.distinctPairs}) | ${fmt(r.processHours)}${ratio(r.processHours, lazy?.processHours)} | ${fmt(r.peakRssMB, 0)} MB${ratio(r.peakRssMB, lazy?.peakRssMB)} | ${fmt(r.firstCallMsMedian, 0)} / ${fmt(r.firstCallMsP90, 0)} ms | ${r.calls.ok} / ${r.calls.failed} | ${r.leftover} |`;
  }),
];
lines.push(...profileLines(results));
console.log(`\n${lines.join('\n')}`);
for (const r of results) for (const e of r.calls.errors) console.log(`  ${r.mode}: ${e}`);
fs.mkdirSync(path.join(repoRoot, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', `${opts.out}.json`), JSON.stringify({ opts, results }, null, 2));
fs.writeFileSync(path.join(repoRoot, 'bench', 'results', `${opts.out}.md`), `${lines.join('\n')}\n`);
process.exit(results.some((r) => r.leftover) ? 1 : 0);
