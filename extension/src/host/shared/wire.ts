// Frames between a client and the owner of shared servers: one line each, its
// first byte the kind (docs/shared-servers.md). `M` frames carry an MCP
// message as it came; nothing here reads it.
import { LineSplitter, byteLine } from '../connections/lineFraming';

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
  /** client → owner: stop the owner. */
  stop: 0x58, // X
} as const;

/** A frame's bytes: kind, body (newlines, which JSON never needs, become spaces), newline. */
export function frame(kind: number, body: string | Uint8Array = ''): Buffer {
  let bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.includes(0x0a) || bytes.includes(0x0d)) bytes = Buffer.from(bytes.toString('utf8').replace(/\r?\n|\r/g, ' '), 'utf8');
  const out = Buffer.allocUnsafe(bytes.length + 2);
  out[0] = kind;
  bytes.copy(out, 1);
  out[out.length - 1] = 0x0a;
  return out;
}

/** Split a socket's bytes into frames: `(kind, body bytes)`. */
export function frameReader(onFrame: (kind: number, body: Buffer) => void, onOverflow: (bytes: number) => void): LineSplitter<Buffer> {
  return new LineSplitter<Buffer>(
    (line) => {
      if (line.length > 0) onFrame(line[0]!, line.subarray(1));
    },
    256 * 1024 * 1024,
    (bytes) => onOverflow(bytes),
    0,
    byteLine,
  );
}
