// Command-line parsing for `lazy-mcp`: one table of flags per command, no
// decisions about servers. A usage problem is a UsageError (exit code 2).
import type { ToolExposure } from '../core/contract.generated';

export class UsageError extends Error {}

/** Exit codes, documented in docs/cli.md. */
export const exitCodes = { ok: 0, runtime: 1, usage: 2, config: 3 } as const;

export type Command = 'serve' | 'diagnostics' | 'config' | 'catalogue' | 'auth' | 'trust' | 'tools' | 'daemon';

export const authActions = ['login', 'logout', 'status'] as const;
export const toolsActions = ['diff', 'approve'] as const;
export const daemonActions = ['run', 'status', 'stop'] as const;

export interface ConfigFileArg {
  path: string;
  format?: string;
}

export interface ParsedArgs {
  command: Command;
  help: boolean;
  cwd?: string;
  configFiles: ConfigFileArg[];
  cache?: string;
  verbose: boolean;
  json: boolean;
  refresh: boolean;
  stdio: boolean;
  /** `--http` given; `httpAddress` is its optional value. */
  http: boolean;
  httpAddress?: string;
  idleTimeoutMs?: number;
  /** `--fixed-idle`: every server idles out after exactly the idle timeout (no call-rate tiers). */
  fixedIdle: boolean;
  /** `--server-idle-timeout NAME=MS` (repeatable): a server's own idle ceiling. */
  serverIdleTimeoutMs?: Record<string, number>;
  sessionIdleTimeoutMs?: number;
  maxSessions?: number;
  toolExposure?: ToolExposure;
  toolTokenBudget?: number;
  noAuth: boolean;
  /** `--trust-project`: run project servers without approval. */
  trustProject: boolean;
  /** `trust --all`. */
  all: boolean;
  /** `trust --revoke`. */
  revoke: boolean;
  servers: string[];
  /** `auth login|logout|status`. */
  authAction?: (typeof authActions)[number];
  /** `tools diff|approve`; `servers[0]` is the server, the rest its tools. */
  toolsAction?: (typeof toolsActions)[number];
  /** `--hold-new-tools`: a new server's tools are held until reviewed. */
  holdNewTools: boolean;
  /** `serve --shared`: the default, said explicitly (wins over LAZY_MCP_SHARE_SERVERS=0). */
  shared: boolean;
  /** `serve --isolated`: never shared (wins over --shared and LAZY_MCP_SHARE_SERVERS). */
  isolated: boolean;
  /** `daemon run|status|stop`. */
  daemonAction?: (typeof daemonActions)[number];
  /** `daemon --socket-dir DIR`. */
  socketDir?: string;
  /** `daemon run --linger-ms MS`. */
  lingerMs?: number;
  /** `daemon run --grace-ms MS`. */
  graceMs?: number;
}

export const configFormats = ['claude-code', 'claude-desktop', 'copilot-cli', 'open-code', 'vs-code'] as const;

interface FlagSpec {
  /** 'value': takes the next argument; 'optional': takes it unless it starts with `-`; 'bool': none. */
  kind: 'value' | 'optional' | 'bool';
  apply(args: ParsedArgs, value: string | undefined): void;
}

const common: Record<string, FlagSpec> = {
  '--cwd': { kind: 'value', apply: (a, v) => (a.cwd = v) },
  '--config': { kind: 'value', apply: (a, v) => a.configFiles.push({ path: v ?? '' }) },
  '--format': {
    kind: 'value',
    apply: (a, v) => {
      const last = a.configFiles[a.configFiles.length - 1];
      if (!last) throw new UsageError('--format must follow the --config FILE it describes');
      if (!configFormats.includes(v as (typeof configFormats)[number])) {
        throw new UsageError(`--format ${v}: expected one of ${configFormats.join(', ')}`);
      }
      last.format = v;
    },
  },
  '--verbose': { kind: 'bool', apply: (a) => (a.verbose = true) },
  '--help': { kind: 'bool', apply: (a) => (a.help = true) },
  '-h': { kind: 'bool', apply: (a) => (a.help = true) },
};

const trustProjectFlag: Record<string, FlagSpec> = { '--trust-project': { kind: 'bool', apply: (a) => (a.trustProject = true) } };
const cacheFlag: Record<string, FlagSpec> = { '--cache': { kind: 'value', apply: (a, v) => (a.cache = v) } };
const jsonFlag: Record<string, FlagSpec> = { '--json': { kind: 'bool', apply: (a) => (a.json = true) } };
/** A flag whose value is milliseconds, an integer ≥ 0. */
function millisecondsFlag(name: string, set: (a: ParsedArgs, ms: number) => void): FlagSpec {
  return {
    kind: 'value',
    apply: (a, v) => {
      const ms = Number(v);
      if (!Number.isInteger(ms) || ms < 0) throw new UsageError(`${name} ${v}: expected milliseconds (an integer ≥ 0)`);
      set(a, ms);
    },
  };
}
const holdFlag: Record<string, FlagSpec> = { '--hold-new-tools': { kind: 'bool', apply: (a) => (a.holdNewTools = true) } };

const flagsOf: Record<Command, Record<string, FlagSpec>> = {
  serve: {
    ...common,
    ...cacheFlag,
    ...trustProjectFlag,
    ...holdFlag,
    '--stdio': { kind: 'bool', apply: (a) => (a.stdio = true) },
    '--http': {
      kind: 'optional',
      apply: (a, v) => {
        a.http = true;
        a.httpAddress = v;
      },
    },
    '--idle-timeout': {
      kind: 'value',
      apply: (a, v) => {
        const ms = Number(v);
        if (!Number.isInteger(ms) || ms < 0) throw new UsageError(`--idle-timeout ${v}: expected milliseconds (an integer ≥ 0; 0 = never)`);
        a.idleTimeoutMs = ms;
      },
    },
    '--fixed-idle': { kind: 'bool', apply: (a) => (a.fixedIdle = true) },
    '--server-idle-timeout': {
      kind: 'value',
      apply: (a, v) => {
        const at = (v ?? '').indexOf('=');
        const ms = Number((v ?? '').slice(at + 1));
        if (at < 1 || !Number.isInteger(ms) || ms < 0) throw new UsageError(`--server-idle-timeout ${v}: expected NAME=MS (milliseconds, an integer ≥ 0; 0 = never)`);
        a.serverIdleTimeoutMs = { ...a.serverIdleTimeoutMs, [(v ?? '').slice(0, at)]: ms };
      },
    },
    '--session-idle-timeout': {
      kind: 'value',
      apply: (a, v) => {
        const ms = Number(v);
        if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`--session-idle-timeout ${v}: expected milliseconds (an integer ≥ 1)`);
        a.sessionIdleTimeoutMs = ms;
      },
    },
    '--max-sessions': {
      kind: 'value',
      apply: (a, v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-sessions ${v}: expected a number of sessions (an integer ≥ 1)`);
        a.maxSessions = n;
      },
    },
    '--tool-exposure': {
      kind: 'value',
      apply: (a, v) => {
        if (v !== 'full' && v !== 'index' && v !== 'auto') throw new UsageError(`--tool-exposure ${v}: expected full, index or auto`);
        a.toolExposure = v;
      },
    },
    '--tool-token-budget': {
      kind: 'value',
      apply: (a, v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new UsageError(`--tool-token-budget ${v}: expected a number of tokens (an integer ≥ 0)`);
        a.toolTokenBudget = n;
      },
    },
    '--no-auth': { kind: 'bool', apply: (a) => (a.noAuth = true) },
    '--shared': { kind: 'bool', apply: (a) => (a.shared = true) },
    '--isolated': { kind: 'bool', apply: (a) => (a.isolated = true) },
  },
  daemon: {
    ...common,
    ...jsonFlag,
    '--socket-dir': { kind: 'value', apply: (a, v) => (a.socketDir = v) },
    '--linger-ms': millisecondsFlag('--linger-ms', (a, ms) => (a.lingerMs = ms)),
    '--grace-ms': millisecondsFlag('--grace-ms', (a, ms) => (a.graceMs = ms)),
  },
  diagnostics: { ...common, ...cacheFlag, ...jsonFlag, ...trustProjectFlag },
  config: { ...common, ...jsonFlag },
  catalogue: { ...common, ...cacheFlag, ...trustProjectFlag, '--refresh': { kind: 'bool', apply: (a) => (a.refresh = true) } },
  auth: { ...common, ...cacheFlag, ...jsonFlag, ...trustProjectFlag },
  tools: { ...common, ...cacheFlag, ...jsonFlag, ...holdFlag },
  trust: {
    ...common,
    ...jsonFlag,
    '--all': { kind: 'bool', apply: (a) => (a.all = true) },
    '--revoke': { kind: 'bool', apply: (a) => (a.revoke = true) },
  },
};

const commands = Object.keys(flagsOf) as Command[];

/** `undefined` command = top-level help. */
export function parseArgs(argv: readonly string[]): ParsedArgs | undefined {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return undefined;
  if (!commands.includes(first as Command)) {
    throw new UsageError(`unknown command "${first}"; expected one of: ${commands.join(', ')}`);
  }
  const command = first as Command;
  const args: ParsedArgs = {
    command,
    help: false,
    configFiles: [],
    verbose: false,
    json: false,
    refresh: false,
    stdio: false,
    http: false,
    noAuth: false,
    trustProject: false,
    all: false,
    revoke: false,
    holdNewTools: false,
    shared: false,
    isolated: false,
    fixedIdle: false,
    servers: [],
  };
  const flags = flagsOf[command];
  for (let i = 0; i < rest.length; i++) {
    const raw = rest[i] ?? '';
    if (!raw.startsWith('-') || raw === '-') {
      if (command !== 'catalogue' && command !== 'auth' && command !== 'trust' && command !== 'tools' && command !== 'daemon') throw new UsageError(`${command}: unexpected argument "${raw}"`);
      args.servers.push(raw);
      continue;
    }
    const eq = raw.indexOf('=');
    const name = eq > 0 ? raw.slice(0, eq) : raw;
    const spec = flags[name];
    if (!spec) throw new UsageError(`${command}: unknown flag ${name} (see lazy-mcp ${command} --help)`);
    let value: string | undefined;
    if (eq > 0) {
      if (spec.kind === 'bool') throw new UsageError(`${name} takes no value`);
      value = raw.slice(eq + 1);
    } else if (spec.kind === 'value') {
      value = rest[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
    } else if (spec.kind === 'optional') {
      const next = rest[i + 1];
      if (next !== undefined && !next.startsWith('-')) value = rest[++i];
    }
    spec.apply(args, value);
  }
  if (args.help) return args;
  if (command === 'serve') {
    if (args.stdio === args.http) throw new UsageError('serve: give exactly one of --stdio or --http [127.0.0.1:PORT]');
    if (args.noAuth && !args.http) throw new UsageError('--no-auth only applies to --http');
  }
  if (command === 'trust' && args.all && (args.revoke || args.servers.length > 0)) {
    throw new UsageError('trust: --all approves every server of the project; give it alone (or name servers, or --revoke)');
  }
  if (command === 'auth') {
    const [action, ...servers] = args.servers;
    if (!authActions.includes(action as (typeof authActions)[number])) {
      throw new UsageError(`auth: expected one of ${authActions.join(', ')} (lazy-mcp auth login SERVER)`);
    }
    args.authAction = action as (typeof authActions)[number];
    args.servers = servers;
    if (args.authAction !== 'status' && servers.length !== 1) throw new UsageError(`auth ${action}: name exactly one server (lazy-mcp auth ${action} SERVER)`);
  }
  if (command === 'daemon') {
    const [action, ...rest] = args.servers;
    if (!daemonActions.includes(action as (typeof daemonActions)[number]) || rest.length > 0) {
      throw new UsageError('daemon: expected one of run, status, stop (lazy-mcp daemon status)');
    }
    args.daemonAction = action as (typeof daemonActions)[number];
    args.servers = [];
  }
  if (command === 'tools') {
    const [action, ...rest] = args.servers;
    if (!toolsActions.includes(action as (typeof toolsActions)[number])) {
      throw new UsageError('tools: expected diff or approve (lazy-mcp tools diff SERVER [TOOL])');
    }
    args.toolsAction = action as (typeof toolsActions)[number];
    args.servers = rest;
    if (rest.length === 0) throw new UsageError(`tools ${action}: name the server (lazy-mcp tools ${action} SERVER [TOOL...])`);
    if (action === 'diff' && rest.length > 2) throw new UsageError('tools diff: at most one tool (lazy-mcp tools diff SERVER [TOOL])');
  }
  return args;
}

const commonHelp = `Config discovery:
  --cwd DIR             project folder to discover config in (default: the current directory)
  --config FILE         also read FILE (repeatable); the format is inferred from the file
                        name or its contents, or give it with --format
  --format FORMAT       format of the preceding --config: ${configFormats.join(', ')}
  --verbose             also log info and debug messages (stderr)
  -h, --help            show this help`;

const exitHelp = `Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 config error
(no servers configured, a --config file missing, or for \`config\` any error in the config).`;

export const helpText: Record<Command | 'main', string> = {
  main: `lazy-mcp — one MCP server in front of all your MCP servers; each starts only when used.

Usage: lazy-mcp <command> [flags]

Commands:
  serve --stdio               serve every configured server's tools over stdio (for MCP clients)
  serve --http [ADDR]         the same over Streamable HTTP on loopback (bearer token required)
  diagnostics [--json]        which servers are catalogued, connected or failing, and why
  config [--json]             the normalized servers, where each came from, problems (secrets masked)
  catalogue [--refresh] [S…]  build or refresh the persisted tool catalogue
  auth login|logout|status    sign in to a remote server that uses OAuth, sign out, or list sign-ins
  trust [--all|--revoke] [S…] list the project's servers and their approval; approve or revoke them
  tools diff|approve S [T…]   review a server's held (changed) tool definitions, approve them
  daemon status|stop          the owner of shared servers (serve --shared): what it holds, stop it

Run lazy-mcp <command> --help for its flags. Docs: docs/cli.md.
${exitHelp}`,
  serve: `Usage: lazy-mcp serve --stdio [flags]
       lazy-mcp serve --http [127.0.0.1:PORT] [flags]

One aggregate MCP server: tools and prompts of every configured server as
<server>__<name>, resources as they are. Lists come from the catalogue; a
server is started on first use and stopped again when idle.

  --stdio               newline-delimited JSON-RPC on stdin/stdout (logs go to stderr);
                        ends when stdin closes
  --http [ADDR]         Streamable HTTP at http://ADDR/mcp; ADDR is 127.0.0.1:PORT,
                        localhost:PORT or PORT (default 127.0.0.1:0 = any free port).
                        Loopback only. Clients send "Authorization: Bearer <token>";
                        the token is kept in $XDG_CONFIG_HOME/lazy-mcp/token (mode 0600)
  --no-auth             (testing only, --http) accept requests without the bearer token;
                        Host/Origin checks stay on
  --idle-timeout MS     stop a server after at most MS ms without use (default 600000; 0 = never);
                        a server called rarely stops sooner: 1 min with under 5 calls in the
                        last hour, 3 min with 5–20, 5 min above
  --fixed-idle          stop every server after exactly --idle-timeout (no call-rate tiers)
  --server-idle-timeout NAME=MS
                        server NAME's own ceiling instead of --idle-timeout (repeatable;
                        0 = never stop it)
  --session-idle-timeout MS
                        (--http) end a client session after MS ms without requests and
                        without an open stream (default 3600000); its client gets 404
                        and starts a new session
  --max-sessions N      (--http) at most N client sessions; beyond it the least recently
                        used one is ended (default 1000)
  --tool-exposure MODE  full: every tool schema is listed; index: a compact index and the
                        meta-tools search_tools, load_tools, unload_tools, call_tool;
                        auto (default): index for the biggest servers once the schemas
                        exceed the token budget or 128 tools. A server's "toolExposure"
                        config key wins
  --tool-token-budget N auto's budget in estimated tokens (default 20000)
  --hold-new-tools      hold a new server's tools until reviewed (\`lazy-mcp tools diff\`);
                        by default its first listing becomes its approved baseline
  --cache FILE          catalogue file (default $XDG_CACHE_HOME/lazy-mcp/catalogue-<hash of cwd>.json)
  --trust-project       run the servers of the project's own files (.mcp.json, .vscode/mcp.json,
                        .copilot/mcp-config.json, opencode.json…) without approval. Off by
                        default: they wait until approved with \`lazy-mcp trust\`, and serve
                        says once on stderr which wait and the command to run
  --isolated            never share: this serve starts its own servers. By default stdio
                        servers are shared with every other \`serve\` and VS Code window of
                        this user through one background owner (\`lazy-mcp daemon\`, started
                        on demand): one process per server and sharing key
                        (docs/shared-servers.md). Also LAZY_MCP_SHARE_SERVERS=0.
                        Not on Windows yet
  --shared              share (the default; kept for scripts that say it)

${commonHelp}

${exitHelp}`,
  diagnostics: `Usage: lazy-mcp diagnostics [--json] [flags]

Loads the persisted catalogue and the config, catalogues servers that have no
entry yet (this starts them briefly), then prints one row per server: state,
tools, source, last error. --json prints the engine's snapshot as is.

  --json                machine-readable snapshot
  --cache FILE          catalogue file (as for serve)
  --trust-project       (as for serve) project servers run without approval

${commonHelp}

${exitHelp}`,
  config: `Usage: lazy-mcp config [--json] [flags]

The servers Lazy MCP would serve, as read from every config file it found:
where each definition came from (file:line:col), which were shadowed by another
definition of the same name, and every problem. Secrets are shown as ••••.

  --json                machine-readable: {servers, shadowed, files, problems}

${commonHelp}

${exitHelp}`,
  auth: `Usage: lazy-mcp auth login SERVER
       lazy-mcp auth logout SERVER
       lazy-mcp auth status [SERVER...] [--json]

Remote (http/sse) servers without an Authorization header sign in with OAuth.
login: prints the authorization URL on stderr (and opens it when there is a
desktop), waits for the browser's redirect on 127.0.0.1, stores the tokens,
then catalogues the server. logout: deletes the server's tokens and its client
registration. status: one line per OAuth server: signed in or not, and why.
Tokens are kept in $XDG_CONFIG_HOME/lazy-mcp/oauth.json (mode 0600) and are
never printed. \`serve\` refreshes them silently; when a sign-in is needed it
says so on stderr, and calls to that server fail naming this command.

  --json                (status) machine-readable
  --cache FILE          catalogue file (as for serve)
  --trust-project       (as for serve) project servers run without approval

${commonHelp}

${exitHelp}`,
  trust: `Usage: lazy-mcp trust [--json]
       lazy-mcp trust SERVER... | --all
       lazy-mcp trust --revoke [SERVER...]

A server defined in the project's own files (.mcp.json, .vscode/mcp.json,
.copilot/mcp-config.json, .github/mcp*.json, opencode.json(c)) is code the
repository asks you to run: it is not started, catalogued or connected until
approved. Without arguments: one line per project server and its approval.
SERVER... or --all approves them for their current launch (command, args, env,
cwd / url, headers); a changed launch asks again. --revoke takes approvals
back (all of the project's without names). Servers disabled in Claude Code
(disabledMcpjsonServers) stay off; Claude Code's enabledMcpjsonServers and
enableAllProjectMcpServers (~/.claude.json, .claude/settings.local.json) count
as approval. Approvals are kept in $XDG_CONFIG_HOME/lazy-mcp/approvals.json,
shared with every VS Code window; a running serve applies them at once.

  --all                 approve every server of the project's files
  --revoke              revoke the named servers' approvals (all without names)
  --json                (list) machine-readable

${commonHelp}

${exitHelp}`,
  tools: `Usage: lazy-mcp tools diff SERVER [TOOL] [--json]
       lazy-mcp tools approve SERVER [TOOL...]

A server's tool, prompt and resource template definitions (and its
instructions) are compared with the ones approved when it was first
catalogued. A changed or added one is held: not listed to any client, and a
call to it fails naming this command. Removed ones are withdrawn at once.
diff: prints each held definition as a unified diff (approved → current) with
warnings: invisible Unicode, instruction-like text (hidden orders, secrets,
keys, SSH, .env, passwords) and new parameters. Nothing is rewritten.
approve: approves the named definitions (default: everything held, instructions
included) for this user everywhere: running \`serve\` processes and VS Code
windows list them within a few seconds.
Approvals are kept in $XDG_CONFIG_HOME/lazy-mcp/approved-definitions.json.

  --json                (diff) machine-readable review
  --hold-new-tools      a server without approved definitions is held, not approved
  --cache FILE          catalogue file (as for serve)

${commonHelp}

${exitHelp}`,
  daemon: `Usage: lazy-mcp daemon status|stop [--json]
       lazy-mcp daemon run [--socket-dir DIR] [--linger-ms MS] [--grace-ms MS]

The owner of shared servers (docs/shared-servers.md): one per user, started on
demand by \`serve --shared\`; it holds one process per server and sharing key
and exits after holding nothing for a while.

  status                which servers it holds, with their pid and client count
  stop                  stop it and its servers (clients' calls in flight fail; the
                        next call starts a new owner)
  run                   run the owner in the foreground (what clients start)
  --socket-dir DIR      where its socket is (default $XDG_RUNTIME_DIR/lazy-mcp, else
                        /tmp/lazy-mcp-<uid>; LAZY_MCP_SOCKET_DIR); must be yours, mode 0700
  --linger-ms MS        (run) exit after holding nothing this long (default 30000)
  --grace-ms MS         (run) how long a used server waits for a next client after its
                        last one left (default 5000; LAZY_MCP_HANDOVER_GRACE_MS)
  --json                (status, stop) machine-readable

${commonHelp}

${exitHelp}`,
  catalogue: `Usage: lazy-mcp catalogue [--refresh] [SERVER...] [flags]

Builds the persisted catalogue: every server without an up-to-date entry is
started, listed and stopped. With --refresh, the named servers (default: all)
are catalogued again even when their entry is current. One progress line per
server on stderr. Exits 1 if any server failed.

  --refresh             re-catalogue servers that already have an entry
  --cache FILE          catalogue file (as for serve)
  --trust-project       (as for serve) project servers run without approval

${commonHelp}

${exitHelp}`,
};
