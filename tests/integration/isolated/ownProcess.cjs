// What the `isolated` phase's windows check of a server process (not a test file itself).
'use strict';

const fs = require('node:fs');

/** Whether `pid` descends from this extension host: the window runs it itself, no owner does. */
function spawnedByThisWindow(pid) {
  for (let p = pid; p > 1; ) {
    if (p === process.pid) return true;
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return false;
    }
  }
  return false;
}

/** What the owner of shared servers would have left in the phase's socket directory (nothing when none started). */
function ownerTraces() {
  const dir = process.env.LAZY_MCP_SOCKET_DIR;
  if (!dir) throw new Error('the runner gave no LAZY_MCP_SOCKET_DIR');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

module.exports = { ownerTraces, spawnedByThisWindow };
