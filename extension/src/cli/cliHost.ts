// The shared LazyHost, set up the way the CLI commands use it, plus the few
// ways a command waits on it. All decisions stay in the engine.
import * as fs from 'node:fs';
import type { ConfigReport, ConfigSources, ExplicitFile, HostPolicy } from '../host/config/configTypes';
import type { DiagnosticsSnapshot, ServerDiagnostics } from '../host/snapshotTypes';
import { LazyHost, type LazyHostOptions } from '../host/lazyHost';
import { BlobFile } from '../host/storage/blobFile';
import { SharedCatalogueDir, defaultSharedCatalogueDir } from '../host/storage/sharedCatalogueDir';
import { approvedDefinitionsPath } from '../host/storage/approvedDefinitionsFile';
import { AuthHost } from '../host/auth/authHost';
import { FileTokenStore } from '../host/auth/fileTokenStore';
import { cliBrowser } from './cliBrowser';
import { UsageError } from './args';
import { requireExplicitFilesRead, requireServers, signInFile, type CliContext } from './cliContext';

/** One server of the engine's snapshot (generated from engine/diagnostics_snapshot.rs). */
export type ServerRow = ServerDiagnostics;
export type Snapshot = DiagnosticsSnapshot;

/** The error a FAILED state carries, if any. */
export function stateError(s: ServerRow): string | undefined {
  return 'error' in s.state ? s.state.error : undefined;
}

/**
 * The CLI's host policy, stated rather than skipped: it manages every configured
 * server (no workspace trust, no MCP client loading files of its own) except
 * project servers not approved yet (`--trust-project`: those too), or only
 * the servers named on the command line (`[]`: none, for a nested `serve`).
 */
export function cliPolicy(only?: readonly string[], trustProject = false): HostPolicy {
  return { workspaceTrusted: true, vscodeNative: 'alsoManage', only: only ? [...only] : null, trustProjectServers: trustProject, approvalVia: 'cli' };
}

/** Where the CLI's config comes from and its policy, for the core's config load. */
export function cliSources(ctx: CliContext): ConfigSources {
  // args.ts accepted only known format names.
  const explicitFiles = ctx.explicitFiles.map((f) => ({ path: f.path, format: (f.format ?? null) as ExplicitFile['format'] }));
  return { discovery: ctx.discovery, explicitFiles, policy: cliPolicy(ctx.only, ctx.trustProject) };
}

/**
 * Set in the environment of every server a `lazy-mcp` command starts. A client
 * config that registers lazy-mcp is also one of the files lazy-mcp reads, so it
 * finds its own entry: a `serve` that sees this marker serves no servers instead
 * of starting everything again (recursively).
 */
export const nestedMarker = 'LAZY_MCP_SERVE_PID';

export function createHost(
  ctx: CliContext,
  catalogueFile: string,
  extra: Partial<Pick<LazyHostOptions, 'gateway' | 'deliverToClient' | 'onClientSettled' | 'settings' | 'onChange' | 'watchConfig' | 'sharedOwner'>>,
): LazyHost {
  process.env[nestedMarker] = String(process.pid);
  const sources = cliSources(ctx);
  return new LazyHost({
    core: ctx.core,
    discovery: sources.discovery,
    explicitFiles: sources.explicitFiles,
    policy: sources.policy,
    store: new BlobFile(catalogueFile),
    // The core reads and writes it only for shared servers (`--shared`).
    sharedCatalogue: new SharedCatalogueDir(defaultSharedCatalogueDir(), (level, message) => ctx.log(level, message)),
    log: (level, message, server) => ctx.log(level, message, server),
    measureRss: linuxRss,
    auth: new AuthHost({ core: ctx.core, store: new FileTokenStore(signInFile(), ctx.core.limits().signIn.tokenStoreMaxBytes), browser: cliBrowser }),
    approvedDefinitionsFile: approvedDefinitionsPath(),
    // The CLI has no prompt: a call that needs sign-in fails at once naming `lazy-mcp auth login`.
    ...extra,
    settings: { ...(extra.settings ?? {}), signInMayWait: false },
  });
}

export function snapshotOf(host: LazyHost): Snapshot {
  return host.snapshot() as Snapshot;
}

/**
 * Resolve once none of `names` (all when undefined) is cataloguing or connecting: checked
 * again on each of the core's `catalogueSettled` effects (`LazyHost.whenSettled`), no polling.
 */
export async function settled(host: LazyHost, names?: ReadonlySet<string>): Promise<Snapshot> {
  for (;;) {
    const snap = snapshotOf(host);
    const busy = snap.servers.some((s) => (!names || names.has(s.name)) && s.progress === 'busy');
    if (!busy) return snap;
    await host.whenSettled();
  }
}

/**
 * The first catalogue: resolves true once no server is busy (the core's `catalogueSettled`),
 * false after the core's `firstCatalogueWaitMs` (then lists fill in later, announced by list_changed).
 */
export async function firstCatalogue(host: LazyHost, ctx: CliContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ctx.core.limits().firstCatalogueWaitMs)));
  const done = await Promise.race([host.whenSettled().then(() => true), timeout]);
  clearTimeout(timer);
  return done;
}

/**
 * The loaded config, checked for a command that names servers: every explicit file
 * was read, some server is configured, and each named server exists.
 */
export function checkedConfig(host: LazyHost, ctx: CliContext, named: readonly string[]): ConfigReport {
  const config = configOf(host);
  requireExplicitFilesRead(config, ctx);
  requireServers(config, ctx);
  const unknown = named.filter((n) => !config.servers.some((s) => s.name === n));
  if (unknown.length) {
    throw new UsageError(`no configured server named ${unknown.join(', ')}; configured: ${config.servers.map((s) => s.name).join(', ')}`);
  }
  return config;
}

export function configOf(host: LazyHost): ConfigReport {
  const result = host.configResult;
  if (!result) throw new Error('the config was not loaded');
  return result;
}

/** Resident memory of one process (Linux /proc), for Diagnostics. */
function linuxRss(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const statm = fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
    const pages = Number(statm[1]);
    return Number.isFinite(pages) ? pages * 4096 : undefined;
  } catch {
    return undefined;
  }
}
