// One open Server-Sent Events response.
import type { ServerResponse } from 'node:http';

/**
 * The core's timing (host_limits.rs): a comment every `sseKeepAliveMs` on an
 * idle stream; a POST's stream sends its headers with its first event, so a fast
 * call's answer leaves in one write (headers, event and the end of the body
 * together) instead of three, each of which wakes the client; a call still
 * unanswered after `sseHeadersWithinMs` gets its headers alone, so clients with
 * a header timeout keep waiting.
 */
export interface SseTiming {
  sseKeepAliveMs: number;
  sseHeadersWithinMs: number;
}

export class SseStream {
  private timer: NodeJS.Timeout;
  private isClosed = false;
  /** Something went out (`res.headersSent` is true from `writeHead` on, before anything is written). */
  private flushed: boolean;

  /**
   * `flushNow`: send the headers at once (a GET stream: the client waits for them to
   * know it is listening). The owner calls `closed()` from its response's 'close'
   * listener (one listener per response, not one per object on it).
   */
  constructor(
    private readonly res: ServerResponse,
    /** All of its headers (Content-Type text/event-stream among them): read, never changed. */
    headers: Readonly<Record<string, string>>,
    private readonly timing: SseTiming,
    flushNow = false,
  ) {
    res.writeHead(200, headers);
    if (flushNow) res.flushHeaders();
    this.flushed = flushNow;
    this.timer = setTimeout(() => this.idle(), flushNow ? timing.sseKeepAliveMs : timing.sseHeadersWithinMs);
    this.timer.unref();
  }

  /** The response closed (res 'close', not req 'close', which fires once the body is read): the stream's end. */
  closed(): void {
    this.isClosed = true;
    clearTimeout(this.timer);
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  send(message: string): void {
    if (this.isClosed) return;
    this.flushed = true;
    this.res.write(`event: message\ndata: ${message}\n\n`);
  }

  /** Ends the stream, `last` (if any) as its final event: one write with whatever is still unsent. */
  end(last?: string): void {
    clearTimeout(this.timer);
    if (this.isClosed) return;
    if (last === undefined) this.res.end();
    else this.res.end(`event: message\ndata: ${last}\n\n`);
  }

  /** Nothing sent for a while: the headers if still unsent, else a comment line (keeps idle proxies and clients from dropping the stream). */
  private idle(): void {
    if (this.isClosed) return;
    if (this.flushed) this.res.write(': keep-alive\n\n');
    else this.res.flushHeaders();
    this.flushed = true;
    this.timer = setTimeout(() => this.idle(), this.timing.sseKeepAliveMs);
    this.timer.unref();
  }
}
