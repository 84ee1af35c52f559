// Launch specs for the real npm MCP servers used by host tests, wrapped in the
// counting launcher so tests can assert how many processes were spawned.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './bundle.mjs';

const launcher = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'counting-launcher.mjs');
const serverJs = (name) => path.join(repoRoot, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

export function countedServer(spawnLog, name, extraArgs = [], env = {}) {
  return { command: process.execPath, args: [launcher, spawnLog, process.execPath, serverJs(name), ...extraArgs], env };
}

export function spawnedPids(spawnLog) {
  if (!fs.existsSync(spawnLog)) return [];
  return fs.readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** SIGKILL every process group a test spawned (logged by the counting launcher): should it fail midway, nothing is left. */
export function killSpawnedGroups(...spawnLogs) {
  for (const pid of spawnLogs.flatMap((log) => spawnedPids(log))) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(what, predicate, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What a test file ends when it ends, however it ends: its `cleanup` steps (last first, each
 * best effort), then every process group its `spawnLogs` name. Pass node:test's `after`.
 */
export function endWhenDone(after) {
  const cleanup = [];
  const spawnLogs = [];
  after(() => {
    for (const c of cleanup.reverse()) {
      try {
        c();
      } catch {
        // best effort
      }
    }
    killSpawnedGroups(...spawnLogs);
  });
  return { cleanup, spawnLogs };
}
