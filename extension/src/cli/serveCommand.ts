// `lazy-mcp serve --stdio | --http [ADDR]`: the aggregate endpoint of the shared
// LazyHost, for any MCP client. stdio: one client ("stdio"), newline-delimited
// JSON-RPC; stdout carries protocol messages only. HTTP: the loopback gateway.
import { cliOwnerSpec } from './daemonCommand';
import type { OwnerSpec } from '../host/shared/ownerLauncher';
import { flushBatched, writeBatched } from '../host/connections/batchedWrite';
import { LineSplitter, byteLine } from '../host/connections/lineFraming';
import { errorResponse } from '../host/gateway/jsonRpcShape';
import type { LazyHost } from '../host/lazyHost';
import { count } from '../host/wording';
import { type ParsedArgs, UsageError } from './args';
import { CliError, type CliContext, cataloguePath, gatewayToken, requireExplicitFilesRead, requireServers, say } from './cliContext';
import { configOf, createHost, firstCatalogue, nestedMarker } from './cliHost';

const stdioClient = 'stdio';
const aggregate = { kind: 'aggregate' } as const;

export async function serveCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const nestedIn = process.env[nestedMarker];
  if (nestedIn) {
    ctx.log('warn', `started by lazy-mcp (pid ${nestedIn}) because its config lists lazy-mcp itself: serving no servers here`);
    ctx.nested = true;
    ctx.only = [];
  }
  const settings = {
    ...(args.idleTimeoutMs !== undefined ? { idleTimeoutMs: args.idleTimeoutMs } : {}),
    ...(args.fixedIdle ? { adaptiveIdle: false } : {}),
    // The core's text form: `NAME=MS` lines.
    ...(args.serverIdleTimeoutMs ? { idleTimeoutByServer: Object.entries(args.serverIdleTimeoutMs).map(([name, ms]) => `${name}=${ms}`).join('\n') } : {}),
    ...(args.toolExposure ? { toolExposure: args.toolExposure } : {}),
    ...(args.toolTokenBudget !== undefined ? { toolTokenBudget: args.toolTokenBudget } : {}),
    // The HTTP gateway's session policy (the engine's: engine/clients/gateway_sessions.rs).
    ...(args.sessionIdleTimeoutMs !== undefined ? { sessionIdleMs: args.sessionIdleTimeoutMs } : {}),
    ...(args.maxSessions !== undefined ? { maxSessions: args.maxSessions } : {}),
    holdNewTools: args.holdNewTools,
    // How other sessions holding a shared server see this one (Diagnostics, daemon status).
    sessionLabel: `lazy-mcp serve ${args.stdio ? '--stdio' : '--http'} (pid ${process.pid})`,
  };
  const sharedOwner = cliOwnerSpec(args, ctx);
  const shared = sharedOwner ? { settings: { ...settings, shareServers: true }, sharedOwner } : { settings };
  const catalogueFile = cataloguePath(args, ctx.cwd);
  return args.stdio ? serveStdio(ctx, catalogueFile, shared) : serveHttp(args, ctx, catalogueFile, shared);
}

/** `127.0.0.1:PORT`, `localhost:PORT`, `PORT` or nothing (any free port); anything else is refused. */
export function parseLoopbackAddress(address: string | undefined): number {
  if (address === undefined) return 0;
  const m = /^(?:(127\.0\.0\.1|localhost):)?(\d{1,5})$/.exec(address) ?? /^(127\.0\.0\.1|localhost)$/.exec(address);
  const port = m ? Number(m[2] ?? 0) : NaN;
  if (!m || port > 65535) {
    throw new UsageError(
      `--http ${address}: lazy-mcp serves on loopback only (it can start any configured command); use 127.0.0.1:PORT, localhost:PORT or PORT`,
    );
  }
  return port;
}

/** Stop the host once, whatever asked first (signal, stdin EOF, error), then exit. */
function installShutdown(host: LazyHost, ctx: CliContext, before?: () => void): (code: number) => Promise<never> {
  let stopping: Promise<never> | undefined;
  const shutdown = (code: number): Promise<never> => {
    stopping ??= (async () => {
      before?.();
      // A stop that takes longer (a process ignoring SIGTERM and SIGKILL?) is abandoned (the core's limit).
      const deadline = setTimeout(() => {
        ctx.log('error', 'stopping the servers took too long; exiting anyway');
        flushBatched();
        process.exit(code || 1);
      }, ctx.core.limits().serveStopDeadlineMs);
      try {
        await host.stop();
      } catch (err) {
        ctx.log('error', `while stopping: ${err instanceof Error ? err.message : String(err)}`);
      }
      clearTimeout(deadline);
      flushBatched();
      // Let stdout drain (the last replies of a stdio session) before exiting.
      await new Promise<void>((resolve) => (process.stdout.writableNeedDrain ? process.stdout.once('drain', resolve) : resolve()));
      process.exit(code);
    })();
    return stopping;
  };
  // A signal while already stopping (a client's SIGTERM after it closed stdin and waited, as
  // the MCP SDKs do): stop waiting for graceful closes. The exit hook SIGKILLs every server
  // group still running (processGroup.ts), which the client's SIGKILL that would follow
  // could not: a server mid-shutdown may no longer have its supervisor's watcher.
  const onSignal = (): void => {
    if (stopping === undefined) return void shutdown(0);
    ctx.log('warn', 'asked again to stop: ending the servers still stopping (SIGKILL) and exiting');
    flushBatched();
    process.exit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // A bug in the host must not orphan the servers: stop them, then exit 1.
  process.on('uncaughtException', (err) => {
    ctx.log('error', `internal error: ${err.stack ?? err.message}`);
    void shutdown(1);
  });
  return shutdown;
}

/** The engine settings, and the owner of shared servers when this serve shares them. */
type ServeSetup = { settings: Record<string, unknown>; sharedOwner?: OwnerSpec };

async function serveStdio(ctx: CliContext, catalogueFile: string, setup: ServeSetup): Promise<number> {
  // stdout is the protocol channel: nothing else may write to it.
  console.log = console.error;
  console.info = console.error;
  // A stdin line longer than an HTTP body may be is not read either (the core's limit).
  const maxLineBytes = ctx.core.limits().gateway.maxBodyBytes;
  // After stdin closes, how long answers to the requests already read are awaited (the core's
  // safety net: the engine answers or times out every call, and says `clientSettled` once
  // every request it read from this client is answered or dropped).
  const drainAfterEofMs = ctx.core.limits().serveDrainAfterEofMs;
  let settled: () => void = () => undefined;
  const whenSettled = new Promise<void>((resolve) => (settled = resolve));
  const host = createHost(ctx, catalogueFile, {
    ...setup,
    watchConfig: true,
    // Answers of one event-loop turn (concurrent calls) leave in one write.
    deliverToClient: (_client, message) => writeBatched(process.stdout, `${message}\n`),
    onClientSettled: () => settled(),
  });
  let started = false;
  const early: (() => void)[] = [];
  const shutdown = installShutdown(host, ctx, () => host.driver.handle({ type: 'clientDisconnected', client: stdioClient }));

  /**
   * One line's work; an exception answers that line with -32603 and is logged, the session
   * goes on. Rare, so the id is read only then. The engine keeps its own count: a request
   * it read is answered by it too (or already was), so the exit at stdin EOF still waits for it.
   */
  const guarded = (head: Buffer | string, work: () => void): void => {
    try {
      work();
    } catch (err) {
      ctx.log('error', `internal error while serving a stdin message: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      let id: string | number | null = null;
      try {
        const body = host.readClientBody(head);
        id = body.batch ? null : (body.messages[0]?.id ?? null);
      } catch {
        // Not even its id could be read: answered with `id: null`.
      }
      const answer = errorResponse(id, -32603, 'Internal error in Lazy MCP while serving this request (details in its log)');
      writeBatched(process.stdout, `${answer}\n`);
    }
  };
  // A line stays bytes and crosses once: the core reads UTF-8 itself and counts what it owes
  // (a batch line is one message to the engine, answered with one error).
  const onLine = (line: Buffer): void => {
    if (isBlank(line)) return;
    guarded(line, () => host.driver.handle({ type: 'clientMessage', client: stdioClient, endpoint: aggregate, message: line }));
  };
  const onOversized = (bytes: number, head: string): void => {
    ctx.log('warn', `did not read a ${bytes}-byte stdin line (limit ${maxLineBytes} bytes)`);
    guarded(head, () => host.driver.handle({ type: 'clientMessageTooLarge', client: stdioClient, head, bytes, limitBytes: maxLineBytes }));
  };
  // Read stdin from the start so a client's early `initialize` is kept, not lost.
  const lines = new LineSplitter(
    (line) => (started ? onLine(line) : early.push(() => onLine(line))),
    maxLineBytes,
    (bytes, head) => (started ? onOversized(bytes, head) : early.push(() => onOversized(bytes, head))),
    // The part of an oversized line kept to find its id: the core's.
    ctx.core.limits().gateway.oversizedHeadBytes,
    byteLine,
  );
  let ready: () => void = () => undefined;
  const whenStarted = new Promise<void>((resolve) => (ready = resolve));
  process.stdin.on('data', (chunk: Buffer) => lines.push(chunk));
  process.stdin.on('end', () => {
    lines.end();
    // Piped one-shot use (`printf '…' | lazy-mcp serve --stdio`): answer every
    // request that was read, then stop.
    void whenStarted
      .then(() => {
        host.driver.handle({ type: 'clientInputEnded', client: stdioClient });
        return drained(whenSettled, drainAfterEofMs);
      })
      .then((all) => {
        if (!all) ctx.log('warn', `stdin closed; stopped waiting for the last answers after ${drainAfterEofMs} ms`);
        return shutdown(0);
      });
  });
  process.stdin.on('error', () => void shutdown(0));
  process.stdout.on('error', () => void shutdown(0)); // the client went away (EPIPE)

  try {
    await host.start();
    requireExplicitFilesRead(configOf(host), ctx);
    if (!ctx.nested) requireServers(configOf(host), ctx);
  } catch (err) {
    await host.stop();
    throw err;
  }
  // On a cold start, clients are answered once the first catalogue is built (so their first
  // tools/list is complete), but never later than the core's `firstCatalogueWaitMs`.
  if (!(await firstCatalogue(host, ctx))) ctx.log('warn', 'still cataloguing; answering with the tools catalogued so far');
  ctx.log('info', `serving ${count(configOf(host).servers.length, 'server')} on stdio; catalogue ${catalogueFile}`);
  started = true;
  for (const feed of early.splice(0)) feed();
  ready();
  return new Promise<number>(() => undefined); // runs until shutdown() exits the process
}

async function serveHttp(args: ParsedArgs, ctx: CliContext, catalogueFile: string, setup: ServeSetup): Promise<number> {
  const port = parseLoopbackAddress(args.httpAddress);
  const { token, file: tokenFile } = args.noAuth ? { token: undefined, file: undefined } : gatewayToken(ctx);
  const host = createHost(ctx, catalogueFile, {
    ...setup,
    watchConfig: true,
    gateway: { port, token, requireToken: !args.noAuth },
  });
  installShutdown(host, ctx); // a signal during start (while cataloguing) stops the servers too
  try {
    await host.start();
    requireExplicitFilesRead(configOf(host), ctx);
    if (!ctx.nested) requireServers(configOf(host), ctx);
  } catch (err) {
    await host.stop();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(`port ${port} on 127.0.0.1 is already in use; choose another with --http 127.0.0.1:PORT (or omit PORT for any free port)`, 1);
    }
    if ((err as NodeJS.ErrnoException).code === 'EACCES') {
      throw new CliError(`not allowed to listen on 127.0.0.1:${port}; choose a port above 1023`, 1);
    }
    throw err;
  }
  // The address is printed once the first catalogue is built: a client started from it sees every tool.
  if (!(await firstCatalogue(host, ctx))) ctx.log('warn', 'still cataloguing; clients see the tools catalogued so far');
  const url = host.endpointUrl();
  process.stdout.write(`lazy-mcp: serving ${count(configOf(host).servers.length, 'server')} at ${url}\n`);
  if (args.noAuth) {
    say('lazy-mcp warn: --no-auth: any local process can use this endpoint (and start every configured server). For testing only.');
  } else {
    process.stdout.write(`lazy-mcp: send the header "Authorization: Bearer ${token}" (token stored in ${tokenFile}, mode 0600)\n`);
  }
  ctx.log('info', `catalogue ${catalogueFile}`);
  return new Promise<number>(() => undefined);
}

/** Nothing but whitespace (as `String.prototype.trim` sees it: Unicode spaces and a BOM too). */
function isBlank(line: Buffer): boolean {
  for (const byte of line) {
    if (byte >= 0x80) return line.toString('utf8').trim() === '';
    if (byte !== 0x20 && (byte < 0x09 || byte > 0x0d)) return false;
  }
  return true;
}

/** Resolves true once `settled` does, or false after `ms`. */
async function drained(settled: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const all = await Promise.race([settled.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return all;
}
