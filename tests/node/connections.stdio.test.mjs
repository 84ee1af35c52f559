// stdio connections against the real server-everything and our own fault fixtures.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { drive, everythingBin, fixtures, groupMembers, pidAlive, repoRoot, stdioLimits, waitUntil, within } from './connections.helper.mjs';

const node = process.execPath;
const fixture = (name, ...args) => ({ type: 'stdio', command: node, args: [path.join(fixtures, name), ...args], env: {} });
const open = [];
function tracked(transport, opts) {
  const d = drive(transport, opts);
  open.push(d);
  return d;
}
after(async () => {
  // Never leave a process behind, whatever a failed test did.
  await Promise.all(open.map((d) => d.conn.close()));
});

describe('stdio: real server-everything', { timeout: 30000 }, () => {
  test('initialize, initialized, tools/list, then close leaves no process', async () => {
    const d = tracked({ type: 'stdio', command: node, args: [everythingBin, 'stdio'], env: {} });
    const { pid } = await within(10000, d.opened, 'onOpened');
    assert.ok(pid > 0);
    assert.equal(d.conn.pid, pid);
    const init = await d.handshake();
    assert.equal(init.protocolVersion, '2025-11-25');
    assert.match(init.serverInfo.name, /everything/i);
    const list = await d.request('tools/list');
    assert.ok(list.result.tools.length >= 10, `expected the real tool list, got ${list.result.tools.length}`);
    assert.ok(list.result.tools.some((t) => t.name === 'echo'));
    const echo = await d.request('tools/call', { name: 'echo', arguments: { message: 'hi there' } });
    assert.match(JSON.stringify(echo.result.content), /hi there/);

    await within(8000, d.conn.close(), 'close()');
    const info = await d.closed;
    assert.equal(info.byHost, true);
    assert.match(info.reason, /closed by host/);
    assert.equal(d.closedCount, 1);
    assert.ok(!d.logs.some((l) => /SIGTERM|SIGKILL/.test(l.msg)), 'a well-behaved server ends on stdin EOF, without signals');
    assert.equal(info.signal, null);
    assert.equal(pidAlive(pid), false);
  });
});

describe('stdio: real server-memory launched through npx', { timeout: 30000 }, () => {
  test('npx and the server it starts share a process group; close() ends all of it', { skip: process.platform !== 'linux' }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lazy-mcp-memory-'));
    try {
      const d = tracked(
        { type: 'stdio', command: 'npx', args: ['--no-install', 'mcp-server-memory'], env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') } },
        { cwdFallback: repoRoot },
      );
      const { pid } = await within(10000, d.opened, 'onOpened');
      const init = await d.handshake();
      assert.equal(init.serverInfo.name, 'memory-server');
      const list = await d.request('tools/list');
      assert.equal(list.result.tools.length, 9);
      const members = groupMembers(pid);
      assert.ok(members.length >= 2, `npx plus the server: ${members}`);
      await within(8000, d.conn.close(), 'close()');
      for (const p of members) assert.equal(pidAlive(p), false, `pid ${p} of the group is gone`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('stdio: environment and working directory', { timeout: 30000 }, () => {
  test('env merged over the base env, envFile under explicit env, cwd', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lazy-mcp-env-'));
    try {
      writeFileSync(
        path.join(dir, '.env'),
        ['# a comment', '', 'FROM_FILE=file-value', 'export QUOTED="two\\nlines"', 'OVERRIDDEN=from-file  # trailing comment'].join('\n'),
      );
      const d = tracked(
        { ...fixture('env-report.mjs'), cwd: dir, envFile: '.env', env: { OVERRIDDEN: 'from-config', FROM_CONFIG: 'yes' } },
        { env: { ...process.env, FROM_BASE: 'base', OVERRIDDEN: 'from-base' } },
      );
      const res = await d.request('report');
      assert.deepEqual(res.result.env, {
        FROM_BASE: 'base',
        FROM_FILE: 'file-value',
        QUOTED: 'two\nlines',
        OVERRIDDEN: 'from-config',
        FROM_CONFIG: 'yes',
      });
      assert.equal(res.result.cwd, dir);
      await d.conn.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a pretty-printed message still goes out as one line', async () => {
    const d = tracked(fixture('env-report.mjs'));
    d.conn.send(JSON.stringify({ jsonrpc: '2.0', id: 'pretty', method: 'report', params: { a: [1, 2] } }, null, 2));
    const res = await d.next((m) => m.id === 'pretty', 5000, 'the response');
    assert.ok(res.result.cwd);
    // Bare carriage returns as whitespace (old Mac line ends) too.
    d.conn.send('{\r"jsonrpc":"2.0",\r"id":"cr",\r"method":"report"}');
    assert.ok((await d.next((m) => m.id === 'cr', 5000, 'the CR response')).result.cwd);
    await d.conn.close();
  });

  test('cwdFallback is used when the transport has no cwd', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lazy-mcp-cwd-'));
    try {
      const d = tracked(fixture('env-report.mjs'), { cwdFallback: dir });
      const res = await d.request('report');
      assert.equal(res.result.cwd, dir);
      await d.conn.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing envFile or cwd fails with a reason naming it, and spawns nothing', async () => {
    const a = tracked({ ...fixture('env-report.mjs'), envFile: '/nonexistent/lazy-mcp.env' });
    const ia = await within(3000, a.closed, 'onClosed');
    assert.match(ia.reason, /envFile "\/nonexistent\/lazy-mcp\.env"/);
    assert.equal(a.conn.pid, undefined);
    const b = tracked({ ...fixture('env-report.mjs'), cwd: '/nonexistent/lazy-mcp-dir' });
    const ib = await within(3000, b.closed, 'onClosed');
    assert.match(ib.reason, /working directory "\/nonexistent\/lazy-mcp-dir" does not exist/);
    assert.equal(b.openedInfo, undefined);
  });
});

describe('stdio: faults', { timeout: 30000 }, () => {
  test('a command that does not exist: onClosed names the command, no onOpened', async () => {
    const d = tracked({ type: 'stdio', command: 'lazy-mcp-no-such-command', args: ['--x'], env: {} });
    const info = await within(5000, d.closed, 'onClosed');
    assert.match(info.reason, /"lazy-mcp-no-such-command"/);
    assert.match(info.reason, /not found \(ENOENT\)/);
    assert.equal(info.exitCode, null);
    assert.equal(d.openedInfo, undefined);
    d.conn.send('{"jsonrpc":"2.0","id":1,"method":"ping"}'); // dropped, no throw
    await within(1000, d.conn.close(), 'close() of a failed connection');
    assert.equal(d.closedCount, 1);
  });

  test('a server that crashes mid-handshake: exit code and stderr tail', async () => {
    const d = tracked(fixture('crash-mid-handshake.mjs'));
    await d.opened;
    d.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } }).catch(() => {});
    const info = await within(5000, d.closed, 'onClosed');
    assert.equal(info.exitCode, 3);
    assert.equal(info.signal, null);
    assert.match(info.reason, /exited with code 3/);
    assert.notEqual(info.byHost, true);
    assert.match(info.stderrTail, /fixture: loading configuration\nfatal: cannot open database \(fixture crash\)/);
    assert.ok(d.stderr.includes('fatal: cannot open database (fixture crash)'), 'stderr lines reach onStderr');
    await within(1000, d.conn.close(), 'close() after exit');
    assert.equal(d.closedCount, 1);
  });

  test('garbage lines, split writes, CRLF, multi-byte characters, a 6 MB line, a BOM', async () => {
    const d = tracked(fixture('garbage-stdout.mjs'));
    const init = await d.handshake();
    assert.equal(init.serverInfo.name, 'garbage-héllo-😀');
    const list = await d.request('tools/list', {}, 15000);
    assert.equal(list.result.tools[0].description.length, 3 * 1024 * 1024);
    assert.ok(/^ü+$/.test(list.result.tools[0].description));
    await waitUntil(() => d.logs.some((l) => l.msg.includes('DEBUG: initialized ok')), 2000, 'the garbage line is logged');
    const warnings = d.logs.filter((l) => l.level === 'warn' && l.msg.includes('non-JSON'));
    assert.equal(warnings.length, 2, JSON.stringify(warnings));
    assert.match(warnings[0].msg, /Starting fixture server/);
    assert.equal(d.messages.length, 2, 'only the two responses became messages');
    // Unicode spaces around a reply are trimmed as before (the line goes on as text then, not bytes).
    assert.deepEqual((await d.request('bom', {})).result, { bom: true });
    await d.conn.close();
  });

  test('a throwing event handler is logged and does not break the stream', async () => {
    const { openConnection } = (await import('./connections.helper.mjs')).loadConnections();
    const got = [];
    const logs = [];
    let closed;
    const done = new Promise((r) => (closed = r));
    const conn = openConnection(
      fixture('env-report.mjs'),
      {
        onOpened() {},
        onMessage(json) {
          got.push(JSON.parse(json).id);
          throw new Error('handler bug');
        },
        onClosed: closed,
      },
      { log: (level, msg) => logs.push({ level, msg }), stdio: stdioLimits() },
    );
    try {
      conn.send('{"jsonrpc":"2.0","id":1,"method":"a"}');
      conn.send('{"jsonrpc":"2.0","id":2,"method":"b"}');
      await waitUntil(() => got.length === 2, 5000, 'both responses delivered');
      assert.deepEqual(got, [1, 2]);
      assert.equal(logs.filter((l) => l.level === 'error' && /onMessage handler threw: handler bug/.test(l.msg)).length, 2);
    } finally {
      await conn.close();
    }
    await within(1000, done, 'onClosed');
  });

  test('sendLine (the shared owner): bytes written as they are, several in one tick arrive in order', async () => {
    const { openConnection } = (await import('./connections.helper.mjs')).loadConnections();
    const got = [];
    let closed;
    const done = new Promise((r) => (closed = r));
    const conn = openConnection(fixture('env-report.mjs'), { onOpened() {}, onMessage: (json) => got.push(JSON.parse(Buffer.from(json).toString('utf8')).id), onClosed: closed }, { stdio: stdioLimits() });
    try {
      conn.sendLine(Buffer.from('{"jsonrpc":"2.0","id":"é-1","method":"a"}\n'));
      conn.sendLine(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"b"}\n'));
      conn.send('{"jsonrpc":"2.0","id":3,"method":"c"}');
      await waitUntil(() => got.length === 3, 5000, 'three answers');
      assert.deepEqual(got, ['é-1', 2, 3]);
    } finally {
      await conn.close();
    }
    await within(1000, done, 'onClosed');
  });

  test('a server ignoring stdin EOF and SIGTERM is SIGKILLed within the bound', async () => {
    const grace = 400;
    const d = tracked(fixture('stubborn.mjs'), { stdio: stdioLimits({ killGraceMs: grace }) });
    const { pid } = await d.opened;
    await d.handshake();
    const t0 = Date.now();
    await within(5000, d.conn.close(), 'close()');
    const elapsed = Date.now() - t0;
    const info = await d.closed;
    assert.equal(info.signal, 'SIGKILL');
    assert.equal(info.byHost, true);
    assert.match(info.stderrTail, /ignoring SIGTERM/);
    assert.ok(elapsed >= 2 * grace - 50 && elapsed < 2 * grace + 1500, `close took ${elapsed} ms`);
    assert.equal(pidAlive(pid), false);
  });

  test('an npx-style wrapper: close() leaves no orphaned grandchild', async () => {
    const d = tracked(fixture('wrapper.mjs'), { stdio: stdioLimits({ killGraceMs: 500 }) });
    const { pid } = await d.opened;
    await d.handshake(); // answered by the grandchild through the shared pipes
    await waitUntil(() => d.stderr.some((l) => l.startsWith('grandchild-pid=')), 3000, 'grandchild pid reported');
    const grandchild = Number(d.stderr.find((l) => l.startsWith('grandchild-pid=')).split('=')[1]);
    assert.ok(pidAlive(grandchild));
    await within(5000, d.conn.close(), 'close()');
    assert.equal(pidAlive(pid), false, 'wrapper gone');
    assert.equal(pidAlive(grandchild), false, 'grandchild gone');
  });

  test('a wrapper that dies on its own: its grandchild is ended before onClosed', async () => {
    const d = tracked(fixture('wrapper.mjs', 'exit-early'), { stdio: stdioLimits({ killGraceMs: 500 }) });
    await d.opened;
    const info = await within(5000, d.closed, 'onClosed');
    assert.equal(info.exitCode, 1);
    assert.match(info.stderrTail, /leaving the grandchild behind/);
    const grandchild = Number(d.stderr.find((l) => l.startsWith('grandchild-pid=')).split('=')[1]);
    assert.equal(pidAlive(grandchild), false, 'grandchild gone when onClosed fires');
  });
});
