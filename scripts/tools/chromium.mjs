// Ensures Debian's chromium (driven headless through playwright-core; Playwright's own
// browser download does not work offline).
// Usage: node scripts/tools/chromium.mjs   (prints the executable's path on the last line)

import fs from 'node:fs';
import { ensureDebianPackages } from './apt.mjs';
import { ToolError, cliMain, say } from './common.mjs';

export const CHROMIUM = '/usr/bin/chromium';

export function ensureChromium() {
  const override = process.env.LAZY_MCP_CHROMIUM;
  if (override) {
    if (!fs.existsSync(override)) throw new ToolError(`LAZY_MCP_CHROMIUM=${override} does not exist. Unset it to use Debian's ${CHROMIUM}.`);
    say(`chromium from LAZY_MCP_CHROMIUM (${override})`);
    return override;
  }
  if (fs.existsSync(CHROMIUM)) {
    say(`chromium present (${CHROMIUM})`);
    return CHROMIUM;
  }
  ensureDebianPackages(['chromium'], { purpose: 'the headless VS Code integration tests' });
  if (!fs.existsSync(CHROMIUM)) {
    throw new ToolError(`chromium installed but ${CHROMIUM} is missing. Install Debian's chromium (sudo apt-get install -y chromium) or set LAZY_MCP_CHROMIUM to a Chromium binary.`);
  }
  return CHROMIUM;
}

cliMain(import.meta.url, () => {
  console.log(ensureChromium());
});
