// Ensures Debian packages are installed (apt-get, as root), only when missing.
// Usage: node scripts/tools/apt.mjs pkg1 pkg2 ...

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ToolError, cliMain, commandExists, runLogged, say, toolsDir } from './common.mjs';

/** Debian packages (from the given list) that are not installed. */
export function missingDebianPackages(pkgs) {
  if (!commandExists('dpkg-query')) return [...pkgs];
  return pkgs.filter((p) => {
    const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' });
    return r.status !== 0 || !/\binstall ok installed\b/.test(r.stdout);
  });
}

/** Installs the missing ones with apt-get (after apt-get update). Returns what was installed. */
export function ensureDebianPackages(pkgs, { purpose } = {}) {
  const missing = missingDebianPackages(pkgs);
  const forWhat = purpose ? ` (needed for ${purpose})` : '';
  if (missing.length === 0) {
    say(`Debian packages present: ${pkgs.join(' ')}`);
    return [];
  }
  const how = `Install them with: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`;
  if (!commandExists('apt-get')) {
    throw new ToolError(`missing system packages ${missing.join(', ')}${forWhat} and apt-get is not available. ${how} (or your distribution's equivalent).`);
  }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new ToolError(`missing Debian packages ${missing.join(', ')}${forWhat}; not root, so not installing them. ${how}`);
  }
  say(`installing Debian packages ${missing.join(' ')}${forWhat} with apt-get`);
  const logFile = path.join(toolsDir(), 'logs', 'apt.log');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  runLogged('apt-get', ['update'], { env, logFile, what: 'apt-get update', hint: how });
  runLogged('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
    env,
    logFile,
    what: `apt-get install ${missing.join(' ')}`,
    hint: how,
  });
  const still = missingDebianPackages(missing);
  if (still.length) throw new ToolError(`apt-get did not install ${still.join(', ')} (see ${logFile}). ${how}`);
  return missing;
}

cliMain(import.meta.url, () => {
  ensureDebianPackages(process.argv.slice(2));
});
