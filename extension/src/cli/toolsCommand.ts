// `lazy-mcp tools diff SERVER [TOOL]` and `lazy-mcp tools approve SERVER [TOOL...]`:
// review a server's held definitions (the core's diff and warnings, printed as
// they come) and approve them in the shared approved-definitions file.
import type { ParsedArgs } from './args';
import { type CliContext, cataloguePath, say } from './cliContext';
import { checkedConfig, createHost, settled, snapshotOf } from './cliHost';
import type { DefinitionsReview } from '../core/contract.generated';

const warningLabels = { invisibleUnicode: 'invisible Unicode', instructionLike: 'instruction-like text', newParameter: 'new parameter' } as const;

export async function toolsCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const [server = '', ...items] = args.servers;
  // Only this server is managed: the others are neither started nor touched.
  ctx.only = [server];
  const host = createHost(ctx, cataloguePath(args, ctx.cwd), { settings: { holdNewTools: args.holdNewTools } });
  try {
    await host.start();
    checkedConfig(host, ctx, [server]);
    // A server without a catalogue yet is catalogued first (started briefly).
    await settled(host, new Set([server]));
    if (args.toolsAction === 'diff') {
      const review = host.driver.definitionsReview(server, items[0]);
      process.stdout.write(args.json ? `${JSON.stringify(review, null, 2)}\n` : renderReview(review));
      return 0;
    }
    const heldBefore = heldOf(host, server);
    host.driver.handle({ type: 'approveDefinitions', server, items });
    await host.driver.approvalsWritten();
    const heldAfter = heldOf(host, server);
    const approved = heldBefore.filter((name) => !heldAfter.includes(name));
    say(approved.length ? `${server}: approved ${approved.join(', ')}` : `${server}: nothing was held${items.length ? ` among ${items.join(', ')}` : ''}`);
    if (heldAfter.length) say(`${server}: still held: ${heldAfter.join(', ')}`);
    return 0;
  } finally {
    await host.stop();
  }
}

function heldOf(host: ReturnType<typeof createHost>, server: string): string[] {
  const row = snapshotOf(host).servers.find((s) => s.name === server);
  return row?.definitions?.held.map((h) => h.name) ?? [];
}

/** The review as text: per held definition what changed, its warnings, then the unified diff. */
export function renderReview(review: DefinitionsReview): string {
  if (review.note) return `${review.note}\n`;
  let out = '';
  for (const item of review.items) {
    out += `${review.server} ${item.kind} ${item.name}: ${item.change}\n`;
    for (const w of item.warnings) out += `  WARNING ${warningLabels[w.kind]} in ${w.field}: ${w.detail}\n`;
    out += `${item.diff}\n`;
  }
  out += `Approve with: lazy-mcp tools approve ${review.server}${review.items.length === 1 ? ` ${review.items[0]?.name ?? ''}` : ''}\n`;
  return out;
}
