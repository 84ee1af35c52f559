// The real MCP servers the benchmarks run, launched directly (not via npx, which
// roughly doubles memory and adds a second of startup).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePythonServers } from '../../scripts/lib/pythonServers.mjs';
import { loadHostModule } from '../../tests/node/helpers/bundle.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = (name, file) => path.join(repoRoot, 'node_modules', '@modelcontextprotocol', name, 'dist', file);

/** name → stdio launch spec, the six servers of the benchmark. */
export function benchServers() {
  const py = ensurePythonServers();
  const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-bench-'));
  fs.mkdirSync(path.join(sandbox, 'repo'));
  // mcp-server-git refuses a directory that is not a repository.
  execFileSync('git', ['init', '-q', path.join(sandbox, 'repo')]);
  return {
    everything: { command: process.execPath, args: [pkg('server-everything', 'index.js'), 'stdio'] },
    filesystem: { command: process.execPath, args: [pkg('server-filesystem', 'index.js'), sandbox] },
    memory: { command: process.execPath, args: [pkg('server-memory', 'index.js')], env: { MEMORY_FILE_PATH: path.join(sandbox, 'memory.jsonl') } },
    'sequential-thinking': { command: process.execPath, args: [pkg('server-sequential-thinking', 'index.js')] },
    time: { command: py.bin('mcp-server-time'), args: [] },
    git: { command: py.bin('mcp-server-git'), args: ['--repository', path.join(sandbox, 'repo')] },
  };
}

function childrenByParent() {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue; // a zombie holds no memory and is no longer running
      const ppid = Number(fields[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

/** Every live (non-zombie) descendant of a process (Linux /proc), not the process itself. */
export function descendantPids(rootPid) {
  const children = childrenByParent();
  const out = [];
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

// The host's own measurement (what MCP Diagnostics shows), so both count the same way.
const { treeRssBytes: hostTreeRss } = await loadHostModule('host/processTree');

/** Resident memory of a process and all its descendants, in bytes (Linux /proc); 0 when gone. */
export function treeRssBytes(rootPid) {
  return hostTreeRss(rootPid) ?? 0;
}

/** Sum of the resident memory of each listed process alone (no descendants), in bytes. */
export function rssOfPids(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // already gone
    }
  }
  return total;
}

/** CPU time (user + system clock ticks, Linux /proc) of one process; NaN once it is gone. */
export function cpuTicks(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}
