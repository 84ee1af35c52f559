// extensionTestsPath of the runner's `shared` phase: two windows of one VS Code (two extension
// hosts) run this module; the first window (the runner's workspace) runs first-window.test.cjs,
// the other second-window.test.cjs, and writes its counts to a file of its own.
'use strict';

const vscode = require('vscode');

/** Runs `dir`'s first-window or second-window tests, by which window this is. */
function runWindow(dir) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const first = folder === process.env.LAZY_MCP_TEST_WORKSPACE;
  const resultFile = process.env.LAZY_MCP_TEST_RESULT_FILE;
  return require('../suite/index.cjs').runFolder(dir, {
    only: (file) => file.startsWith(first ? 'first-window' : 'second-window'),
    // Keep in step with harness.mjs secondWindowResultFile.
    resultFile: first || !resultFile ? resultFile : resultFile.replace(/\.json$/, '-second-window.json'),
  });
}

function run() {
  return runWindow(__dirname);
}

module.exports = { run, runWindow };
