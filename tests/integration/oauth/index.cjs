// extensionTestsPath of the runner's `oauth` and `oauth-warm` phases: the same mocha setup as
// ../suite, run on this folder's *.test.cjs only (they need the OAuth test world and its folder).
'use strict';

module.exports = { run: () => require('../suite/index.cjs').runFolder(__dirname) };
