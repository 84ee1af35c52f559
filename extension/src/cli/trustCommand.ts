// `lazy-mcp trust`: lists the project's servers and where each one's approval
// stands, or approves / revokes them (the core computes the approvals file; this
// writes it). A running `serve` and VS Code windows watch that file.
import { ConfigSession } from '../host/config/configSession';
import { editApprovals } from '../host/config/approvalsFile';
import type { ApprovalStatus, ConfigReport } from '../core/contract.generated';
import type { ParsedArgs } from './args';
import { CliError, type CliContext, requireExplicitFilesRead, say } from './cliContext';
import { cliSources } from './cliHost';

const statusText: Record<ApprovalStatus, string> = {
  approved: 'approved',
  approvedInClaudeCode: 'approved in Claude Code',
  trustedByHost: 'trusted (--trust-project)',
  disabledInClaudeCode: 'DISABLED in Claude Code',
  needsApproval: 'NEEDS APPROVAL',
  changedSinceApproved: 'NEEDS APPROVAL (launch changed since approved)',
};

export async function trustCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const report = await load(ctx);
  requireExplicitFilesRead(report, ctx);
  if (!args.all && !args.revoke && args.servers.length === 0) return list(report, ctx, args.json);
  const edit = await editApprovals(ctx.core, report, { all: args.all || (args.revoke && args.servers.length === 0), names: args.servers, revoke: args.revoke });
  if (edit.unknown.length > 0) {
    const known = report.projectServers.map((s) => s.name).join(', ') || 'none';
    throw new CliError(`trust: no server named ${edit.unknown.join(', ')} in this project's files (${ctx.cwd}); its project servers: ${known}`, 2);
  }
  for (const refused of edit.refused) say(`lazy-mcp: not approved: ${refused}`);
  if (edit.changed.length === 0 && edit.refused.length === 0) say(`lazy-mcp: nothing to ${args.revoke ? 'revoke' : 'approve'}: no server is defined in ${ctx.cwd}'s own files`);
  if (edit.changed.length > 0) say(`lazy-mcp: ${args.revoke ? 'revoked' : 'approved'} ${edit.changed.join(', ')} (kept in ${report.approvalsFile})`);
  return edit.refused.length > 0 ? 1 : 0;
}

async function load(ctx: CliContext): Promise<ConfigReport> {
  const session = new ConfigSession(ctx.core, cliSources(ctx));
  try {
    return await session.load();
  } finally {
    session.dispose();
  }
}

function list(report: ConfigReport, ctx: CliContext, json: boolean): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ cwd: ctx.cwd, approvalsFile: report.approvalsFile, projectServers: report.projectServers, needsApproval: report.needsApproval }, null, 2)}\n`);
    return 0;
  }
  const out = [`Servers defined in ${ctx.cwd}'s own files (${report.projectServers.length}):`];
  for (const s of report.projectServers) {
    out.push(`  ${s.name}  ${statusText[s.status]}${s.claudeFile ? ` (${s.claudeFile})` : ''}`);
    out.push(`    from ${s.source.file}:${s.source.line}:${s.source.column}`);
    const waiting = report.needsApproval.find((r) => r.name === s.name);
    if (waiting) {
      out.push(`    would run: ${waiting.commandLine}`);
      if (waiting.readsOutsideProject.length > 0) out.push(`    reads outside the project: ${waiting.readsOutsideProject.join(', ')}`);
    }
  }
  if (report.needsApproval.length > 0) out.push('', `To approve: lazy-mcp trust ${report.needsApproval.map((r) => r.name).join(' ')}   (or --all)`);
  out.push(`Approvals are kept in ${report.approvalsFile}`);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
