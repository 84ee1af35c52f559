// `lazy-mcp auth login|logout|status`: the engine's user commands `signIn` and
// `signOut`, carried out by the shared host's OAuth client (host/auth), and the
// sign-in column of the snapshot. The engine decides which servers use OAuth.
import type { ServerConfig } from '../host/config/configTypes';
import { FileTokenStore } from '../host/auth/fileTokenStore';
import { loadRecord } from '../host/auth/storedOAuthProvider';
import { count } from '../host/wording';
import type { ParsedArgs } from './args';
import { type CliContext, CliError, cataloguePath, say, signInFile } from './cliContext';
import { type ServerRow, checkedConfig, createHost, settled, snapshotOf } from './cliHost';

export async function authCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  // Only the named servers are managed (host policy `only`): the others are neither started nor dropped from the catalogue file.
  ctx.only = args.servers.length ? [...args.servers] : undefined;
  const changes = new Changes();
  const host = createHost(ctx, cataloguePath(args, ctx.cwd), { onChange: changes.fire });
  try {
    await host.start();
    const config = checkedConfig(host, ctx, args.servers);
    const name = args.servers[0] ?? '';
    // A project server that waits for approval is neither signed in to nor catalogued (the core's list).
    const waiting = config.needsApproval.find((r) => r.name === name);
    if (waiting && args.authAction !== 'status') throw new CliError(`'${name}' is defined in ${waiting.source.file} and needs your approval before it runs: ${waiting.action}`, 1);
    switch (args.authAction) {
      case 'login':
        return await login(host, changes, name);
      case 'logout':
        return logout(host, name);
      default:
        return await status(host, config.servers, args.json, ctx);
    }
  } finally {
    await host.stop();
  }
}

type Host = ReturnType<typeof createHost>;

/**
 * The host's changes (its `onChange`: the core's `stateChanged`, which it also gives when a
 * sign-in starts or ends): `next()` resolves on the first change after it was asked for.
 */
class Changes {
  private waiters: (() => void)[] = [];
  readonly fire = (): void => {
    for (const wake of this.waiters.splice(0)) wake();
  };
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

function rowOf(host: Host, name: string): ServerRow | undefined {
  return snapshotOf(host).servers.find((s) => s.name === name);
}

function requireOAuth(row: ServerRow | undefined, name: string): ServerRow {
  if (row?.auth == null) {
    throw new CliError(`'${name}' does not sign in with OAuth: only remote (http/sse) servers without an "Authorization" header do`, 1);
  }
  return row;
}

async function login(host: Host, changes: Changes, name: string): Promise<number> {
  requireOAuth(rowOf(host, name), name);
  // Asked for at once: while the server is being catalogued the engine starts the
  // sign-in when that ends, and does not tell the user to run this very command.
  host.driver.handle({ type: 'signIn', server: name });
  // Until the sign-in ended and the server is catalogued with the new tokens: looked at
  // again on each change the core reports, not on a clock (the core's bounds end the sign-in).
  let row: ServerRow;
  for (;;) {
    const changed = changes.next();
    row = requireOAuth(rowOf(host, name), name);
    if (row.auth?.signingIn !== true && row.progress !== 'busy') break;
    await changed;
  }
  if (row.auth?.needsSignIn === true) {
    say(`lazy-mcp: not signed in to '${name}': ${row.lastError ?? row.auth.reason ?? 'sign-in failed'}`);
    return 1;
  }
  say(`lazy-mcp: signed in to '${name}' (${row.stateLabel}: ${count(row.tools, 'tool')})`);
  return 0;
}

function logout(host: Host, name: string): number {
  requireOAuth(rowOf(host, name), name);
  host.driver.handle({ type: 'signOut', server: name });
  // `host.stop()` waits for the deletion to be written.
  say(`lazy-mcp: signed out of '${name}': its tokens and client registration are deleted`);
  return 0;
}

async function status(host: Host, servers: ServerConfig[], json: boolean, ctx: CliContext): Promise<number> {
  const snap = await settled(host);
  const store = new FileTokenStore(signInFile(), ctx.core.limits().signIn.tokenStoreMaxBytes);
  const rows: { server: string; signedIn: boolean; state: string; reason?: string; nextStep?: string }[] = [];
  for (const row of snap.servers) {
    if (row.auth == null) continue;
    const transport = servers.find((s) => s.name === row.name)?.transport;
    const url = transport && 'url' in transport ? transport.url : undefined;
    const stored = url !== undefined && (await loadRecord(store, url)).tokens !== undefined;
    rows.push({
      server: row.name,
      signedIn: stored && !row.auth.needsSignIn,
      state: row.stateLabel,
      ...(row.auth.reason != null ? { reason: row.auth.reason } : {}),
      ...(row.auth.nextStep != null ? { nextStep: row.auth.nextStep } : {}),
    });
  }
  if (json) {
    process.stdout.write(`${JSON.stringify({ file: store.file, servers: rows }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write('No configured server signs in with OAuth.\n');
    return 0;
  }
  for (const r of rows) {
    const what = r.signedIn ? 'signed in' : `not signed in${r.reason ? ` (${r.reason})` : ''}${r.nextStep ? `: ${r.nextStep}` : ''}`;
    process.stdout.write(`${r.server}  ${r.state}  ${what}\n`);
  }
  process.stdout.write(`Tokens: ${store.file}\n`);
  return 0;
}
