// Admission checks for the loopback gateway: a per-window bearer secret and a
// loopback Host/Origin (DNS-rebinding protection). Decides nothing about servers.
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

export type Admission = { ok: true } | { ok: false; status: 401 | 403; reason: string };

const loopbackHosts = ['127.0.0.1', 'localhost', '[::1]'];

/** `token` undefined = no bearer check (CLI `serve --http --no-auth`, testing only); Host/Origin are always checked. */
export function admit(req: IncomingMessage, port: number, token: string | undefined): Admission {
  const host = req.headers.host ?? '';
  if (!loopbackHosts.some((h) => host === `${h}:${port}`)) {
    return { ok: false, status: 403, reason: `Host header "${host}" is not this loopback gateway` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !loopbackHosts.some((h) => origin === `http://${h}:${port}`)) {
    return { ok: false, status: 403, reason: `Origin "${origin}" is not allowed` };
  }
  if (token === undefined) return { ok: true };
  const auth = req.headers.authorization ?? '';
  // The auth scheme is case-insensitive (RFC 7235 §2.1): `bearer x` is `Bearer x`.
  const scheme = /^bearer +/i.exec(auth);
  const presented = Buffer.from(scheme ? auth.slice(scheme[0].length) : '');
  const expected = Buffer.from(token);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    return { ok: false, status: 401, reason: auth ? 'wrong bearer token' : 'missing bearer token' };
  }
  return { ok: true };
}
