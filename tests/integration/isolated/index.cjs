// extensionTestsPath of the runner's `isolated` phase: the `shared` phase's two windows with
// lazyMcp.shareServers off. The first window (the runner's workspace) runs
// first-window.test.cjs, the other second-window.test.cjs, and writes its counts to a file of its own.
'use strict';

const { runWindow } = require('../shared/index.cjs');

function run() {
  return runWindow(__dirname);
}

module.exports = { run };
