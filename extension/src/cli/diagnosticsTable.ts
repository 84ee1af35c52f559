// `lazy-mcp diagnostics`: the engine's snapshot as a terminal table (or as JSON).
import { count } from '../host/wording';
import type { ParsedArgs } from './args';
import { askOwner, cliOwnerSpec, ownerStatusLines } from './daemonCommand';
import { ownerSocketPath } from '../host/shared/socketDir';
import { type CliContext, cataloguePath, requireExplicitFilesRead, requireServers } from './cliContext';
import { type ServerRow, type Snapshot, configOf, createHost, settled, stateError } from './cliHost';

export async function diagnosticsCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const host = createHost(ctx, cataloguePath(args, ctx.cwd), {});
  try {
    await host.start();
    requireExplicitFilesRead(configOf(host), ctx);
    requireServers(configOf(host), ctx);
    const snap = await settled(host);
    // The per-user owner's shared servers (what every client of this user shares), when sharing is on.
    const spec = cliOwnerSpec(args, ctx);
    const owner = spec ? await askOwner(spec.dir, spec.protocol, spec.maxFrameBytes) : undefined;
    if (args.json) {
      process.stdout.write(`${JSON.stringify(owner ? { ...snap, sharedOwner: owner } : snap, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(renderTable(snap));
    if (spec && owner) process.stdout.write(`\nShared servers: ${ownerStatusLines(owner, ownerSocketPath(spec.dir, spec.protocol), spec.protocol).join('\n')}\n`);
    return 0;
  } finally {
    await host.stop();
  }
}

function mb(bytes: number | null | undefined): string {
  return bytes == null ? '' : `${Math.round(bytes / 1_048_576)} MB`;
}

export function renderTable(snap: Snapshot): string {
  const header = ['SERVER', 'STATE', 'TRANSPORT', 'PROTOCOL', 'TOOLS', 'PROMPTS', 'RESOURCES', 'PID', 'RSS', 'CALLS', 'SOURCE'];
  const rows = snap.servers.map((s: ServerRow) => [
    s.name,
    s.stateLabel,
    s.transport,
    // The era the catalogue records and the version spoken: `modern 2026-07-28`, `legacy 2025-11-25`.
    s.era == null ? '' : `${s.era} ${s.protocolVersion ?? ''}`.trimEnd(),
    String(s.tools),
    String(s.prompts),
    String(s.resources + s.resourceTemplates),
    s.pid == null ? '' : String(s.pid),
    mb(s.rssBytes),
    String(s.callsServed),
    // As MCP Diagnostics names it (relative to the working directory, or ~/…), with the column.
    `${s.sourceLabel}:${s.source.column}`,
  ]);
  // Project servers that run nothing until approved (the core's list).
  const waiting = snap.needsApproval ?? [];
  for (const r of waiting) {
    rows.unshift([r.name, r.changed ? 'NEEDS APPROVAL (changed)' : 'NEEDS APPROVAL', '', '', '', '', '', '', '', '', `${r.source.file}:${r.source.line}:${r.source.column}`]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  const t = snap.totals;
  out.push(
    '',
    `${count(t.servers ?? 0, 'server')}: ${t.catalogued ?? 0} catalogued only, ${t.connected ?? 0} connected, ${t.dormant ?? 0} dormant, ` +
      `${t.failed ?? 0} failed, ${count(t.needsAuth ?? 0, 'needs auth', 'need auth')}, ${t.disabled ?? 0} disabled; ${count(t.tools ?? 0, 'tool')} ` +
      `(~${t.exposedTokenEstimate ?? 0} tokens exposed now, ~${t.schemaTokenEstimate ?? 0} in full mode, estimated` +
      `${t.metaToolTokens ? `; tool index ~${t.metaToolTokens}, ${t.loadedTools ?? 0} loaded` : ''}). Core ${snap.coreVersion}.`,
  );
  if (waiting.length) {
    out.push('', 'Needs approval (defined in the project\'s own files; nothing of them runs until approved):');
    for (const r of waiting) {
      out.push(`  ${r.name}: would run ${r.commandLine}${r.readsOutsideProject.length ? `; reads outside the project: ${r.readsOutsideProject.join(', ')}` : ''}`);
      out.push(`    to approve: ${r.action}`);
    }
  }
  const stale = snap.servers.filter((s) => s.cacheStale);
  if (stale.length) {
    out.push('', `Stale (older than the ttlMs their server gave; re-listed at their next connection): ${stale.map((s) => s.name).join(', ')}`);
  }
  // Definition approval (docs/tool-definition-approval.md): when approved, and what is held.
  const approvals = snap.servers.filter((s) => s.definitions);
  if (approvals.length) {
    out.push('', 'Tool definitions:');
    for (const s of approvals) {
      const at = s.definitions?.approvedAtMs;
      const held = s.definitions?.held ?? [];
      out.push(`  ${s.name}: ${at ? `definitions approved at ${new Date(at).toISOString()}` : 'definitions not approved yet (--hold-new-tools)'}`);
      for (const h of held) out.push(`    HELD ${h.kind} ${h.name}: ${h.change}`);
      if (held.length) out.push(`    review: lazy-mcp tools diff ${s.name} · approve: lazy-mcp tools approve ${s.name}`);
    }
  }
  const errors = snap.servers.filter((s) => s.lastError || stateError(s));
  if (errors.length) {
    out.push('', 'Errors:');
    for (const s of errors) out.push(`  ${s.name}: ${stateError(s) ?? s.lastError ?? ''}`);
  }
  return `${out.join('\n')}\n`;
}
