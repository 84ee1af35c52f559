// Where a user's approved tool definitions live: one file shared by every VS
// Code window and every `lazy-mcp` process of the user, so an approval given in
// one applies in all (the core reads and watches it with the config files).
import * as os from 'node:os';
import * as path from 'node:path';

/** `$XDG_CONFIG_HOME/lazy-mcp/approved-definitions.json` (default `~/.config`). */
export function approvedDefinitionsPath(): string {
  const xdg = process.env['XDG_CONFIG_HOME'];
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config');
  return path.join(base, 'lazy-mcp', 'approved-definitions.json');
}
