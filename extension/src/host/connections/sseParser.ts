// Server-Sent Events parsing (the WHATWG event-stream format).

export interface SseEvent {
  /** `event:` field; '' when absent (meaning "message"). */
  event: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
  /** The last event id seen on the stream (`id:`), if any. */
  id: string | undefined;
}

/**
 * Incremental parser: feed it text chunks in any split; it calls `onEvent` once
 * per complete event. Handles CRLF/CR/LF line endings, multi-line data,
 * comments (keep-alives) and `id`.
 */
export class SseParser {
  private buffer = '';
  private dataLines: string[] = [];
  private eventType = '';
  private sawData = false;
  private lastEventId: string | undefined;
  /** A chunk ended in '\r': a following '\n' belongs to the same line ending. */
  private skipLeadingLf = false;
  /** A byte-order mark is allowed before the first field. */
  private atStart = true;

  /** Characters of the event being read (its data lines and the unfinished line). */
  private pending = 0;
  private overflowed = false;

  /**
   * `maxEventChars`: an event (or a line) that grows beyond it is not kept: `onTooLarge` is
   * called once and everything after it is ignored (the caller ends the stream).
   */
  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly maxEventChars = Infinity,
    private readonly onTooLarge: () => void = () => undefined,
  ) {}

  get lastId(): string | undefined {
    return this.lastEventId;
  }

  push(chunk: string): void {
    if (this.overflowed) return;
    let text = chunk;
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    // The kept buffer holds no line ending, so scanning resumes where the new text starts.
    let scanFrom = this.buffer.length;
    this.buffer += text;
    let start = 0;
    for (;;) {
      let end = -1;
      let next = -1;
      for (let i = Math.max(start, scanFrom); i < this.buffer.length; i++) {
        const c = this.buffer.charCodeAt(i);
        if (c === 0x0a) {
          end = i;
          next = i + 1;
          break;
        }
        if (c === 0x0d) {
          end = i;
          if (i + 1 < this.buffer.length) {
            next = this.buffer.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1;
          } else {
            next = i + 1;
            this.skipLeadingLf = true;
          }
          break;
        }
      }
      if (end === -1) break;
      this.line(this.buffer.slice(start, end));
      if (this.overflowed) return;
      start = next;
      scanFrom = next;
    }
    this.buffer = this.buffer.slice(start);
    if (this.pending + this.buffer.length > this.maxEventChars) this.overflow();
  }

  private overflow(): void {
    this.overflowed = true;
    this.buffer = '';
    this.dataLines = [];
    this.onTooLarge();
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.dataLines.push(value);
        this.sawData = true;
        this.pending += value.length + 1;
        if (this.pending > this.maxEventChars) this.overflow();
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      default:
        // `retry` and unknown fields: nothing to do here (reconnection is not this layer's decision).
        break;
    }
  }

  private dispatch(): void {
    if (this.sawData) {
      this.onEvent({ event: this.eventType, data: this.dataLines.join('\n'), id: this.lastEventId });
    }
    this.dataLines = [];
    this.eventType = '';
    this.sawData = false;
    this.pending = 0;
  }
}
