// Ensures every tool the VS Code integration tests need (Node 24, code-server, chromium).
// Usage: node scripts/tools/index.mjs

import { ensureChromium } from './chromium.mjs';
import { ensureCodeServer } from './code-server.mjs';
import { cliMain } from './common.mjs';

export { ensureChromium } from './chromium.mjs';
export { ensureCodeServer } from './code-server.mjs';
export { ensureNode24 } from './node24.mjs';
export { ensureDebianPackages } from './apt.mjs';
export { ToolError, reportAndExit, toolsDir } from './common.mjs';

/** Everything the headless integration runner needs. */
export function ensureIntegrationTools() {
  const codeServer = ensureCodeServer(); // also ensures node 24
  const chromium = ensureChromium();
  return { node: codeServer.node, serverMain: codeServer.serverMain, codeServerRoot: codeServer.root, chromium };
}

cliMain(import.meta.url, () => {
  ensureIntegrationTools();
});
