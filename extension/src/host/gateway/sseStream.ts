// One open Server-Sent Events response.
import type { ServerResponse } from 'node:http';

const keepAliveMs = 25_000;

export class SseStream {
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
    onClose: () => void,
  ) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', ...headers });
    res.flushHeaders();
    // A comment line now and then keeps idle proxies and clients from dropping the stream.
    this.timer = setInterval(() => this.res.write(': keep-alive\n\n'), keepAliveMs);
    this.timer.unref();
    // res 'close' (not req 'close', which fires once the body is read) marks the stream's end.
    res.on('close', () => {
      this.closed = true;
      clearInterval(this.timer);
      onClose();
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  send(message: string): void {
    if (!this.closed) this.res.write(`event: message\ndata: ${message}\n\n`);
  }

  end(): void {
    clearInterval(this.timer);
    if (!this.closed) this.res.end();
  }
}
