// Admission checks for the loopback gateway: a per-window bearer secret and a
// loopback Host/Origin (DNS-rebinding protection). Decides nothing about servers.
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

/** A refusal carries its whole answer: the gateway writes it as it is. */
export type Admission = { ok: true } | { ok: false; status: number; headers: Record<string, string>; body: string; reason: string };

const forbidden = (reason: string): Admission => ({ ok: false, status: 403, headers: { 'Content-Type': 'text/plain' }, body: 'Forbidden\n', reason });
const unauthorized = (reason: string): Admission => ({ ok: false, status: 401, headers: { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer' }, body: 'Unauthorized\n', reason });

const loopbackHosts = ['127.0.0.1', 'localhost', '[::1]'];

/** `token` undefined = no bearer check (CLI `serve --http --no-auth`, testing only); Host/Origin are always checked. */
export function admit(req: IncomingMessage, port: number, token: string | undefined): Admission {
  const host = req.headers.host ?? '';
  if (!loopbackHosts.some((h) => host === `${h}:${port}`)) {
    return forbidden(`Host header "${host}" is not this loopback gateway`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !loopbackHosts.some((h) => origin === `http://${h}:${port}`)) {
    return forbidden(`Origin "${origin}" is not allowed`);
  }
  if (token === undefined) return { ok: true };
  const auth = req.headers.authorization ?? '';
  // The auth scheme is case-insensitive (RFC 7235 §2.1): `bearer x` is `Bearer x`.
  const scheme = /^bearer +/i.exec(auth);
  const presented = Buffer.from(scheme ? auth.slice(scheme[0].length) : '');
  const expected = Buffer.from(token);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    return unauthorized(auth ? 'wrong bearer token' : 'missing bearer token');
  }
  return { ok: true };
}
