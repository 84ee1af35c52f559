// Admission checks for the loopback gateway: a per-window bearer secret and a
// loopback Host/Origin (DNS-rebinding protection). Decides nothing about servers.
import { timingSafeEqual } from 'node:crypto';

/** A refusal carries its whole answer: the gateway writes it as it is. */
export type Admission = { ok: true } | { ok: false; status: number; headers: Record<string, string>; body: string; reason: string };

const forbidden = (reason: string): Admission => ({ ok: false, status: 403, headers: { 'Content-Type': 'text/plain' }, body: 'Forbidden\n', reason });
const unauthorized = (reason: string): Admission => ({ ok: false, status: 401, headers: { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer' }, body: 'Unauthorized\n', reason });

const loopbackHosts = ['127.0.0.1', 'localhost', '[::1]'];
const admitted: Admission = { ok: true };

/** The Host and Origin values a loopback gateway on `port` accepts (built once per port, not per request). */
const allowedByPort = new Map<number, { hosts: Set<string>; origins: Set<string> }>();
function allowedFor(port: number): { hosts: Set<string>; origins: Set<string> } {
  let allowed = allowedByPort.get(port);
  if (allowed === undefined) {
    allowed = { hosts: new Set(loopbackHosts.map((h) => `${h}:${port}`)), origins: new Set(loopbackHosts.map((h) => `http://${h}:${port}`)) };
    allowedByPort.set(port, allowed);
  }
  return allowed;
}

/** The request headers admission reads (as `IncomingMessage.headers` gives them). */
export interface AdmissionHeaders {
  host?: string;
  origin?: string;
  authorization?: string;
}

/**
 * `token`: the bearer secret's bytes (undefined = no bearer check: CLI `serve --http
 * --no-auth`, testing only); Host/Origin are always checked.
 */
export function admit(headers: AdmissionHeaders, port: number, token: Buffer | undefined): Admission {
  const allowed = allowedFor(port);
  const host = headers.host ?? '';
  if (!allowed.hosts.has(host)) {
    return forbidden(`Host header "${host}" is not this loopback gateway`);
  }
  const origin = headers.origin;
  if (origin !== undefined && !allowed.origins.has(origin)) {
    return forbidden(`Origin "${origin}" is not allowed`);
  }
  if (token === undefined) return admitted;
  const auth = headers.authorization ?? '';
  // The auth scheme is case-insensitive (RFC 7235 §2.1): `bearer x` is `Bearer x`.
  const scheme = /^bearer +/i.exec(auth);
  const presented = Buffer.from(scheme ? auth.slice(scheme[0].length) : '');
  if (presented.length !== token.length || !timingSafeEqual(presented, token)) {
    return unauthorized(auth ? 'wrong bearer token' : 'missing bearer token');
  }
  return admitted;
}
