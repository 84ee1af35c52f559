// extensionTestsPath of the runner's `approval` phase: the same mocha setup as ../suite, run on
// this folder's *.test.cjs only (they need workspace trust on and project servers not trusted).
'use strict';

module.exports = { run: () => require('../suite/index.cjs').runFolder(__dirname) };
