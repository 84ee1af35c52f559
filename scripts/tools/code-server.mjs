// Ensures code-server (which bundles a real VS Code server + web workbench) in
// <tools>/code-server, built with the Node 24 from node24.mjs.
// Usage: node scripts/tools/code-server.mjs   (prints server-main.js's path on the last line)

import fs from 'node:fs';
import path from 'node:path';
import { ensureDebianPackages } from './apt.mjs';
import { ensureNode24 } from './node24.mjs';
import { ToolError, cleanNpmEnv, cliMain, commandExists, markerOk, runLogged, say, toolsDir, writeMarker } from './common.mjs';

export const CODE_SERVER_VERSION = '4.139.1';
/** Needed to compile code-server's native modules with node-gyp. */
export const CODE_SERVER_BUILD_DEPS = ['build-essential', 'python3', 'pkg-config', 'libkrb5-dev'];

export function codeServerPaths() {
  const prefix = path.join(toolsDir(), 'code-server');
  const root = path.join(prefix, 'node_modules', 'code-server');
  return {
    prefix,
    root,
    serverMain: path.join(root, 'lib', 'vscode', 'out', 'server-main.js'),
    // a native module compiled by code-server's postinstall: proves the postinstall completed
    nativeProbe: path.join(root, 'lib', 'vscode', 'node_modules', '@vscode', 'spdlog', 'build', 'Release', 'spdlog.node'),
    marker: path.join(prefix, '.lazy-mcp-installed'),
  };
}

/** Returns { root, serverMain, node } (node = the Node 24 binary that must run it). */
export function ensureCodeServer() {
  const p = codeServerPaths();
  const node24 = ensureNode24();
  if (markerOk(p.marker, CODE_SERVER_VERSION, p.serverMain, p.nativeProbe)) {
    say(`code-server ${CODE_SERVER_VERSION} present (${p.root})`);
    return { ...p, node: node24.node };
  }
  ensureDebianPackages(CODE_SERVER_BUILD_DEPS, { purpose: 'building code-server native modules' });
  const hint = `Needs the npm registry and a C/C++ toolchain; by hand: PATH=${node24.bin}:$PATH npm_config_nodedir=${node24.home} npm install --prefix ${p.prefix} code-server@${CODE_SERVER_VERSION}`;
  if (!commandExists('npm')) throw new ToolError(`npm is not on PATH; it is needed to install code-server. ${hint}`);
  say(`installing code-server ${CODE_SERVER_VERSION} into ${p.prefix} (npm + node-gyp, takes about 4-5 minutes, ~630 MB)`);
  const t0 = Date.now();
  const env = {
    ...cleanNpmEnv(),
    PATH: `${node24.bin}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: node24.home,
  };
  runLogged('npm', ['install', '--prefix', p.prefix, '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`], {
    env,
    logFile: path.join(toolsDir(), 'logs', 'code-server.log'),
    what: `npm install code-server@${CODE_SERVER_VERSION}`,
    hint,
  });
  for (const f of [p.serverMain, p.nativeProbe]) {
    if (!fs.existsSync(f)) {
      throw new ToolError(`code-server was installed but ${f} is missing (its postinstall did not run or failed; npm may block install scripts, see npm's allow-scripts). ${hint}`);
    }
  }
  writeMarker(p.marker, CODE_SERVER_VERSION);
  say(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - t0) / 1000)} s`);
  return { ...p, node: node24.node };
}

cliMain(import.meta.url, () => {
  console.log(ensureCodeServer().serverMain);
});
