// A call in flight when a shared process splits by workspace roots runs at
// most once (issue 26, docs/shared-servers.md "Roots"): real `lazy-mcp serve
// --stdio --shared` sessions in two projects, the real server-everything at
// user level (it asks for roots 350 ms after its handshake, after cataloguing)
// and its `trigger-sampling-request`, annotated neither read-only nor
// idempotent, which stays in flight until its client answers the sampling:
// both calls are surely under way when the server asks and one workspace moves.
// When the first call's sampling reached its client before the second call
// reached the server, the moved client still owes its first process that
// answer while its new process asks for roots (each server numbers its requests
// from 0): its next call must still be answered (before the fix it waited
// forever: the roots answer went to the first process).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliJs, groupMembers, runCli, tempWorld, writeJson } from './helpers/cliRun.mjs';
import { countedServer, endWhenDone, isAlive, spawnedPids, waitFor } from './helpers/realServers.mjs';

const posix = process.platform !== 'win32';
const { cleanup, spawnLogs } = endWhenDone(after);

function ownerPid(socketDir) {
  const file = path.join(socketDir, 'owner-v2.log');
  if (!fs.existsSync(file)) return undefined;
  const last = fs.readFileSync(file, 'utf8').split('\n').filter((l) => / listening on /.test(l)).pop();
  return last ? Number(last.split(' ')[1]) : undefined;
}

/** A call that fails within `ms` saying what it waited for (never the SDK's 60 s for an answer that cannot come). */
function call(s, name, ms, args = {}) {
  return s.client.callTool({ name, arguments: args }, undefined, { timeout: ms }).catch((error) => {
    throw new Error(`${name}: no answer within ${ms} ms (${error.message})`, { cause: error });
  });
}

/** A session whose client answers sampling only when `release()` is called; `asked` counts the sampling requests it got. */
async function session(env, cwd, gate) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', '--stdio', '--shared', '--cwd', cwd], env, stderr: 'pipe' });
  const client = new Client({ name: 'repeat-test', version: '1' }, { capabilities: { sampling: {} } });
  const s = { client, asked: 0 };
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    s.asked += 1;
    await gate;
    return { model: 'test', role: 'assistant', content: { type: 'text', text: 'sampled' } };
  });
  await client.connect(transport);
  s.pid = transport.pid;
  cleanup.push(() => isAlive(s.pid) && process.kill(s.pid, 'SIGKILL'));
  return s;
}

test('a call of a tool not marked read-only or idempotent, in flight when its workspace moves to a process of its own roots, is answered with an error and never run again', { skip: !posix, timeout: 180_000 }, async (t) => {
  const w = tempWorld('lazy-mcp-shared-roots-repeat-');
  const log = path.join(w.root, 'everything.log');
  spawnLogs.push(log);
  writeJson(path.join(w.home, '.claude.json'), { mcpServers: { everything: countedServer(log, 'server-everything', ['stdio']) } });
  const dirs = ['a', 'b'].map((name) => path.join(w.root, name));
  for (const dir of dirs) fs.mkdirSync(dir);
  const socketDir = path.join(w.root, 'sock');
  const env = { ...w.env, LAZY_MCP_SOCKET_DIR: socketDir, LAZY_MCP_OWNER_LINGER_MS: '1000' };
  cleanup.push(() => {
    const pid = ownerPid(socketDir);
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  const live = () => spawnedPids(log).filter((p) => groupMembers(p).length > 0);
  let release;
  const gate = new Promise((r) => (release = r));
  const sessions = [await session(env, dirs[0], gate), await session(env, dirs[1], gate)];
  for (const s of sessions) {
    const { tools } = await s.client.listTools();
    assert.ok(tools.some((t) => t.name === 'everything__trigger-sampling-request'), tools.map((t) => t.name).join(', '));
  }
  await waitFor('the cataloguing processes to stop', () => live().length === 0, 20_000);

  // Both first calls at once reach one process (catalogued as never asking for
  // roots); each waits for its sampling while the server asks for roots.
  const calls = sessions.map((s) =>
    call(s, 'everything__trigger-sampling-request', 30_000, { prompt: 'once' }).then(
      (result) => ({ result }),
      (error) => ({ error }),
    ),
  );
  const noAnswer = new Promise((r) => setTimeout(() => r({ none: 'no call answered within 20 s' }), 20_000));
  const refused = await Promise.race([...calls.map((c, i) => c.then((outcome) => ({ ...outcome, i }))), noAnswer]);
  assert.ok(refused.error, `the moved workspace's call is answered at once, with an error: ${JSON.stringify(refused)}`);
  assert.match(
    refused.error.message,
    /'everything' began using workspace roots while this call was running, so this workspace was moved to a process of its own; the call was cancelled on the first process and not sent again because 'trigger-sampling-request' is not marked read-only or idempotent \(it may have run once\)\. Call it again if it should run\./,
  );
  const moved = sessions[refused.i];
  const stayed = sessions[1 - refused.i];
  t.diagnostic(`the moved session owes its first process a sampling answer: ${moved.asked > 0}`);
  // The moved session's new process serves it (its roots only) before anything is released.
  const roots = await call(moved, 'everything__get-roots-list', 15_000);
  assert.match(roots.content.map((c) => c.text ?? '').join('\n'), new RegExp(`${dirs[refused.i]}\\b`));
  await new Promise((r) => setTimeout(r, 1_000));
  release();
  const kept = await calls[1 - refused.i];
  assert.ok(kept.result, `the call of the workspace that kept the process ends normally: ${kept.error?.message}`);
  assert.match(kept.result.content.map((c) => c.text ?? '').join('\n'), /LLM sampling result/);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(moved.asked + stayed.asked, 2, `sampling asked once per call run, never for a call run again: moved ${moved.asked}, stayed ${stayed.asked}`);
  const { code, stdout, stderr } = await runCli(['daemon', 'status', '--json'], { env });
  assert.equal(code, 0, stderr);
  const rows = JSON.parse(stdout).processes.filter((p) => p.server === 'everything');
  assert.deepEqual(rows.map((p) => p.clients), [1, 1], `one everything process per project: ${JSON.stringify(rows)}`);

  await Promise.all(sessions.map((s) => s.client.close()));
  await waitFor('every serve to exit', () => sessions.every((s) => !isAlive(s.pid)), 20_000);
  await waitFor('every everything process to be gone', () => live().length === 0, 20_000);
  await waitFor('the owner to exit', () => {
    const pid = ownerPid(socketDir);
    return pid === undefined || !isAlive(pid);
  }, 20_000);
});
