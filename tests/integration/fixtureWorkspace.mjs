// Fixture workspaces name real servers by absolute path: @@REPO@@, @@NODE@@ and
// @@WORKSPACE@@ are filled in after copying. Used by the integration runner and
// by `npm start` (the demo workspace).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BASIC_WORKSPACE = path.join(REPO, 'tests', 'integration', 'workspaces', 'basic');

export function materializeWorkspace(workspace) {
  for (const rel of fs.readdirSync(workspace, { recursive: true })) {
    const file = path.join(workspace, rel);
    if (!fs.statSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('@@')) continue;
    fs.writeFileSync(file, text.replaceAll('@@REPO@@', REPO).replaceAll('@@NODE@@', process.execPath).replaceAll('@@WORKSPACE@@', workspace));
  }
  fs.mkdirSync(path.join(workspace, '.lazy-mcp-test'), { recursive: true });
}

/** A fresh, filled-in copy of the basic fixture at `dest`. */
export function copyBasicWorkspace(dest) {
  fs.cpSync(BASIC_WORKSPACE, dest, { recursive: true });
  materializeWorkspace(dest);
}
