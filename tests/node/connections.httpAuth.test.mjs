// The HTTP connection's OAuth side (ConnectionAuth): the bearer token goes to its own server,
// a 401 hands the refused message back to the engine (which holds it and sends it again once it
// refreshed: the connection holds nothing), and a 401 that arrives late for
// a request sent with the previous token is sent again with the current one — not reported as a
// new challenge (which would make the engine ask for a sign-in after a successful refresh).
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, test } from 'node:test';
import { drive, waitUntil } from './connections.helper.mjs';

const closers = [];
after(async () => {
  for (const c of closers) await c();
});

test('a late 401 for a request sent with the replaced token is re-sent, not reported: one challenge for concurrent requests', async () => {
  let valid = 'token-1';
  const seen = [];
  let releaseLate;
  const lateHeld = new Promise((r) => (releaseLate = r));
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const msg = JSON.parse(body);
      const auth = req.headers.authorization ?? '';
      seen.push({ method: msg.method, auth });
      if (auth !== `Bearer ${valid}`) {
        // The "late" request: its refusal is delivered only after the refresh completed.
        if (msg.method === 'late') await lateHeld;
        res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"' });
        return res.end();
      }
      if (msg.id === undefined) {
        res.writeHead(202);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const result = msg.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 't', version: '1' } } : { echoed: msg.method };
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;

  let current = 'token-1';
  const challenges = [];
  // What the engine holds: the refused messages.
  const refused = [];
  const auth = {
    token: () => current,
    onChallenge: (status, challenge, hadToken, message) => {
      challenges.push({ status, challenge, hadToken });
      refused.push(message);
    },
  };
  const d = drive({ type: 'http', url, headers: {} }, { auth });
  closers.push(() => d.conn.close());
  const init = await d.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
  assert.equal(init.result.serverInfo.name, 't');
  assert.equal(seen[0].auth, 'Bearer token-1', 'the stored token is sent');

  // The access token expires; two requests are in flight with it.
  valid = 'token-2';
  const early = d.request('early');
  const late = d.request('late');
  await waitUntil(() => challenges.length === 1, 10_000, 'the first challenge');
  assert.deepEqual(challenges[0], { status: 401, challenge: 'Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"', hadToken: true });
  // The engine refreshed: new token, and it sends what it held again.
  current = 'token-2';
  assert.deepEqual(refused.map((r) => JSON.parse(r.message).method), ['early'], 'the refused message went back to the engine');
  for (const r of refused.splice(0)) d.conn.send(r.message);
  assert.deepEqual((await early).result, { echoed: 'early' });
  releaseLate();
  assert.deepEqual((await late).result, { echoed: 'late' });
  assert.equal(challenges.length, 1, 'the stale 401 was not reported as a new challenge');
  assert.deepEqual(
    seen.filter((s) => s.method === 'late').map((s) => s.auth),
    ['Bearer token-1', 'Bearer token-2'],
  );
});
