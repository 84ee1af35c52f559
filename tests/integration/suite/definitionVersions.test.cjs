// A definition's new version waits for the window's call (dev phase). VS Code stops a running
// connection whose definition changed (its version), which cancels every call in flight on it. A
// server whose resources changed since it was catalogued gets a new version at its first call's
// connect: Lazy MCP publishes it only once the call was answered and the window is quiet.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vscode = require('vscode');
const { api, phase, stateOf, testDir, waitFor } = require('./helpers.cjs');

suite('definition versions', function () {
  if (phase !== 'dev') return;

  test('a call that brings a new version of its server is answered, not cancelled; the version follows once the window is quiet', async function () {
    this.timeout(120_000);
    const lazy = await api();
    const userFile = path.join(os.homedir(), '.copilot', 'mcp-config.json');
    assert.ok(!fs.existsSync(userFile), `${userFile} is the test's own`);
    const fixture = path.join(process.env.LAZY_MCP_TEST_REPO_ROOT, 'tests', 'fixtures', 'servers', 'changing-tools.mjs');
    const resources = path.join(testDir, 'versioned-resources.txt');
    fs.mkdirSync(testDir, { recursive: true });
    fs.writeFileSync(resources, 'notes\n');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    // The call's answer takes 1.5 s: time enough for VS Code to act on a new definition.
    const env = { CHANGING_RESOURCES_FILE: resources, CHANGING_CALL_DELAY_MS: '1500' };
    fs.writeFileSync(userFile, JSON.stringify({ mcpServers: { versioned: { type: 'local', command: process.execPath, args: [fixture], env, tools: ['*'] } } }, null, 2));
    const echoTool = () => vscode.lm.tools.find((t) => /versioned.*echo/.test(t.name));
    try {
      await waitFor('versioned catalogued', () => stateOf(lazy, 'versioned') === 'CATALOGUED');
      await waitFor('VS Code to list versioned/echo', echoTool, 30_000);
      const before = lazy.definitionVersions().versioned;
      assert.ok(before, 'versioned is offered to VS Code');

      // The server gains a resource after it was catalogued; the call connects it.
      fs.writeFileSync(resources, 'notes\ntodo\n');
      const result = await vscode.lm.invokeTool(echoTool().name, { input: { message: 'hello' }, toolInvocationToken: undefined });
      const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      assert.match(text, /echo: \{"message":"hello"\}/);
      assert.equal(lazy.definitionVersions().versioned, before, 'the version did not change under the call');
      await waitFor('the new version, once the window was quiet', () => lazy.definitionVersions().versioned !== before, 20_000);
    } finally {
      fs.rmSync(userFile, { force: true });
      await waitFor('versioned gone', () => stateOf(lazy, 'versioned') === undefined);
    }
  });
});
