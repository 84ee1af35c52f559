// The retry part of a FAILED server's line in the servers view: the core says
// when the next automatic retry is due (`retryAtMs`) or that it gave up (no
// `retryAtMs`, `failedAttempts`); this only turns that into words.
import type { ServerDiagnostics } from '../host/snapshotTypes';

export function retryText(s: ServerDiagnostics, nowMs: number): string | undefined {
  if (s.state.kind !== 'FAILED') return undefined;
  if (s.state.retryAtMs === undefined) return `gave up after ${s.failedAttempts} attempts`;
  return `next retry in ${Math.max(0, Math.ceil((s.state.retryAtMs - nowMs) / 1000))} s`;
}

/** Whether any line shows a countdown (the view re-renders every second meanwhile). */
export function hasCountdown(servers: ServerDiagnostics[]): boolean {
  return servers.some((s) => s.state.retryAtMs !== undefined);
}
