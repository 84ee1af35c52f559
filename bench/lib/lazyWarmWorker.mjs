// One lazy warm start in a fresh Node process, so the number includes a cold
// JIT and a fresh WASM compile + instantiate, as when an editor activates the
// extension. argv[2] is JSON {workspace, catalogueFile, settings}; prints one
// JSON line on stdout.
import { createRequire } from 'node:module';
import { descendantPids, rssOfPids } from './servers.mjs';
import { lazyStart, requireBundledHost, spawnCounter } from './lazy.mjs';

// servers.mjs bundles a host module with esbuild when imported, which leaves esbuild's
// service process running: stop it, and count only the spawns of the start itself, so
// the start's spawns and processes are the product's.
await createRequire(import.meta.url)('esbuild').stop();
const spawnsBefore = spawnCounter.count;

const { workspace, catalogueFile, settings } = JSON.parse(process.argv[2]);
const t0 = performance.now();
const mods = requireBundledHost();
const moduleLoadMs = performance.now() - t0;
const run = await lazyStart(mods, workspace, catalogueFile, settings, { timeoutMs: 10_000 });
try {
  const pids = descendantPids(process.pid);
  const out = {
    moduleLoadMs,
    ms: run.ms,
    phases: run.phases,
    tools: run.tools.length,
    processes: pids.length,
    spawns: spawnCounter.count - spawnsBefore,
    serverRssBytes: rssOfPids(pids),
    hostRssBytes: process.memoryUsage().rss,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
} finally {
  await run.close();
}
