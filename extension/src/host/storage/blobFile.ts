// Stores one opaque blob (the core's persisted catalogue) in a file, atomically:
// a crash mid-write leaves the previous version, never a torn file. A failed
// write removes its temp file; temp files of ours left by a process that no
// longer runs (killed mid-write) are swept when the blob is read.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export class BlobFile {
  constructor(readonly file: string) {}

  /** The stored blob, or undefined when there is none yet (or it cannot be read). */
  async read(): Promise<string | undefined> {
    // The sweep only removes `.tmp` files of dead processes, never the blob: both at once.
    const [blob] = await Promise.all([fs.readFile(this.file, 'utf8').catch(() => undefined), this.sweepStaleTemps()]);
    return blob;
  }

  async write(blob: string): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      await fs.writeFile(tmp, blob, { mode: 0o600 });
      await fs.rename(tmp, this.file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** Remove `<file>.<pid>.tmp` files whose process is gone (a live one, this one included, may be mid-write). */
  private async sweepStaleTemps(): Promise<void> {
    const dir = path.dirname(this.file);
    const prefix = `${path.basename(this.file)}.`;
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const pid = Number(name.slice(prefix.length, -'.tmp'.length));
      if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processExists(pid)) continue;
      await fs.rm(path.join(dir, name), { force: true }).catch(() => undefined);
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
