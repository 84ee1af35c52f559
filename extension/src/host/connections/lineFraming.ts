// Byte-level line splitting for stdio pipes, and the bounded stderr buffer.

const NEWLINE = 0x0a;

/** A line as text (UTF-8, a trailing `\r` removed): what `LineSplitter` hands over by default. */
export function textLine(bytes: Buffer): string {
  const line = bytes.toString('utf8');
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** A line as its bytes (a trailing `\r` removed), never decoded: for a reader that takes UTF-8 itself. */
export function byteLine(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
}

/**
 * Splits a byte stream into lines. Bytes are kept until a line is complete, so a
 * multi-byte UTF-8 character split across chunks is decoded correctly, and a
 * huge line costs one concatenation (not one per chunk). `decode` turns a line's
 * bytes into what `onLine` gets (`textLine`, or `byteLine` to skip decoding).
 */
export class LineSplitter<Line = string> {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private head = '';

  constructor(
    private readonly onLine: (line: Line) => void,
    /** A line longer than this is dropped (reported once through `onOverflow`). */
    private readonly maxLineBytes: number,
    /** `head`: the first `headBytes` of the dropped line (to find its JSON-RPC id). */
    private readonly onOverflow: (bytes: number, head: string) => void,
    private readonly headBytes = 0,
    // The default (text) matches the default type parameter.
    private readonly decode: (bytes: Buffer) => Line = textLine as unknown as (bytes: Buffer) => Line,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        if (start < chunk.length) this.keep(chunk.subarray(start));
        return;
      }
      if (this.pendingBytes === 0 && !this.discarding && nl - start <= this.maxLineBytes) {
        // The usual line, whole in this chunk: handed over as it lies (nothing kept, no array).
        this.onLine(this.decode(chunk.subarray(start, nl)));
      } else {
        this.keep(chunk.subarray(start, nl));
        this.emit();
      }
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.pendingBytes > 0 || this.discarding) this.emit();
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.discarding) {
      this.pendingBytes += part.length;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.discarding = true;
      if (this.headBytes > 0) this.head = Buffer.concat(this.pending).subarray(0, this.headBytes).toString('utf8');
      this.pending = [];
    }
  }

  private emit(): void {
    if (this.discarding) {
      this.onOverflow(this.pendingBytes, this.head);
      this.head = '';
    } else {
      const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
      this.onLine(this.decode(bytes));
    }
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.discarding = false;
  }
}

/** The last lines of a server's stderr, bounded by line count and by characters. */
export class StderrRing {
  private lines: string[] = [];
  private chars = 0;

  /** The bounds are the core's (`hostLimits().stdio.stderrTailLines`, `stderrTailChars`). */
  constructor(
    private readonly maxLines: number,
    private readonly maxChars: number,
  ) {}

  add(line: string): void {
    const kept = line.length > this.maxChars ? line.slice(line.length - this.maxChars) : line;
    this.lines.push(kept);
    this.chars += kept.length + 1;
    while (this.lines.length > this.maxLines || (this.chars > this.maxChars && this.lines.length > 1)) {
      const dropped = this.lines.shift();
      this.chars -= (dropped?.length ?? 0) + 1;
    }
  }

  tail(): string {
    return this.lines.join('\n');
  }
}
