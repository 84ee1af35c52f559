// Resource subscriptions through one shared server (issue 26 item 6, docs/shared-servers.md):
// two real `lazy-mcp serve --stdio --shared` sessions, driven by the official SDK client, on
// one real server-everything process. The owner subscribes a URI upstream once for both, so one
// session's unsubscribe does not silence the other, and `resources/updated` reaches only the
// sessions subscribed to it. Nothing is left running at the end.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliJs, groupMembers, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const { cleanup, spawnLogs } = endWhenDone(after);
// A resource of server-everything's text template (served for any id).
const URI = 'demo://resource/dynamic/text/7';

/** The owner's pid from its log (the last "listening" line), or undefined. */
function ownerPid(socketDir) {
  const log = path.join(socketDir, 'owner-v2.log');
  if (!fs.existsSync(log)) return undefined;
  const last = fs.readFileSync(log, 'utf8').split('\n').filter((l) => / listening on /.test(l)).pop();
  return last ? Number(last.split(' ')[1]) : undefined;
}

test('one session unsubscribing leaves the other subscribed: updates reach only the session still subscribed', { skip: process.platform === 'win32', timeout: 90_000 }, async () => {
  const w = tempWorld('lazy-mcp-shared-subs-');
  const log = path.join(w.root, 'everything.log');
  spawnLogs.push(log);
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: { everything: countedServer(log, 'server-everything', ['stdio']) } });
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  // The default handover grace: both sessions must share server-everything's process, and it
  // asks for roots after cataloguing (see world() in cli.sharedServers.test.mjs).
  delete env.LAZY_MCP_HANDOVER_GRACE_MS;
  cleanup.push(() => {
    const pid = ownerPid(socketDir);
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  const session = async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--stdio', '--shared', '--cwd', w.ws], env, stderr: 'pipe' });
    const client = new Client({ name: 'shared-subs-test', version: '1' });
    const updates = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
    await client.connect(transport);
    const pid = transport.pid;
    cleanup.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
    return { client, pid, updates };
  };
  const [a, b] = await Promise.all([session(), session()]);
  // Both sessions hold the one server process.
  await a.client.callTool({ name: 'everything__echo', arguments: { message: 'a' } });
  await b.client.callTool({ name: 'everything__echo', arguments: { message: 'b' } });
  const live = () => spawnedPids(log).filter((p) => groupMembers(p).length > 0);
  await waitFor('one everything process', () => live().length === 1, 15_000);

  await a.client.subscribeResource({ uri: URI });
  await b.client.subscribeResource({ uri: URI });
  await b.client.unsubscribeResource({ uri: URI });
  // The server sends an update of every subscribed URI at once, then every 5 s.
  const started = await a.client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
  assert.match(started.content[0].text, /Started simulated resource updated notifications/);
  await waitFor('an update for the session still subscribed', () => a.updates.length > 0, 12_000);
  assert.deepEqual(a.updates, [URI]);
  await new Promise((r) => setTimeout(r, 1000)); // a copy to the other session would have come with it
  assert.deepEqual(b.updates, [], 'the session that unsubscribed hears of no update');

  await Promise.all([a.client.close(), b.client.close()]);
  await waitFor('both serves to exit', () => !isAlive(a.pid) && !isAlive(b.pid), 20_000);
  await waitFor('the server process to be gone', () => live().length === 0, 20_000);
  await waitFor('the owner to exit', () => {
    const pid = ownerPid(socketDir);
    return pid === undefined || !isAlive(pid);
  }, 20_000);
});
