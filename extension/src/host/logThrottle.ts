// Bounds what a flood of similar log lines costs (a server printing garbage
// on stdout, a client sending rejected requests in a loop): per server and
// kind of line, the first `burst` lines of each interval are written, the
// rest are counted and summarized in one line when the interval ends (the
// numbers are the core's: `limits().logThrottle`, host_limits.rs). Only
// an output-rate mechanism: what is logged is still decided where it is
// logged. Debug lines (servers' stderr under --verbose) are asked for
// explicitly and pass through.
import type { LogLevel, LogThrottleLimits } from '../core/contract.generated';

type LogFn = (level: LogLevel, message: string, server?: string) => void;

interface Window {
  start: number;
  written: number;
  suppressed: number;
  level: LogLevel;
  server?: string;
  kind: string;
}

export class LogThrottle {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LogFn,
    private readonly limits: LogThrottleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  readonly log: LogFn = (level, message, server) => {
    if (level === 'debug') return this.sink(level, message, server);
    const kind = kindOf(message);
    const key = `${server ?? ''}\u0000${kind}`;
    const now = this.now();
    let window = this.windows.get(key);
    if (window && now - window.start >= this.limits.intervalMs) {
      this.summarize(window);
      this.windows.delete(key);
      window = undefined;
    }
    if (!window) {
      if (this.windows.size >= this.limits.maxKinds) this.forgetOldest();
      window = { start: now, written: 0, suppressed: 0, level, server, kind };
      this.windows.set(key, window);
    }
    if (window.written < this.limits.burst) {
      window.written++;
      this.sink(level, message, server);
      return;
    }
    window.suppressed++;
    this.timer ??= setInterval(() => this.flush(false), this.limits.intervalMs).unref();
  };

  /** Summarize finished intervals (all of them when `all`). */
  flush(all = true): void {
    const now = this.now();
    for (const [key, window] of this.windows) {
      if (!all && now - window.start < this.limits.intervalMs) continue;
      this.summarize(window);
      this.windows.delete(key);
    }
    if (this.windows.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  dispose(): void {
    this.flush(true);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private summarize(window: Window): void {
    if (window.suppressed === 0) return;
    const seconds = Math.max(1, Math.round((this.now() - window.start) / 1000));
    this.sink(
      window.level,
      `… ${window.suppressed} more similar line${window.suppressed === 1 ? '' : 's'} ("${window.kind} …") suppressed in ${seconds} s`,
      window.server,
    );
  }

  private forgetOldest(): void {
    const [key, window] = this.windows.entries().next().value ?? [];
    if (key === undefined || window === undefined) return;
    this.summarize(window);
    this.windows.delete(key);
  }
}

/** The kind of a line: its first three words, numbers blanked (the rest varies per line). */
function kindOf(message: string): string {
  return message.split(/\s+/, 3).join(' ').replace(/\d+/g, '#').slice(0, 80);
}
