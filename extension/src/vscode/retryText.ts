// The retry part of a FAILED server's line in the servers view: the core says
// when the next automatic retry is due (`retryAtMs`) or that it gave up (no
// `retryAtMs`, `failedAttempts`); this only turns that into words.
import type { ServerDiagnostics } from '../host/snapshotTypes';

export function retryText(s: ServerDiagnostics, nowMs: number): string | undefined {
  if (s.state.kind !== 'FAILED') return undefined;
  const at = s.state.retryAtMs;
  if (at === undefined || at === null) return `gave up after ${s.failedAttempts} attempts`;
  return `next retry in ${Math.max(0, Math.ceil((at - nowMs) / 1000))} s`;
}

/** Whether any line shows a countdown (the view re-renders every second meanwhile). */
export function hasCountdown(servers: ServerDiagnostics[]): boolean {
  return servers.some((s) => s.state.kind === 'FAILED' && s.state.retryAtMs !== undefined && s.state.retryAtMs !== null);
}
