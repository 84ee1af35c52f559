// Resource subscriptions of MCP 2026-07-28 clients through the real `lazy-mcp serve`, all
// real peers: the official SDK v2 client in auto mode opens `subscriptions/listen` with
// `resourceSubscriptions` (its `listen()`), server-everything (a legacy server) sends
// `notifications/resources/updated` for the resources it is subscribed to. The listen
// starts nothing; the server's first use subscribes it (`resources/subscribe`, which
// server-everything acknowledges in its log); its updates reach the client on the listen;
// closing the listen unsubscribes the server (`resources/unsubscribe`, in its log).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cliJs, runCli, startCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, killSpawnedGroups, spawnedPids, waitFor } from './helpers/realServers.mjs';

const w = tempWorld('lazy-mcp-cli-listen-resources-');
const spawnLog = path.join(w.root, 'spawns.log');
writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { everything: countedServer(spawnLog, 'server-everything', ['stdio']) } });
// A resource of server-everything's text template (served for any id).
const URI = 'demo://resource/dynamic/text/7';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const closers = [];
after(async () => {
  for (const close of closers) await close().catch(() => {});
  killSpawnedGroups(spawnLog);
});

/** The SDK v2 client (auto mode), recording the resource updates it is told of. */
function watchingClient() {
  const client = new Client({ name: 'watcher', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  const updates = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => updates.push(n.params));
  return { client, updates };
}

test('catalogue: server-everything is catalogued once, so the listens below find it', async () => {
  const catalogued = await runCli(['catalogue', '--trust-project', '--cwd', w.ws], { env: w.env });
  assert.equal(catalogued.code, 0, catalogued.stderr);
});

test('serve --stdio: a listen subscribes to a resource without starting its server; the server is subscribed on first use, its updates reach the listen, closing it unsubscribes', { timeout: 120_000 }, async () => {
  const { client, updates } = watchingClient();
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--trust-project', '--stdio', '--verbose', '--cwd', w.ws], env: w.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  await client.connect(transport);
  closers.push(() => client.close());
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');

  const spawns = spawnedPids(spawnLog).length;
  const listen = await client.listen({ resourceSubscriptions: [URI, 'nobody://serves/this'] });
  assert.deepEqual(listen.honoredFilter, { resourceSubscriptions: [URI] }, 'the honoured URIs, as the spec says');
  assert.equal(spawnedPids(spawnLog).length, spawns, 'a subscription starts no server');

  // First use: the server starts, is subscribed, and starts its simulated updates.
  const started = await client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
  assert.match(started.content[0].text, /Started simulated resource updated notifications/);
  await waitFor('the server subscribed', () => stderr.includes(`Received Subscribe Resource request for URI: ${URI}`), 30_000);
  await waitFor('an update on the listen', () => updates.some((u) => u.uri === URI), 30_000);
  const update = updates.find((u) => u.uri === URI);
  assert.match(String(update._meta?.[SUBSCRIPTION_ID]), /^listen:/, 'tagged with the client listen, not Lazy MCP upstream one');

  await listen.close();
  await waitFor('the server unsubscribed', () => stderr.includes(`Received Unsubscribe Resource request: ${URI}`), 30_000);
});

test('serve --http: the listen rides its own POST stream; the client going away unsubscribes the server', { timeout: 120_000 }, async () => {
  const serve = startCli(['serve', '--trust-project', '--http', '127.0.0.1:0', '--verbose', '--cwd', w.ws], {
    env: w.env,
    ready: /serving \d+ servers? at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n.*Bearer ([\w-]+)"/,
  });
  closers.push(async () => serve.child.kill('SIGKILL'));
  const [, url, , token] = await serve.started;
  const { client, updates } = watchingClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/everything`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  closers.push(() => client.close());
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');

  // Servers are shared: this may be the process the stdio test above used, which the owner keeps
  // for 5 s after its last client, with its simulated updates already on; then the toggle stops them.
  let started = await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  if (/Stopped simulated resource updates/.test(started.content[0].text)) started = await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  assert.match(started.content[0].text, /Started simulated resource updated notifications/);
  const listen = await client.listen({ resourceSubscriptions: [URI] });
  assert.deepEqual(listen.honoredFilter, { resourceSubscriptions: [URI] });
  await waitFor('the connected server subscribed at once', () => serve.out.stderr.includes(`Received Subscribe Resource request for URI: ${URI}`), 30_000);
  await waitFor('an update on the listen', () => updates.some((u) => u.uri === URI), 30_000);

  // Closing aborts the listen's POST: the stream ends, and with it the subscription.
  await listen.close();
  await waitFor('the server unsubscribed', () => serve.out.stderr.includes(`Received Unsubscribe Resource request: ${URI}`), 30_000);
  serve.child.kill('SIGTERM');
  assert.equal((await serve.exited).code, 0, serve.out.stderr);
});
