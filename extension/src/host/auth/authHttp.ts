// The HTTP side of the OAuth client: every request to an authorization server is
// bounded (a timeout, and the sign-in's cancellation), and failures are told in
// one line that names the server and never quotes a token.

export type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function boundedFetch(timeoutMs: number, cancelled?: AbortSignal): FetchFn {
  return async (url, init) => {
    const signals = [AbortSignal.timeout(timeoutMs), ...(cancelled ? [cancelled] : [])];
    try {
      return await fetch(url, { ...init, signal: AbortSignal.any(signals) });
    } catch (err) {
      const host = new URL(url.toString()).origin;
      if (cancelled?.aborted) throw new Error('the sign-in was cancelled');
      if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
        throw new Error(`the authorization server ${host} did not answer within ${timeoutMs} ms`);
      }
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new Error(`the authorization server ${host} cannot be reached${cause ? ` (${cause})` : ''}`);
    }
  };
}

/**
 * One line, bounded; SDK errors can quote response bodies (never our tokens, which are not sent back).
 * The lengths are how much of a message is shown, wording as the rest of the sentence: no limit, wait or retry.
 */
export function describe(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ');
  // The SDK's words for an error page that is not an OAuth error: say what the server answered.
  const page = /^HTTP (\d+): Invalid OAuth error response:.*Raw body: (.*)$/.exec(text);
  if (page) return `the authorization server answered HTTP ${page[1]} (${(page[2] ?? '').slice(0, 80)})`;
  return text.slice(0, 300);
}

/** `p`, or a rejection after `ms` with `what`, or when `cancelled` fires. */
export function bounded<T>(p: Promise<T>, ms: number, what: string, cancelled?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
    if (cancelled) {
      onAbort = () => reject(new CancelledError());
      if (cancelled.aborted) onAbort();
      else cancelled.addEventListener('abort', onAbort, { once: true });
    }
  });
  return Promise.race([p, stop]).finally(() => {
    clearTimeout(timer);
    if (onAbort) cancelled?.removeEventListener('abort', onAbort);
  });
}

/** The sign-in was cancelled (by the engine: its calls gave up; or by the user). */
export class CancelledError extends Error {
  constructor() {
    super('the sign-in was cancelled');
  }
}
