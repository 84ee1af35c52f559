// The `shared` phase's first window (issue 26): with lazyMcp.shareServers on, a server both
// windows use runs once; a project server still runs once per project.
'use strict';

const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, waitFor } = require('../suite/helpers.cjs');
const { callTool, heard, runningSpawns, tell, tellFailure } = require('./exchange.cjs');

const pidOf = (lazy, name) => lazy.snapshot().servers.find((s) => s.name === name)?.pid;

suite('Shared servers: the first of two windows', () => {
  teardown(tellFailure);

  test('a call to the user-level memory server and to the project server starts each here', async function () {
    this.timeout(240_000);
    const lazy = await api();
    // Read-only tools: VS Code asks no confirmation for them.
    assert.match(await callTool('memory', '_read_graph', {}), /entities/);
    assert.match(await callTool('everything', '_echo', { message: 'from the first window' }), /from the first window/);
    const pids = await waitFor('both servers connected with a pid', () => pidOf(lazy, 'memory') && pidOf(lazy, 'everything') && { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') });
    tell('first-window', pids);
  });

  test('the second window reused the memory process and started its own project server', async function () {
    this.timeout(240_000);
    const lazy = await api();
    const mine = { memory: pidOf(lazy, 'memory'), everything: pidOf(lazy, 'everything') };
    const theirs = await heard('second-window');
    assert.equal(theirs.memory, mine.memory, 'one memory process serves both windows');
    assert.notEqual(theirs.everything, mine.everything, "a project server never runs with another project's folder");
    // Cataloguing processes may still be exiting (a server that ignores stdin's end gets SIGTERM after 2 s).
    let running = [];
    await waitFor('running servers: memory once, everything once per project', () => (running = runningSpawns()).length === 3, 15_000).catch((err) => {
      throw new Error(`${err.message}; running: ${running.join(', ')}`);
    });
    // MCP Diagnostics says the memory process is shared, and by both windows.
    const shared = new RegExp(`\\| ${mine.memory} \\(shared by 2 clients\\) \\|`);
    await waitFor('MCP Diagnostics to show memory shared by 2 clients', async () => shared.test(await vscode.commands.executeCommand('lazyMcp.showDiagnostics')), 15_000);
    // ...and names who holds it: this window first (its folder), then the other one.
    const folder = require('node:path').basename(vscode.workspace.workspaceFolders[0].uri.fsPath);
    const holders = new RegExp(`\\n- memory \\(pid ${mine.memory}\\): VS Code window · ${folder} \\(for [^)]+\\), VS Code window · (?!${folder} )\\S+ \\(for `);
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.match(report, holders);
    tell('first-window-done', {});
  });

  test('a lazy-mcp serve started from this window (an agent CLI in its terminal) reuses the same memory process', async function () {
    this.timeout(120_000);
    const lazy = await api();
    const memory = pidOf(lazy, 'memory');
    assert.ok(memory, 'memory is running for this window');
    const before = runningSpawns();
    // The CLI the VSIX ships, with this window's environment plus what an integrated terminal adds.
    const cli = require('node:path').join(vscode.extensions.getExtension('lazy-mcp.lazy-mcp').extensionPath, 'dist', 'cli.js');
    const env = { ...process.env, TERM: 'xterm-256color', TERM_PROGRAM: 'vscode', COLORTERM: 'truecolor' };
    delete env.ELECTRON_RUN_AS_NODE;
    const serve = require('node:child_process').spawn(process.execPath, [cli, 'serve', '--stdio', '--cwd', vscode.workspace.workspaceFolders[0].uri.fsPath], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    serve.stdout.on('data', (d) => (stdout += d));
    serve.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((resolve) => serve.on('exit', resolve));
    try {
      const send = (m) => serve.stdin.write(`${JSON.stringify(m)}\n`);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent-cli', version: '1' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'memory__read_graph', arguments: {} } });
      const reply = await waitFor('the CLI session to answer its memory call', () => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === 2), 60_000).catch((err) => {
        throw new Error(`${err.message}; stderr: ${stderr.slice(-2000)}`);
      });
      assert.ok(!reply.error && !reply.result?.isError, JSON.stringify(reply).slice(0, 500));
      // Still the one memory process, now held by the CLI session too.
      assert.equal(pidOf(lazy, 'memory'), memory, 'the window kept its memory process');
      const started = runningSpawns().filter((pid) => !before.includes(pid));
      assert.deepEqual(started, [], 'the CLI call started no server process');
      const held = new RegExp(`\\n- memory \\(pid ${memory}\\): .*lazy-mcp serve --stdio \\(pid ${serve.pid}\\)`);
      await waitFor('MCP Diagnostics to name the CLI session among memory\'s holders', async () => held.test(await vscode.commands.executeCommand('lazyMcp.showDiagnostics')), 15_000);
    } finally {
      serve.stdin.end();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (serve.exitCode === null) serve.kill('SIGKILL');
    }
  });
});
