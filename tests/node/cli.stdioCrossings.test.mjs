// `lazy-mcp serve --stdio` reads a client's line once (issue 25): a warm call
// crosses into the WASM core twice, the client's line in and the server's answer
// in. No host-side copy of the requests in flight: at stdin EOF the engine says
// when everything it read is answered (`clientSettled`) and the process exits.
// A real `serve --stdio` process with the real server-everything; every call
// into the core is counted by a preload (helpers/countCrossings.cjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempWorld, writeJson } from './helpers/cliRun.mjs';
import { initialize, initialized, stdioServe } from './helpers/rawMcp.mjs';
import { countedServer, killSpawnedGroups } from './helpers/realServers.mjs';

const w = tempWorld('lazy-mcp-cli-stdio-crossings-');
const spawns = path.join(w.root, 'spawns.log');
writeJson(path.join(w.ws, '.mcp.json'), { mcpServers: { everything: countedServer(spawns, 'server-everything', ['stdio']) } });
const crossingsFile = path.join(w.root, 'crossings.log');
const helpers = path.join(path.dirname(new URL(import.meta.url).pathname), 'helpers');
const hook = path.join(helpers, 'countCrossings.cjs');
const cleanup = [];
after(() => {
  for (const c of cleanup) c();
  killSpawnedGroups(spawns);
});

/**
 * A crossings log's lines, by name. A config file watch's report (`handleSplit:configFilesChanged`, e.g.
 * the catalogue written beside the config) may cross at any moment and is no part of a call.
 */
const logged = (file) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((c) => c && !c.endsWith(':configFilesChanged')) : [];
/** The crossings made so far, by name. */
const crossings = () => logged(crossingsFile);

function serve(preload = [], env = {}) {
  const s = stdioServe(['--cwd', w.ws], { ...w.env, LAZY_MCP_TEST_CROSSINGS: crossingsFile, ...env }, ['-r', hook, ...preload]);
  cleanup.push(() => s.child.kill('SIGKILL'));
  return s;
}

const echo = (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: `hi ${id}` } } });

test('serve --stdio: a warm call crosses into the core twice, and stdin EOF exits once all is answered', { timeout: 120_000 }, async () => {
  const s = serve();
  s.send(initialize(1));
  await s.reply(1);
  s.send(initialized);
  const warm = await s.reply((s.send(echo('w0')), 'w0'));
  assert.match(warm.result.content[0].text, /hi w0/, 'the server is connected');
  for (const id of ['w1', 'w2', 'w3']) {
    const before = crossings().length;
    s.send(echo(id));
    const answer = await s.reply(id);
    assert.match(answer.result.content[0].text, new RegExp(`hi ${id}`));
    const made = crossings().slice(before);
    assert.deepEqual(made, ['Engine.clientMessage', 'Engine.messageReceived'], `crossings for warm call ${id}`);
  }
  const eof = Date.now();
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0, s.stderr());
  assert.ok(Date.now() - eof < 10_000, `exited ${Date.now() - eof} ms after stdin EOF`);
  assert.doesNotMatch(s.stderr(), /stopped waiting for the last answers/);
});

test('serve --stdio: a warm call\'s effects cross compact both ways; an id JSON must escape keeps them JSON, answered intact', { timeout: 120_000 }, async () => {
  // The compact form is read with string slices (host/hotParts.ts), JSON.parse for anything unusual.
  const formFile = path.join(w.root, 'crossings-form.log');
  const s = serve([], { LAZY_MCP_TEST_CROSSINGS: formFile, LAZY_MCP_TEST_CROSSINGS_FORM: '1' });
  const made = () => logged(formFile);
  s.send(initialize(1));
  await s.reply(1);
  s.send(initialized);
  assert.match((await s.reply((s.send(echo('w0')), 'w0'))).result.content[0].text, /hi w0/, 'the server is connected');
  const crossed = async (id, line = echo(id)) => {
    const before = made().length;
    s.send(line);
    const answer = await s.reply(id);
    return { answer, made: made().slice(before) };
  };
  for (const id of ['c1', 42]) {
    const { answer, made: forms } = await crossed(id);
    assert.match(answer.result.content[0].text, new RegExp(`hi ${id}`));
    assert.deepEqual(forms, ['Engine.clientMessage compact', 'Engine.messageReceived compact'], `warm call ${id}`);
  }
  // The forwarded request is compact (its upstream id); the answer to a quoted id is JSON.
  const quoted = await crossed('q"1');
  assert.match(quoted.answer.result.content[0].text, /hi q"1/);
  assert.deepEqual(quoted.made, ['Engine.clientMessage compact', 'Engine.messageReceived json']);
  // Answered by the engine itself, in the line's own crossing: compact, then JSON for the quoted id.
  const ping = (id) => crossed(id, JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
  assert.deepEqual((await ping('p')).made, ['Engine.clientMessage compact']);
  const quotedPing = await ping('p"');
  assert.deepEqual(quotedPing.answer.result, {});
  assert.deepEqual(quotedPing.made, ['Engine.clientMessage json']);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0, s.stderr());
});

test('serve --stdio: an answer the host fails to write is answered -32603 with its id, and stdin EOF still exits at once', { timeout: 120_000 }, async () => {
  // The engine counted and answered the ping; only the host's write failed (helpers/stdoutFault.cjs).
  const s = serve(['-r', path.join(helpers, 'stdoutFault.cjs')], { LAZY_MCP_TEST_STDOUT_FAULT: '"id":"boom"' });
  s.send(initialize(1));
  await s.reply(1);
  s.send('{"jsonrpc":"2.0","id":"boom","method":"ping"}');
  const boom = await s.reply('boom');
  assert.equal(boom.error?.code, -32603, JSON.stringify(boom));
  s.send(echo('after'));
  assert.match((await s.reply('after')).result.content[0].text, /hi after/, 'the session goes on');
  const eof = Date.now();
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0, s.stderr());
  assert.ok(Date.now() - eof < 10_000, `exited ${Date.now() - eof} ms after stdin EOF`);
  assert.doesNotMatch(s.stderr(), /stopped waiting for the last answers/);
  assert.match(s.stderr(), /internal error while serving a stdin message/);
});
