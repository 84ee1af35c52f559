// `lazy-mcp config [--json]`: the normalized servers with secrets masked by the
// core (`redactedServers`), where each came from, what was shadowed, problems.
import { ConfigSession } from '../host/config/configSession';
import type { ConfigReport, ServerConfig, SourceRef } from '../host/config/configTypes';
import type { ParsedArgs } from './args';
import { CliError, type CliContext, formatProblem, requireExplicitFilesRead, say } from './cliContext';
import { cliSources } from './cliHost';

export async function configCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const session = new ConfigSession(ctx.core, cliSources(ctx));
  const result = await session.load();
  session.dispose();
  requireExplicitFilesRead(result, ctx);
  const redactedJson = ctx.core.call((c) => c.redactedServers(JSON.stringify(result.servers)));
  const servers = JSON.parse(redactedJson) as ServerConfig[] | { error: string };
  if (!Array.isArray(servers)) throw new CliError(`the core could not mask the servers: ${servers.error}`, 1);
  const view = {
    cwd: ctx.cwd,
    servers,
    shadowed: result.shadowed,
    files: result.files,
    problems: result.problems,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  else process.stdout.write(renderConfig(view, result, args.verbose));
  const errors = result.problems.filter((p) => p.severity === 'error').length;
  if (servers.length === 0) say(`lazy-mcp: no MCP servers configured for ${ctx.cwd} (see docs/config-sources.md, or pass --config FILE)`);
  else if (errors > 0) say(`lazy-mcp: ${errors} error${errors === 1 ? '' : 's'} in the config (listed above)`);
  return servers.length === 0 || errors > 0 ? 3 : 0;
}

function where(s: SourceRef): string {
  return `${s.file}:${s.line}:${s.column} (${s.format}, ${s.scope})`;
}

function launch(t: ServerConfig['transport']): string {
  if (t.type === 'stdio') {
    const args = Array.isArray(t.args) ? t.args : [];
    const env = t.env && typeof t.env === 'object' ? Object.entries(t.env as Record<string, string>) : [];
    const envText = env.map(([k, v]) => `${k}=${v}`).join(' ');
    return [envText, String(t.command), ...args.map(quote)].filter(Boolean).join(' ');
  }
  const headers = t.headers && typeof t.headers === 'object' ? Object.entries(t.headers as Record<string, string>) : [];
  return `${t.type} ${String(t.url)}${headers.map(([k, v]) => ` [${k}: ${v}]`).join('')}`;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./•-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

function renderConfig(
  view: { cwd: string; servers: ServerConfig[] },
  result: ConfigReport,
  verbose: boolean,
): string {
  const out: string[] = [`Servers for ${view.cwd} (${view.servers.length}):`];
  for (const s of view.servers) {
    const flags = [!s.enabled && 'disabled', !s.autoConnect && 'autoConnect: false (dormant)'].filter(Boolean).join(', ');
    out.push(`  ${s.name}${flags ? `  [${flags}]` : ''}`);
    out.push(`    ${launch(s.transport)}`);
    out.push(`    from ${where(s.source)}`);
    if (result.needsApproval.some((r) => r.name === s.name)) out.push('    NEEDS APPROVAL: defined in the project\'s files, runs once approved (lazy-mcp trust)');
  }
  if (result.shadowed.length) {
    out.push('', 'Shadowed (another definition of the same name wins):');
    for (const sh of result.shadowed) out.push(`  ${sh.name}: ${where(sh.loser)}`, `    used instead: ${where(sh.winner)}`);
  }
  const files = result.files.filter((f) => verbose || f.found);
  out.push('', `Config files${verbose ? ' looked at' : ' found'} (${files.length}):`);
  for (const f of files) {
    const state = !f.found ? 'not found' : f.error ? 'ERROR' : `${f.serverCount} server${f.serverCount === 1 ? '' : 's'}`;
    out.push(`  ${f.path}  (${f.format}, ${f.scope}${f.usingLastGood ? ', using last good version' : ''}): ${state}`);
  }
  if (result.problems.length) {
    out.push('', `Problems (${result.problems.length}):`);
    for (const p of result.problems) out.push(`  ${formatProblem(p)}`);
  }
  return `${out.join('\n')}\n`;
}
