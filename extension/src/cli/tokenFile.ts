// The gateway's bearer token file: read only when it is a regular file of
// ours (never through a symbolic link, never a directory, FIFO or device),
// created exclusively and atomically (a complete temp file hard-linked into
// place, so of two `serve --http` started at once exactly one creates it and
// both use its token). Every refusal is one line naming the file and what to
// do; nothing read from a foreign file is ever printed.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GatewayLimits } from '../core/contract.generated';
import { notARegularFile } from '../host/config/readConfigFile';
import { CliError } from './cliError';

/** Exit code of a token file that cannot be used (docs/cli.md: runtime failure). */
const exitCode = 1;

/** The core's rules for the token file (host_limits.rs `gateway`): its size, a token's length, the tries of a racing start. */
export type TokenFileLimits = Pick<GatewayLimits, 'tokenFileMaxBytes' | 'tokenMinChars' | 'tokenFileAttempts'>;

export function readOrCreateToken(file: string, limits: TokenFileLimits): { token: string; file: string } {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < limits.tokenFileAttempts; attempt++) {
    const stat = lstatOrUndefined(file);
    if (stat === undefined) {
      // 256 random bits (43 characters): the token's strength, well over the core's shortest accepted.
      const token = randomBytes(32).toString('base64url');
      if (createExclusively(file, `${token}\n`)) return { token, file };
      continue; // another start created it first: use its token
    }
    refuseUnusable(file, stat, limits);
    const token = readToken(file, limits);
    if (token === undefined) {
      // Readable by others, or too short to be ours: replace it with a new one.
      fs.rmSync(file, { force: true });
      continue;
    }
    return { token, file };
  }
  throw new CliError(`token file ${file} keeps changing while it is read; stop the other lazy-mcp starting at the same time and try again`, exitCode);
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`token file ${file} cannot be checked (${(err as NodeJS.ErrnoException).code ?? 'error'}); check the permissions of ${path.dirname(file)}`, exitCode);
  }
}

function refuseUnusable(file: string, stat: fs.Stats, limits: TokenFileLimits): void {
  if (stat.isSymbolicLink()) {
    throw new CliError(
      `token file ${file} is a symbolic link; lazy-mcp never reads its token through a link (another file would become the token). Remove the link (a new token is created) or replace it with a regular file of mode 0600`,
      exitCode,
    );
  }
  const kind = notARegularFile(stat);
  if (kind) throw new CliError(`token file ${file} ${kind}, not a file; remove or rename it and start again (a new token is created)`, exitCode);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new CliError(`token file ${file} belongs to another user (uid ${stat.uid}); remove it and start again (a new token is created)`, exitCode);
  }
  if (stat.size > limits.tokenFileMaxBytes) {
    throw new CliError(`token file ${file} is larger than ${limits.tokenFileMaxBytes} bytes, so it is not a lazy-mcp token; remove it and start again`, exitCode);
  }
}

/** The token, or undefined when the file should be replaced (others can read it, or it is too short). */
function readToken(file: string, limits: TokenFileLimits): string | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  let text: string;
  let mode: number;
  try {
    const opened = fs.fstatSync(fd);
    refuseUnusable(file, opened, limits);
    mode = opened.mode;
    const buffer = Buffer.alloc(limits.tokenFileMaxBytes + 1);
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    text = buffer.subarray(0, length).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) return undefined;
  const token = text.replace(/\r?\n$/, '');
  // An Authorization header carries visible ASCII only: a CR/LF or space in it could never be sent.
  if (/[^\x21-\x7e]/.test(token)) {
    throw new CliError(
      `token file ${file}: the token contains a line break, space or other character no client can send in an Authorization header; write it on one line of printable ASCII, or remove the file (a new token is created)`,
      exitCode,
    );
  }
  return token.length >= limits.tokenMinChars ? token : undefined;
}

/** Write `content` to `file` only if it does not exist yet, all at once; false when another process won. */
function createExclusively(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    // No hard links on this file system: an exclusive create is the next best thing.
    try {
      fs.writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw inner;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
