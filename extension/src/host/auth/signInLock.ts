// One sign-in per server across processes (VS Code windows, `lazy-mcp auth login`
// runs): a lock file per server URL, created exclusively. The process that holds
// it signs in; the others wait for the tokens it stores (one registration, one
// browser consent). A lock whose process is gone, or older than any sign-in can
// last, is stale and taken over.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SignInLock {
  /** Takes the lock, or says who holds it. */
  tryAcquire(): { release(): void } | undefined;
}

/**
 * `maxAgeMs`: a lock older is stale whoever holds it; `unwrittenGraceMs`: how long a lock file
 * may stay without its creator's pid (the core's `hostLimits().signIn`).
 */
export function signInLock(dir: string, serverUrl: string, maxAgeMs: number, unwrittenGraceMs: number): SignInLock {
  const file = path.join(dir, `${createHash('sha256').update(serverUrl).digest('hex').slice(0, 32)}.lock`);
  const mine = `${process.pid} ${Date.now()} ${Math.random().toString(36).slice(2)}`;
  const create = (): boolean => {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, mine, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  };
  return {
    tryAcquire() {
      if (!create()) {
        if (!isStale(file, maxAgeMs, unwrittenGraceMs)) return undefined;
        fs.rmSync(file, { force: true });
        if (!create()) return undefined;
      }
      return {
        release() {
          try {
            if (fs.readFileSync(file, 'utf8') === mine) fs.rmSync(file, { force: true });
          } catch {
            // already gone
          }
        },
      };
    },
  };
}

function isStale(file: string, maxAgeMs: number, unwrittenGraceMs: number): boolean {
  let text: string;
  let mtimeMs: number;
  try {
    text = fs.readFileSync(file, 'utf8');
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    return true; // vanished meanwhile
  }
  if (Date.now() - mtimeMs > maxAgeMs) return true;
  const pid = Number(text.split(' ')[0]);
  // No pid yet: another process has just created the file and not written it (the exclusive
  // create and the write are two steps). Taking it over then gave two sign-ins at once; only a
  // file left unwritten for a while is garbage.
  if (!Number.isInteger(pid) || pid <= 0) return Date.now() - mtimeMs > unwrittenGraceMs;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
