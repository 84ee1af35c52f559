// Reads one config file (or `{file:...}` reference) safely: only a regular
// file, at most the core's `configFileMaxBytes` (host_limits.rs), opened non-blocking so a FIFO swapped in
// cannot hang us. Anything else is reported as what it is (a directory, a
// symbolic link loop, a FIFO, a device, too big), never as "not found", and
// nothing of it is read. A file reached through a symbolic link is reported with
// the file actually opened (`realPath`): the core refuses a `{file:...}` by it too.
import * as fs from 'node:fs';
import type { FileRead } from '../../core/contract.generated';

/** One path as read: the core's `FileRead` (null content = missing, or `unreadable` says what the path is). */
export type ReadResult = FileRead;

/** `maxBytes`: the most a config file (or a `{file:...}` secret) may be, the core's `configFileMaxBytes`. */
export async function readConfigFile(p: string, maxBytes: number): Promise<ReadResult> {
  const unreadable = (what: string): ReadResult => ({ path: p, content: null, unreadable: what });
  // lstat first: most paths of a discovery plan do not exist, and a missing one costs one call.
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return unreadable('is a symbolic link loop');
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path: p, content: null };
    return unreadable(notReadable(code));
  }
  if (stat.isSymbolicLink()) {
    try {
      stat = await fs.promises.stat(p);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return unreadable('is a symbolic link loop');
      if (code === 'ENOENT' || code === 'ENOTDIR') return unreadable('is a symbolic link to a file that does not exist');
      return unreadable(notReadable(code));
    }
  }
  const kind = notARegularFile(stat);
  if (kind) return unreadable(kind);
  if (stat.size > maxBytes) return unreadable(tooBig(stat.size, maxBytes));
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(p, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return unreadable(notReadable((err as NodeJS.ErrnoException).code));
  }
  try {
    // The path may have been replaced between the stat and the open.
    const opened = await handle.stat();
    const openedKind = notARegularFile(opened);
    if (openedKind) return unreadable(openedKind);
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(opened.size + 1, 64 * 1024)));
    let length = 0;
    for (;;) {
      if (length === buffer.length) break;
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return unreadable(tooBig(length, maxBytes));
    const real = await openedPath(handle, p);
    return { path: p, content: buffer.subarray(0, length).toString('utf8'), ...(real !== undefined && real !== p ? { realPath: real } : {}) };
  } catch (err) {
    return unreadable(notReadable((err as NodeJS.ErrnoException).code));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The file `handle` opened, links resolved: Linux names it in /proc (no race with a
 * link swapped after the open); elsewhere `realpath` of the path.
 */
async function openedPath(handle: fs.promises.FileHandle, p: string): Promise<string | undefined> {
  try {
    return process.platform === 'linux' ? await fs.promises.readlink(`/proc/self/fd/${handle.fd}`) : await fs.promises.realpath(p);
  } catch {
    return undefined;
  }
}

/** What a path that is not a regular file is ("is a directory", ...); undefined for a regular file. */
export function notARegularFile(stat: fs.Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return 'is a directory';
  if (stat.isFIFO()) return 'is a FIFO (named pipe)';
  if (stat.isSocket()) return 'is a socket';
  if (stat.isCharacterDevice()) return 'is a character device';
  if (stat.isBlockDevice()) return 'is a block device';
  return 'is not a regular file';
}

function tooBig(size: number, maxBytes: number): string {
  const mb = (n: number): string => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  return `is larger than ${mb(maxBytes)} (${size > maxBytes + 1 ? mb(size) : 'it kept growing while read'})`;
}

function notReadable(code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  if (code === 'EISDIR') return 'is a directory';
  return `cannot be read (${code ?? 'unknown error'})`;
}
