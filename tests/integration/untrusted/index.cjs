// extensionTestsPath of the runner's `untrusted` phase: the same mocha setup as ../suite, run
// on this folder's *.test.cjs only (they need Restricted Mode; ../suite needs a trusted folder).
'use strict';

module.exports = { run: () => require('../suite/index.cjs').runFolder(__dirname) };
