// Shared helpers for the tool installers in scripts/tools/.
// Node built-ins only. Every installer is idempotent: a marker file written after a
// successful install (plus an existence check of the installed binary) makes the
// second run a couple of stat() calls.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The tools dir: $LAZY_MCP_TOOLS_DIR or <repo>/.tools (gitignored). */
export function toolsDir() {
  const dir = process.env.LAZY_MCP_TOOLS_DIR
    ? path.resolve(process.env.LAZY_MCP_TOOLS_DIR)
    : path.join(REPO_ROOT, '.tools');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A failure that carries one user-facing message (no stack trace is shown). */
export class ToolError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToolError';
  }
}

export function say(line) {
  process.stdout.write(`tools: ${line}\n`);
}

/** Marker helpers: the marker holds the exact version that was installed. */
export function markerOk(markerPath, version, ...mustExist) {
  try {
    if (fs.readFileSync(markerPath, 'utf8').trim() !== version) return false;
  } catch {
    return false;
  }
  return mustExist.every((p) => fs.existsSync(p));
}

export function writeMarker(markerPath, version) {
  fs.writeFileSync(markerPath, `${version}\n`);
}

/** npm settings a user may legitimately pass through the environment to our npm installs. */
const KEEP_NPM_ENV = /^npm_config_(registry|cafile|ca|strict_ssl|proxy|https_proxy|http_proxy|noproxy|fetch_retries|fetch_timeout)$/i;

/**
 * The environment for a nested `npm install`, without what an outer npm (e.g. `npm test`) put
 * there: npm reads every npm_config_* variable as configuration, so an inherited
 * npm_config_user_agent ("... node/v20 ...") makes code-server's postinstall believe it runs on
 * Node 20 and refuse, and npm_config_local_prefix/loglevel/nodedir would leak in too.
 */
export function cleanNpmEnv(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^npm_/i.test(k) && !KEEP_NPM_ENV.test(k)) continue;
    out[k] = v;
  }
  return out;
}

/**
 * Runs a command to completion, output captured into logFile (appended).
 * Throws ToolError with `what` + `hint` + the log location on failure.
 */
export function runLogged(cmd, args, { env, cwd, logFile, what, hint, timeoutMs = 30 * 60_000 }) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n$ ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, {
    env: env ?? process.env,
    cwd,
    stdio: ['ignore', fd, fd],
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  fs.closeSync(fd);
  if (r.error?.code === 'ENOENT') {
    throw new ToolError(`${what}: '${cmd}' is not installed. ${hint}`);
  }
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit code ${r.status}`;
    throw new ToolError(`${what} failed (${why}; full output in ${logFile}). ${hint}`);
  }
}

export function commandExists(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * Wraps a CLI entry point: prints ToolError messages as one line and exits 1.
 * Usage at the bottom of a module: `cliMain(import.meta.url, async () => {...})`.
 */
export function cliMain(metaUrl, fn) {
  if (!process.argv[1] || pathToFileURL(path.resolve(process.argv[1])).href !== metaUrl) return;
  Promise.resolve()
    .then(fn)
    .catch((err) => {
      reportAndExit(err);
    });
}

export function reportAndExit(err) {
  if (err instanceof ToolError) {
    process.stderr.write(`tools: ERROR: ${err.message}\n`);
  } else {
    process.stderr.write(`tools: ERROR: unexpected failure: ${err?.message ?? err}\n`);
  }
  process.exit(1);
}
