// Ensures every tool the VS Code integration tests need (Node 24 and 22, code-server per tested
// VS Code version, chromium).
// Usage: node scripts/tools/index.mjs

import { ensureChromium } from './chromium.mjs';
import { CODE_SERVERS, codeServerRow, ensureCodeServer } from './code-server.mjs';
import { cliMain } from './common.mjs';

export { ensureChromium } from './chromium.mjs';
export { CODE_SERVERS, ensureCodeServer } from './code-server.mjs';
export { ensureNode } from './node.mjs';
export { ensureNode24 } from './node24.mjs';
export { ensureDebianPackages } from './apt.mjs';
export { ToolError, reportAndExit, toolsDir } from './common.mjs';

/**
 * The code-server versions to test on: all of them (newest first), or those named in a
 * comma-separated list of code-server or VS Code versions (e.g. "1.103.2").
 */
export function integrationVersions(list) {
  if (!list) return CODE_SERVERS.map((r) => r.version);
  return list.split(',').map((v) => codeServerRow(v.trim()).version);
}

/** Everything the headless integration runner needs for one VS Code version (default: the newest). */
export function ensureIntegrationTools(version) {
  const codeServer = ensureCodeServer(version); // also ensures its Node
  const chromium = ensureChromium();
  return {
    node: codeServer.node,
    serverMain: codeServer.serverMain,
    codeServerRoot: codeServer.root,
    version: codeServer.version,
    vscode: codeServer.vscode,
    newest: codeServer.version === CODE_SERVERS[0].version,
    chromium,
  };
}

cliMain(import.meta.url, () => {
  for (const v of integrationVersions()) ensureIntegrationTools(v);
});
