// extensionTestsPath of the runner's `isolated` phase: the `shared` phase's two windows with
// lazyMcp.shareServers off. The first window (the runner's workspace) runs
// first-window.test.cjs, the other second-window.test.cjs, and writes its counts to a file of its own.
'use strict';

const vscode = require('vscode');

function run() {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const first = folder === process.env.LAZY_MCP_TEST_WORKSPACE;
  const resultFile = process.env.LAZY_MCP_TEST_RESULT_FILE;
  return require('../suite/index.cjs').runFolder(__dirname, {
    only: (file) => file.startsWith(first ? 'first-window' : 'second-window'),
    // Keep in step with harness.mjs secondWindowResultFile.
    resultFile: first || !resultFile ? resultFile : resultFile.replace(/\.json$/, '-second-window.json'),
  });
}

module.exports = { run };
