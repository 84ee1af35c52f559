// The loopback listener that receives the authorization redirect: bound to
// 127.0.0.1 only, open only while one sign-in is under way, on the port the
// client registration was made with (a changed port breaks registered
// redirect URIs). It checks `state` and the issuer (RFC 9207): an `iss` naming
// another authorization server, or no `iss` from one whose metadata says it
// sends it, ends the sign-in as failed. A redirect with the wrong `state` is
// answered 400 and changes nothing.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type RedirectResult = { kind: 'code'; code: string } | { kind: 'cancelled'; error: string } | { kind: 'failed'; message: string };

export interface RedirectListener {
  port: number;
  redirectUrl: string;
  /** The first redirect carrying the expected `state`. */
  result: Promise<RedirectResult>;
  close(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`the sign-in callback port ${port} on 127.0.0.1 is in use by another program`);
  }
}

const page = (title: string, text: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${text}</p></body>`;

export async function listenForRedirect(
  port: number,
  expectedState: string,
  expectedIssuer: () => { issuer: string | undefined; required: boolean },
): Promise<RedirectListener> {
  let settle!: (r: RedirectResult) => void;
  const result = new Promise<RedirectResult>((resolve) => (settle = resolve));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const answer = (status: number, title: string, text: string): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page(title, text));
    };
    if (url.pathname !== '/callback') return answer(404, 'Not found', 'This is the Lazy MCP sign-in callback.');
    if (url.searchParams.get('state') !== expectedState) {
      return answer(400, 'Sign-in not accepted', 'This redirect does not belong to the sign-in under way (state mismatch). Nothing was stored.');
    }
    const iss = url.searchParams.get('iss');
    const { issuer, required } = expectedIssuer();
    if (iss !== null && issuer !== undefined && stripSlash(iss) !== stripSlash(issuer)) {
      answer(400, 'Sign-in not accepted', 'The redirect names another authorization server (issuer mismatch). Nothing was stored.');
      settle({ kind: 'failed', message: `the redirect came from another authorization server (issuer mismatch: expected ${issuer})` });
      return;
    }
    if (iss === null && required) {
      answer(400, 'Sign-in not accepted', 'The redirect does not say which authorization server sent it. Nothing was stored.');
      settle({ kind: 'failed', message: `the redirect carries no \`iss\` although the authorization server ${issuer ?? ''} says it sends one (RFC 9207)` });
      return;
    }
    const error = url.searchParams.get('error');
    if (error !== null) {
      // access_denied: the user said no. Anything else: the authorization server refused the request.
      const denied = error === 'access_denied';
      answer(200, denied ? 'Sign-in cancelled' : 'Sign-in failed', 'You can close this tab.');
      const description = url.searchParams.get('error_description');
      settle(
        denied
          ? { kind: 'cancelled', error: error.slice(0, 100) }
          : { kind: 'failed', message: `the authorization server refused the sign-in: ${error.slice(0, 60)}${description ? ` (${description.slice(0, 120)})` : ''}` },
      );
      return;
    }
    const code = url.searchParams.get('code');
    if (code === null || code === '') return answer(400, 'Sign-in not accepted', 'The redirect carries no authorization code.');
    answer(200, 'Signed in', 'Lazy MCP is signed in. You can close this tab.');
    settle({ kind: 'code', code });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' || err.code === 'EACCES' ? new PortInUseError(port) : err));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    result,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function stripSlash(s: string): string {
  return s.endsWith('/') ? s.slice(0, -1) : s;
}
