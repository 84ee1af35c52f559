// What every `lazy-mcp` command needs from the machine: the core, the discovery
// input (cwd, home, platform, env), the files it keeps (catalogue, token) and a
// stderr logger. Reads the environment; decides nothing about servers.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CoreLoadError, WasmCore, defaultCoreModulePath } from '../core/wasmCore';
import { processEnv } from '../host/config/configSession';
import type { ConfigReport, DiscoveryInput } from '../host/config/configTypes';
import type { LogLevel } from '../host/lazyHost';
import { type ConfigFileArg, type ParsedArgs, UsageError } from './args';
import { CliError } from './cliError';
import { readOrCreateToken } from './tokenFile';

export { CliError };

export interface CliContext {
  core: WasmCore;
  discovery: DiscoveryInput;
  explicitFiles: ConfigFileArg[];
  cwd: string;
  /** `serve` started by another `lazy-mcp serve` (its own config entry): serve nothing. */
  nested?: boolean;
  /** Manage only these servers (host policy `only`): `catalogue SERVER…`, or none when nested. */
  only?: string[];
  /** `--trust-project`: project servers run without approval. */
  trustProject?: boolean;
  log(level: LogLevel, message: string, server?: string): void;
}

export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function createContext(args: ParsedArgs): CliContext {
  const cwd = path.resolve(args.cwd ?? process.cwd());
  if (!isDirectory(cwd)) throw new UsageError(`--cwd ${cwd}: not a directory`);
  const explicitFiles = args.configFiles.map((f) => ({ ...f, path: path.resolve(f.path) }));
  for (const f of explicitFiles) {
    // lstat: a symbolic link loop or a dangling link exists; the read says what it is.
    if (!lexists(f.path)) throw new CliError(`--config ${f.path}: no such file`, 3);
  }
  const log = (level: LogLevel, message: string, server?: string): void => {
    if (!args.verbose && (level === 'debug' || level === 'info')) return;
    say(`lazy-mcp ${level}${server ? ` [${server}]` : ''}: ${message}`);
  };
  const core = new WasmCore(defaultCoreModulePath(__dirname), (level, message) => log(level, message));
  try {
    core.load();
  } catch (err) {
    if (err instanceof CoreLoadError) throw new CliError(err.message, 1);
    throw err;
  }
  const env = processEnv();
  return {
    core,
    cwd,
    explicitFiles,
    trustProject: args.trustProject,
    log,
    discovery: { home: os.homedir(), workspaceFolders: [cwd], platform: process.platform, env },
  };
}

function lexists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function xdgDir(variable: string, fallback: string): string {
  const value = process.env[variable];
  return value && path.isAbsolute(value) ? value : path.join(os.homedir(), fallback);
}

/** `--cache FILE`, else `$XDG_CACHE_HOME/lazy-mcp/catalogue-<hash of cwd>.json`. */
export function cataloguePath(args: ParsedArgs, cwd: string): string {
  if (args.cache) return path.resolve(args.cache);
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 16);
  return path.join(xdgDir('XDG_CACHE_HOME', '.cache'), 'lazy-mcp', `catalogue-${hash}.json`);
}

/**
 * The gateway's bearer token: read from `$XDG_CONFIG_HOME/lazy-mcp/token`, or
 * generated and stored there readable by the user only (so registered clients
 * keep working across restarts). A file others can read is replaced; a link,
 * a directory or a token no client can send is refused (see tokenFile.ts).
 */
export function gatewayToken(ctx: CliContext): { token: string; file: string } {
  return readOrCreateToken(path.join(xdgDir('XDG_CONFIG_HOME', '.config'), 'lazy-mcp', 'token'), ctx.core.limits().gateway);
}

/** Where `auth login` keeps tokens and client registrations: `$XDG_CONFIG_HOME/lazy-mcp/oauth.json` (0600). */
export function signInFile(): string {
  return process.env['LAZY_MCP_OAUTH_FILE'] ?? path.join(xdgDir('XDG_CONFIG_HOME', '.config'), 'lazy-mcp', 'oauth.json');
}

/** Config problems that leave nothing to serve are exit code 3. */
export function requireServers(result: ConfigReport, ctx: CliContext): void {
  if (result.servers.length > 0) return;
  const found = result.files.filter((f) => f.found).map((f) => f.path);
  const errors = result.problems.filter((p) => p.severity === 'error').map((p) => `  ${formatProblem(p)}`);
  throw new CliError(
    [
      `no MCP servers configured for ${ctx.cwd}.`,
      found.length ? `Files read: ${found.join(', ')}` : 'No config file was found (see docs/config-sources.md, or pass --config FILE).',
      ...errors,
    ].join('\n'),
    3,
  );
}

export function formatProblem(p: { severity: string; file: string; line: number; column: number; server?: string | null; message: string }): string {
  const where = p.file ? `${p.file}${p.line ? `:${p.line}:${p.column}` : ''}` : '(input)';
  return `${where}: ${p.severity}${p.server ? ` [${p.server}]` : ''}: ${p.message}`;
}

/** Explicit files the core could not place (no known location and no format) are a config error. */
export function requireExplicitFilesRead(result: ConfigReport, ctx: CliContext): void {
  const read = new Set(result.files.map((f) => f.path));
  const unread = ctx.explicitFiles.filter((f) => !read.has(f.path));
  if (unread.length === 0) return;
  // A path that is not a readable file (directory, FIFO, link loop...): the core's problem says what it is.
  const unreadable = result.problems.filter((p) => p.severity === 'error' && unread.some((f) => f.path === p.file));
  if (unreadable.length > 0) throw new CliError(unreadable.map((p) => `--config ${formatProblem(p)}`).join('\n'), 3);
  throw new CliError(
    unread.map((f) => `--config ${f.path}: could not tell which tool's format this is; add --format (one of claude-code, copilot-cli, open-code, vs-code, claude-desktop)`).join('\n'),
    3,
  );
}
