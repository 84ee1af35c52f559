// `lazy-mcp` entry point (bundled to dist/cli.js): parse, dispatch, map failures
// to the documented exit codes. Every command runs on the shared Node host.
import { UsageError, exitCodes, helpText, parseArgs } from './args';
import { authCommand } from './authCommand';
import { catalogueCommand } from './catalogueCommand';
import { CliError, createContext, say } from './cliContext';
import { configCommand } from './configCommand';
import { daemonCommand } from './daemonCommand';
import { diagnosticsCommand } from './diagnosticsTable';
import { serveCommand } from './serveCommand';
import { trustCommand } from './trustCommand';
import { toolsCommand } from './toolsCommand';

async function run(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  if (!args) {
    process.stdout.write(`${helpText.main}\n`);
    return argv.length === 0 ? exitCodes.usage : exitCodes.ok;
  }
  if (args.help) {
    process.stdout.write(`${helpText[args.command]}\n`);
    return exitCodes.ok;
  }
  const ctx = createContext(args);
  switch (args.command) {
    case 'serve':
      return serveCommand(args, ctx);
    case 'diagnostics':
      return diagnosticsCommand(args, ctx);
    case 'config':
      return configCommand(args, ctx);
    case 'catalogue':
      return catalogueCommand(args, ctx);
    case 'auth':
      return authCommand(args, ctx);
    case 'trust':
      return trustCommand(args, ctx);
    case 'tools':
      return toolsCommand(args, ctx);
    case 'daemon':
      return daemonCommand(args, ctx);
  }
}

function exitWith(code: number): void {
  // Flush what was written, then exit (nothing we started outlives this: commands stop their host first).
  process.stdout.write('', () => process.exit(code));
}

run(process.argv.slice(2)).then(exitWith, (err: unknown) => {
  if (err instanceof UsageError) {
    say(`lazy-mcp: ${err.message}`);
    exitWith(exitCodes.usage);
  } else if (err instanceof CliError) {
    say(`lazy-mcp: ${err.message}`);
    exitWith(err.exitCode);
  } else {
    say(`lazy-mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    exitWith(exitCodes.runtime);
  }
});
