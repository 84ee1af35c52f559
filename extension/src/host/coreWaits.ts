// Looking again at something that gives no event (a lock file, a socket not
// listening yet), as the core says: how soon and when to give up are the core's
// (host_waits.rs, WASM `nextTry`). This is the host's one such loop; it only
// carries the decision out.
import { randomInt } from 'node:crypto';
import type { WasmCore } from '../core/wasmCore';

/** What is waited for (host_waits.rs `Wait`). */
export type Wait = 'ownerBusy' | 'ownerStarting' | 'ownerStarted' | 'otherSignIn';

/** The core's decision: look again after this many milliseconds, or `undefined`: give up. */
export type NextTry = (wait: Wait, elapsedMs: number) => number | undefined;

/** How a wait crosses into the core (host_waits.rs `Wait::from_code`: a number costs the `.wasm` no string code). */
const WAIT_CODES: Readonly<Record<Wait, number>> = { ownerBusy: 0, ownerStarting: 1, ownerStarted: 2, otherSignIn: 3 };

/** The core's `nextTry` (-1: give up); `random` spreads the clients that wait at once. */
export function nextTryOf(core: Pick<WasmCore, 'call'>): NextTry {
  return (wait, elapsedMs) => {
    const pause = core.call((c) => c.nextTry(WAIT_CODES[wait], Math.min(elapsedMs, MAX_U32), randomInt(MAX_U32)));
    return pause < 0 ? undefined : pause;
  };
}

/** The largest u32: what crosses as `elapsedMs` (an elapsed time past it is given up anyway) and the random draw's bound. */
const MAX_U32 = 0xffff_ffff;

/** One look: done with a value, or still waiting for `wait` (`error`: what to throw if the core gives up). */
export type Look<T> = { done: T } | { wait: Wait; error?: Error };

/**
 * Looks until `look` is done, pausing as the core says between looks. When the core gives up,
 * `gaveUp(elapsedMs)` is the result (it may throw), else the last look's `error` is thrown.
 * `since`: when the waiting began (a wait that continues another); `cancelled` cuts a pause short.
 */
export async function lookUntilDone<T>(
  nextTry: NextTry,
  look: () => Promise<Look<T>>,
  { since = Date.now(), cancelled, gaveUp }: { since?: number; cancelled?: AbortSignal; gaveUp?: (elapsedMs: number) => T } = {},
): Promise<T> {
  for (;;) {
    const seen = await look();
    if ('done' in seen) return seen.done;
    const elapsed = Date.now() - since;
    const pause = nextTry(seen.wait, elapsed);
    if (pause === undefined) {
      if (gaveUp) return gaveUp(elapsed);
      throw seen.error ?? new Error(`gave up waiting (${seen.wait}) after ${elapsed} ms`);
    }
    if (pause > 0) await pauseFor(pause, cancelled);
  }
}

function pauseFor(ms: number, cancelled: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      cancelled?.removeEventListener('abort', done);
      resolve();
    }
    cancelled?.addEventListener('abort', done, { once: true });
  });
}
