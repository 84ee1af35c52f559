// Processes left behind by `lazy-mcp serve` (built dist/cli.js), per way of
// ending it: SIGTERM, stdin close, SIGKILL. Each run starts the gateway with
// three servers, all through the counting launcher (a wrapper, like npx):
//   - a connected server that ignores stdin EOF and SIGTERM, with a child that ignores SIGTERM,
//   - a connected real server-everything (after notifications/initialized and a call),
//   - one whose grandchild hangs in initialize (ended mid-catalogue).
// Then it ends the gateway and counts the live processes of the servers' process
// groups 5 s after the gateway is gone (target: 0). Linux (/proc).
//   node bench/orphans.mjs [runs per way, default 3]
import fs from 'node:fs';
import path from 'node:path';
import { cliJs, groupMembers, startCli, tempWorld, writeJson } from '../tests/node/helpers/cliRun.mjs';
import { repoRoot } from '../tests/node/helpers/bundle.mjs';
import { countedServer, spawnedPids, waitFor } from '../tests/node/helpers/realServers.mjs';

const runs = Number(process.argv[2] ?? 3);
const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'servers');
const launcher = path.join(fixtures, 'counting-launcher.mjs');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function once(way) {
  const w = tempWorld('lazy-mcp-orphans-');
  const log = path.join(w.root, 'spawns.log');
  const hangPids = path.join(w.root, 'hang.log');
  const stubborn = path.join(fixtures, 'stubborn-family.mjs');
  writeJson(path.join(w.ws, '.mcp.json'), {
    mcpServers: {
      stubborn: { command: process.execPath, args: [launcher, log, process.execPath, stubborn] },
      everything: countedServer(log, 'server-everything', ['stdio']),
      hangs: { command: process.execPath, args: [launcher, log, process.execPath, stubborn, hangPids, 'hang'], timeout: 600_000 },
    },
  });
  const serve = startCli(['serve', '--stdio', '--cwd', w.ws], { env: w.env, ready: /"id":3[,}]/ });
  const send = (m) => serve.child.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'orphans', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stubborn__noop', arguments: {} } });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'x' } } });
  await serve.started;
  await waitFor('the hanging server', () => fs.existsSync(hangPids) && fs.readFileSync(hangPids, 'utf8').trim() !== '', 30_000);
  const groups = spawnedPids(log).filter((g) => groupMembers(g).length > 0);
  const before = groups.reduce((n, g) => n + groupMembers(g).length, 0);
  if (way === 'SIGTERM') serve.child.kill('SIGTERM');
  else if (way === 'stdin close') serve.child.stdin.end();
  else serve.child.kill('SIGKILL');
  await serve.exited;
  await sleep(5_000);
  const left = groups.flatMap((g) => groupMembers(g));
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL'); // whatever the gateway left, so runs do not add up
    } catch {
      // gone
    }
  }
  fs.rmSync(w.root, { recursive: true, force: true });
  return { groups: groups.length, before, left: left.length };
}

if (!fs.existsSync(cliJs)) throw new Error('build first: node scripts/build.mjs');
const results = [];
for (const way of ['SIGTERM', 'stdin close', 'SIGKILL']) {
  let left = 0;
  let before = 0;
  for (let i = 0; i < runs; i++) {
    const r = await once(way);
    left += r.left;
    before += r.before;
  }
  results.push(`${way}: ${left} left of ${before} server processes in ${runs} runs`);
  console.log(results.at(-1));
}
