// The engine decides an HTTP server's transport (engine/server/http_transport.rs): a real
// `serve --stdio` against server-everything in its legacy HTTP+SSE mode, configured as
// `http` (its first POST is refused: the engine falls back to the legacy transport, as the
// spec's backward-compatibility section says) and as `sse`. The host only reports the first
// exchange and carries out the engine's `httpTransport`.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { tempWorld, writeJson } from './helpers/cliRun.mjs';
import { initialize, initialized, stdioServe } from './helpers/rawMcp.mjs';
import { everythingBin, freePort, startListeningServer } from './connections.helper.mjs';

const w = tempWorld('lazy-mcp-cli-legacy-sse-');
let server;
let serve;

before(async () => {
  const port = await freePort();
  server = await startListeningServer([everythingBin, 'sse'], port);
  // Static headers: no OAuth (nothing to sign in to).
  const remote = (type) => ({ type, url: `http://127.0.0.1:${port}/sse`, headers: { Authorization: 'Bearer static' } });
  writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { probed: remote('http'), legacy: remote('sse') } });
});

after(async () => {
  serve?.child.kill('SIGKILL');
  await server?.stop();
});

const call = (id, tool, args = {}) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } });

test('serve --stdio: an `http` server that speaks only legacy HTTP+SSE is reached through the fallback; an `sse` one directly', { timeout: 120_000 }, async () => {
  serve = stdioServe(['--cwd', w.ws, '--verbose'], w.env);
  serve.send(initialize(1));
  await serve.reply(1);
  serve.send(initialized);
  for (const name of ['probed', 'legacy']) {
    const answer = await serve.reply((serve.send(call(name, `${name}__echo`, { message: `over ${name}` })), name));
    assert.match(JSON.stringify(answer.result?.content ?? answer), new RegExp(`over ${name}`), `${name}: ${JSON.stringify(answer)}\n${serve.stderr()}`);
  }
  assert.match(serve.stderr(), /falling back to the legacy HTTP\+SSE transport/);
  serve.child.stdin.end();
  assert.equal((await serve.exited).code, 0, serve.stderr());
});
