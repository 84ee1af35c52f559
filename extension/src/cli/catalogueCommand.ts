// `lazy-mcp catalogue [--refresh] [SERVER...]`: build or refresh the persisted
// catalogue, one progress line per server state change on stderr.
import { count } from '../host/wording';
import type { ParsedArgs } from './args';
import { type CliContext, cataloguePath, say } from './cliContext';
import { type ServerRow, checkedConfig, createHost, settled, snapshotOf, stateError } from './cliHost';

export async function catalogueCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const only = args.servers.length ? new Set(args.servers) : undefined;
  const file = cataloguePath(args, ctx.cwd);
  const seen = new Map<string, string>();
  let scheduled = false;
  const report = (): void => {
    scheduled = false;
    for (const s of snapshotOf(host).servers) {
      if (only && !only.has(s.name)) continue;
      const line = progressLine(s);
      if (seen.get(s.name) === line) continue;
      seen.set(s.name, line);
      say(line);
    }
  };
  // Only the named servers are managed (host policy `only`): the others are neither started nor dropped from the file.
  ctx.only = only && [...only];
  const host = createHost(ctx, file, {
    onChange: () => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(report);
    },
  });
  try {
    await host.start();
    const config = checkedConfig(host, ctx, args.servers);
    if (args.refresh) {
      for (const s of config.servers) if (!only || only.has(s.name)) host.driver.handle({ type: 'refreshCatalogue', server: s.name, recatalogue: true });
    }
    const snap = await settled(host, only);
    report();
    const targets = snap.servers.filter((s) => !only || only.has(s.name));
    const failed = targets.filter((s) => s.progress === 'failed');
    say(`catalogue ${file}: ${targets.length - failed.length} of ${count(targets.length, 'server')} ok${failed.length ? `; failed: ${failed.map((s) => s.name).join(', ')}` : ''}`);
    return failed.length ? 1 : 0;
  } finally {
    await host.stop();
  }
}

/** One line per server, by where the core says it stands (`progress`). */
const progressLines: Record<ServerRow['progress'], (s: ServerRow) => string> = {
  ready: (s) => `${s.name}: ${s.stateLabel} — ${count(s.tools, 'tool')}, ${count(s.prompts, 'prompt')}, ${count(s.resources + s.resourceTemplates, 'resource')}`,
  failed: (s) => `${s.name}: ${s.stateLabel} — ${stateError(s) ?? s.lastError ?? 'no details'}`,
  busy: (s) => `${s.name}: ${s.stateLabel}`,
  off: (s) => `${s.name}: ${s.stateLabel}`,
};

function progressLine(s: ServerRow): string {
  return progressLines[s.progress](s);
}
