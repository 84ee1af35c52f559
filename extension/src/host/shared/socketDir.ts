// Where the per-user owner of shared servers listens (docs/shared-servers.md):
// a Unix socket in a directory only this user may enter. A directory owned by
// someone else, open to group/others or a symlink is refused, never "fixed".
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The socket directory is not safe to use; the client runs its servers itself. */
export class SocketDirRefused extends Error {}

/** `$XDG_RUNTIME_DIR/lazy-mcp`, else `<tmpdir>/lazy-mcp-<uid>`; `LAZY_MCP_SOCKET_DIR` overrides both. */
export function defaultSocketDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LAZY_MCP_SOCKET_DIR) return env.LAZY_MCP_SOCKET_DIR;
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'lazy-mcp');
  return path.join(os.tmpdir(), `lazy-mcp-${process.getuid?.() ?? 'user'}`);
}

/** The socket of owners speaking wire version `protocol` (an update runs its own owner beside an old one). */
export function ownerSocketPath(dir: string, protocol: number): string {
  return path.join(dir, `owner-v${protocol}.sock`);
}

/** Create the directory (0700) if missing, then check it is this user's alone. */
export function ensureSocketDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new SocketDirRefused(`cannot create the shared-server directory ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  const fix = `remove it (or set LAZY_MCP_SOCKET_DIR to a directory of yours with mode 0700)`;
  if (st.isSymbolicLink() || !st.isDirectory()) throw new SocketDirRefused(`shared servers refused: ${dir} is not a plain directory; ${fix}`);
  if (uid !== undefined && st.uid !== uid) throw new SocketDirRefused(`shared servers refused: ${dir} belongs to uid ${st.uid}, not to you (uid ${uid}); ${fix}`);
  if ((st.mode & 0o077) !== 0) {
    throw new SocketDirRefused(`shared servers refused: ${dir} has mode ${(st.mode & 0o777).toString(8)}, others may enter it; run chmod 700 ${dir} or ${fix}`);
  }
}
