// Windows: how to launch a configured command.
//
// Node does not apply PATHEXT (so `npx` is ENOENT) and refuses to spawn
// `.cmd`/`.bat` files without a shell (EINVAL since Node 20.12.2). Configs say
// `npx`, `uvx`, `pnpm dlx` all the time, so resolve the command on PATH, and run
// batch files through `cmd.exe /d /s /c` with every part escaped for cmd.exe —
// the same rules as the cross-spawn package.

import * as path from 'node:path';

export interface SpawnPlan {
  command: string;
  args: string[];
  /** Pass to spawn as `windowsVerbatimArguments` (the arguments are already quoted). */
  verbatim: boolean;
}

const CMD_META = /([()\][%!^"`<>&|;, *?])/g;
/** npm's cmd-shims re-parse their arguments once more, so meta characters are escaped twice. */
const CMD_SHIM = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i;

export function planWindowsSpawn(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  exists: (file: string) => boolean,
): SpawnPlan {
  const resolved = resolveOnPath(command, env, cwd, exists) ?? command;
  if (!/\.(cmd|bat)$/i.test(resolved)) return { command: resolved, args, verbatim: false };
  const doubleEscape = CMD_SHIM.test(resolved);
  const line = [escapeCommand(path.win32.normalize(resolved)), ...args.map((a) => escapeArgument(a, doubleEscape))].join(' ');
  return { command: envValue(env, 'ComSpec') ?? 'cmd.exe', args: ['/d', '/s', '/c', `"${line}"`], verbatim: true };
}

/** The file a Windows shell would run for `command`, or undefined when none is found. */
export function resolveOnPath(
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  exists: (file: string) => boolean,
): string | undefined {
  const exts = (envValue(env, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '');
  const hasExt = path.win32.extname(command) !== '';
  const candidates = (base: string): string[] => (hasExt ? [base] : exts.map((e) => base + e.toLowerCase()));
  if (/[\\/]/.test(command) || path.win32.isAbsolute(command)) {
    const base = path.win32.resolve(cwd ?? '', command);
    return candidates(base).find(exists);
  }
  const dirs = [cwd, ...(envValue(env, 'PATH') ?? '').split(';')].filter((d): d is string => d !== undefined && d !== '');
  for (const dir of dirs) {
    const found = candidates(path.win32.join(dir.replace(/^"(.*)"$/, '$1'), command)).find(exists);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Environment lookup ignoring case (Windows variable names are case-insensitive; a copied env object is not). */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toLowerCase() === lower && value !== undefined) return value;
  }
  return undefined;
}

export function escapeCommand(command: string): string {
  return command.replace(CMD_META, '^$1');
}

/** Quote for CommandLineToArgvW, then escape cmd.exe meta characters (twice for npm cmd-shims). */
export function escapeArgument(arg: string, doubleEscape: boolean): string {
  // Backslashes before a quote or the end are doubled, quotes escaped (written to avoid regex backtracking).
  let quoted = arg.replace(/(?=(\\+?)?)\1"/g, '$1$1\\"');
  quoted = quoted.replace(/(?=(\\+?)?)\1$/, '$1$1');
  quoted = `"${quoted}"`;
  quoted = quoted.replace(CMD_META, '^$1');
  if (doubleEscape) quoted = quoted.replace(CMD_META, '^$1');
  return quoted;
}
