// The CLI's token store: one JSON file of mode 0600 under the CLI's config
// folder. Never read through a symbolic link, never a file of another user;
// written atomically (temp file + rename) so a reader never sees half a file.
// Read again on every `get`, so a `lazy-mcp auth login` in another terminal is
// seen by a running `serve`.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { notARegularFile } from '../config/readConfigFile';
import type { TokenStore } from './tokenStore';

export class TokenFileError extends Error {}

export class FileTokenStore implements TokenStore {
  private writing: Promise<void> = Promise.resolve();
  readonly lockDir: string;

  /** `maxFileBytes`: the largest sign-in file read, the core's `signIn.tokenStoreMaxBytes` (host_limits.rs). */
  constructor(
    readonly file: string,
    private readonly maxFileBytes: number,
  ) {
    this.lockDir = path.join(path.dirname(file), 'oauth-locks');
  }

  /**
   * Reports the keys whose value changed in the file, whoever wrote it (a `lazy-mcp
   * auth login` in another terminal). Polls the file's status (a rename replaces it,
   * which file-system events on the file itself would miss); never keeps the process alive.
   */
  watch(onChange: (key: string) => void, pollMs: number): { dispose(): void } {
    let last = this.readQuietly();
    const listener = (): void => {
      const now = this.readQuietly();
      for (const key of new Set([...Object.keys(last), ...Object.keys(now)])) if (last[key] !== now[key]) onChange(key);
      last = now;
    };
    fs.watchFile(this.file, { interval: pollMs, persistent: false }, listener);
    return { dispose: () => fs.unwatchFile(this.file, listener) };
  }

  private readQuietly(): Record<string, string> {
    try {
      return this.read();
    } catch {
      return {}; // refused files are reported by get/set
    }
  }

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.read()[key]);
  }

  set(key: string, value: string): Promise<void> {
    return this.update((all) => {
      all[key] = value;
    });
  }

  delete(key: string): Promise<void> {
    return this.update((all) => {
      delete all[key];
    });
  }

  private update(change: (all: Record<string, string>) => void): Promise<void> {
    const next = this.writing.then(() => {
      const all = this.read();
      change(all);
      this.write(all);
    });
    this.writing = next.catch(() => undefined);
    return next;
  }

  private read(): Record<string, string> {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new TokenFileError(`sign-in file ${this.file} cannot be checked (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    this.refuse(stat);
    const fd = fs.openSync(this.file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    let text: string;
    try {
      this.refuse(fs.fstatSync(fd));
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
      return out;
    } catch {
      // A damaged file holds no usable sign-in: the next sign-in rewrites it.
      return {};
    }
  }

  private refuse(stat: fs.Stats): void {
    if (stat.isSymbolicLink()) {
      throw new TokenFileError(`sign-in file ${this.file} is a symbolic link; lazy-mcp never reads or writes tokens through a link. Remove it and sign in again`);
    }
    const kind = notARegularFile(stat);
    if (kind) throw new TokenFileError(`sign-in file ${this.file} ${kind}, not a file; remove or rename it and sign in again`);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw new TokenFileError(`sign-in file ${this.file} belongs to another user (uid ${stat.uid}); remove it and sign in again`);
    }
    if (stat.size > this.maxFileBytes) throw new TokenFileError(`sign-in file ${this.file} is larger than ${this.maxFileBytes} bytes; remove it and sign in again`);
  }

  private write(all: Record<string, string>): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600, flag: 'wx' });
      fs.renameSync(tmp, this.file);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
}
