// Frames between a client and the owner of shared servers: one line each, its
// first byte the kind (docs/shared-servers.md). `M` frames carry an MCP
// message as it came; nothing here reads it.
import { LineSplitter, byteLine } from '../connections/lineFraming';

export { writeBatched } from '../connections/batchedWrite';

export const FRAME = {
  /** client → owner, first frame: attach to a process (JSON). */
  attach: 0x41, // A
  /** either way: one MCP message. */
  message: 0x4d, // M
  /** owner → client: the process is up (`{"pid"}`). */
  opened: 0x4f, // O
  /** owner → client: how many clients hold the process (`{"clients"}`), when it opens and changes; older clients ignore it. */
  sharing: 0x43, // C
  /** owner → client: the process ended (`{"reason","exitCode","stderrTail"}`); the socket ends next. */
  ended: 0x45, // E
  /** client → owner: status request; owner → client: the status (JSON). */
  status: 0x53, // S
  /** client → owner: it lets go by its engine's idle stop (its socket ends next); a close without it is a client that ended. */
  idle: 0x49, // I
  /** client → owner: stop the owner. */
  stop: 0x58, // X
} as const;

/** A frame's bytes: kind, body (newlines, which JSON never needs, become spaces), newline. */
export function frame(kind: number, body: string | Uint8Array = ''): Buffer {
  if (typeof body === 'string') {
    // Encoded once, straight into the frame (indexOf first: a regular expression only when needed).
    const text = body.indexOf('\n') !== -1 || body.indexOf('\r') !== -1 ? body.replace(/\r?\n|\r/g, ' ') : body;
    const out = Buffer.allocUnsafe(Buffer.byteLength(text, 'utf8') + 2);
    out[0] = kind;
    out.write(text, 1, 'utf8');
    out[out.length - 1] = 0x0a;
    return out;
  }
  let bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.includes(0x0a) || bytes.includes(0x0d)) bytes = Buffer.from(bytes.toString('utf8').replace(/\r?\n|\r/g, ' '), 'utf8');
  const out = Buffer.allocUnsafe(bytes.length + 2);
  out[0] = kind;
  bytes.copy(out, 1);
  out[out.length - 1] = 0x0a;
  return out;
}

/** Split a socket's bytes into frames: `(kind, body bytes)`. `maxBytes`: the core's `sharedOwner.maxFrameBytes` (host_limits.rs); a bigger frame is dropped (`onOverflow`). */
export function frameReader(onFrame: (kind: number, body: Buffer) => void, onOverflow: (bytes: number) => void, maxBytes: number): LineSplitter<Buffer> {
  return new LineSplitter<Buffer>(
    (line) => {
      if (line.length > 0) onFrame(line[0]!, line.subarray(1));
    },
    maxBytes,
    (bytes) => onOverflow(bytes),
    0,
    byteLine,
  );
}
