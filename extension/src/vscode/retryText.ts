// The retry part of a FAILED server's line in the servers view: the core's
// snapshot says when the next automatic retry is due (`retryAtMs`) or that it
// gave up (`gaveUpAfter` attempts); this only turns that into words.
import type { ServerDiagnostics } from '../host/snapshotTypes';
import { count } from '../host/wording';

export function retryText(s: ServerDiagnostics, nowMs: number): string | undefined {
  if (s.retryAtMs != null) return `next retry in ${Math.max(0, Math.ceil((s.retryAtMs - nowMs) / 1000))} s`;
  return s.gaveUpAfter != null ? `gave up after ${count(s.gaveUpAfter, 'attempt')}` : undefined;
}

/** Whether any line shows a countdown (the view re-renders every second meanwhile). */
export function hasCountdown(servers: ServerDiagnostics[]): boolean {
  return servers.some((s) => s.retryAtMs != null);
}
