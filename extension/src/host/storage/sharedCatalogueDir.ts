// The user's shared catalogue (docs/shared-servers.md "The shared catalogue"):
// one file per sharing key, `<dir>/<key>.json`, in a directory only this user
// may enter. The core decides which keys are read, whether an entry is used and
// when one is written; this file only reads and writes them. A directory
// owned by someone else, open to group/others or a symlink is not used (another
// user could plant tool definitions there): every read answers "none".
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BlobFile } from './blobFile';

/** What the engine driver needs of the shared catalogue. */
export interface SharedCatalogueStore {
  /** The file of `key` and its contents (undefined: none, or the directory may not be used). */
  read(key: string): Promise<{ file: string; blob: string | undefined }>;
  write(key: string, blob: string): Promise<void>;
}

/** `$XDG_CACHE_HOME/lazy-mcp/shared-catalogue`, else `~/.cache/lazy-mcp/shared-catalogue`: beside the CLI's catalogues, the same for every VS Code window and CLI session of the user. */
export function defaultSharedCatalogueDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(cache, 'lazy-mcp', 'shared-catalogue');
}

/** Keys the core makes: hex hashes, joined by `-`. Anything else never becomes a path. */
const KEY = /^[0-9a-f]{1,64}(-[0-9a-f]{1,64})?$/;

export class SharedCatalogueDir implements SharedCatalogueStore {
  /** Why the directory is not used, once said (undefined: it is usable, or not checked yet). */
  private refused: string | undefined;

  constructor(
    readonly dir: string,
    private readonly log: (level: 'warn', message: string) => void,
  ) {}

  fileOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a shared catalogue key: ${JSON.stringify(key)}`);
    return path.join(this.dir, `${key}.json`);
  }

  async read(key: string): Promise<{ file: string; blob: string | undefined }> {
    const file = this.fileOf(key);
    if (!(await this.usable(false))) return { file, blob: undefined };
    return { file, blob: await new BlobFile(file).read() };
  }

  async write(key: string, blob: string): Promise<void> {
    const file = this.fileOf(key);
    if (!(await this.usable(true))) return;
    await new BlobFile(file).write(blob);
  }

  /** The directory is this user's alone (created 0700 when `create`); a refusal is logged once. */
  private async usable(create: boolean): Promise<boolean> {
    if (create) await fs.mkdir(this.dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    let why: string | undefined;
    try {
      const st = await fs.lstat(this.dir);
      const uid = process.getuid?.();
      if (st.isSymbolicLink() || !st.isDirectory()) why = 'it is not a plain directory';
      else if (uid !== undefined && st.uid !== uid) why = `it belongs to uid ${st.uid}, not to you (uid ${uid})`;
      else if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) why = `it has mode ${(st.mode & 0o777).toString(8)}, others may enter it; run chmod 700 ${this.dir}`;
    } catch (err) {
      // Not there yet: nothing to read (a write creates it).
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      why = `it cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
    if (why === undefined) {
      this.refused = undefined;
      return true;
    }
    if (this.refused !== why) this.log('warn', `the shared catalogue ${this.dir} is not used: ${why}. Servers are catalogued by each client.`);
    this.refused = why;
    return false;
  }
}
