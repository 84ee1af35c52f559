// Stores one opaque blob (the core's persisted catalogue) in a file, atomically:
// a crash mid-write leaves the previous version, never a torn file.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export class BlobFile {
  constructor(readonly file: string) {}

  /** The stored blob, or undefined when there is none yet (or it cannot be read). */
  async read(): Promise<string | undefined> {
    try {
      return await fs.readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
  }

  async write(blob: string): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, blob, { mode: 0o600 });
    await fs.rename(tmp, this.file);
  }
}
