// "MCP Diagnostics" inside a real VS Code: the extension activates, its command is
// registered, and the report comes from the core. Runs in both runner phases:
//   dev  - extension loaded from its development folder
//   vsix - extension installed from the packaged VSIX into the isolated extensions dir
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const EXTENSION_ID = 'lazy-mcp.lazy-mcp';
const phase = process.env.LAZY_MCP_TEST_PHASE || 'dev';

function real(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function isInside(child, parent) {
  const rel = path.relative(real(parent), real(child));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

suite(`Diagnostics (${phase})`, () => {
  test('the runner passes LAZY_MCP_TEST_* env vars through to the extension host', () => {
    assert.ok(['dev', 'warm', 'vsix'].includes(process.env.LAZY_MCP_TEST_PHASE), `LAZY_MCP_TEST_PHASE=${process.env.LAZY_MCP_TEST_PHASE}`);
  });

  test('extension is present and activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  test('lazyMcp.showDiagnostics is a registered command', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('lazyMcp.showDiagnostics'), 'lazyMcp.showDiagnostics not registered');
  });

  test('MCP Diagnostics returns the report from the core', async () => {
    const report = await vscode.commands.executeCommand('lazyMcp.showDiagnostics');
    assert.equal(typeof report, 'string', `expected the report text, got ${typeof report}`);
    assert.match(report, /# MCP Diagnostics/);
    assert.match(report, /Core version: 0\.1\.0/);
    assert.match(report, /servers configured/);
  });

  if (phase === 'dev' && process.env.LAZY_MCP_TEST_DEV_PATH) {
    test('dev phase: the extension is loaded from the development folder', () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      assert.equal(real(ext.extensionPath), real(process.env.LAZY_MCP_TEST_DEV_PATH));
    });
  }

  if (phase === 'vsix') {
    test('vsix phase: the extension is the one installed from the VSIX', () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      const extensionsDir = process.env.LAZY_MCP_TEST_EXTENSIONS_DIR;
      assert.ok(extensionsDir, 'LAZY_MCP_TEST_EXTENSIONS_DIR not set by the runner');
      assert.ok(
        isInside(ext.extensionPath, extensionsDir),
        `extensionPath ${ext.extensionPath} is not inside the extensions dir ${extensionsDir}`,
      );
      if (process.env.LAZY_MCP_TEST_DEV_PATH) {
        assert.notEqual(real(ext.extensionPath), real(process.env.LAZY_MCP_TEST_DEV_PATH));
      }
    });

    test('vsix phase: the VSIX ships the CLI bundle that runs the owner of shared servers (lazyMcp.shareServers)', () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(fs.existsSync(path.join(ext.extensionPath, 'dist', 'cli.js')), 'dist/cli.js is missing from the VSIX');
    });
  }
});
