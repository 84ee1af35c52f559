// Fixture workspaces name real servers by absolute path: @@REPO@@, @@NODE@@ and
// @@WORKSPACE@@ are filled in after copying. Used by the integration runner and
// by `npm start` (the demo workspace).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BASIC_WORKSPACE = path.join(REPO, 'tests', 'integration', 'workspaces', 'basic');

/** Fills in the placeholders of every file under `dir` (@@WORKSPACE@@ = `workspace`, default `dir`). */
export function materializeWorkspace(dir, workspace = dir) {
  for (const rel of fs.readdirSync(dir, { recursive: true })) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('@@')) continue;
    fs.writeFileSync(file, text.replaceAll('@@REPO@@', REPO).replaceAll('@@NODE@@', process.execPath).replaceAll('@@WORKSPACE@@', workspace));
  }
  fs.mkdirSync(path.join(workspace, '.lazy-mcp-test'), { recursive: true });
}

/**
 * The `untrusted` phase's fixture: a copy of workspaces/untrusted at `dest` and its user-level
 * config (workspaces/untrusted-home) in `home`, both filled in.
 */
export function copyUntrustedFixture(dest, home) {
  fs.cpSync(path.join(REPO, 'tests', 'integration', 'workspaces', 'untrusted'), dest, { recursive: true });
  materializeWorkspace(dest);
  fs.cpSync(path.join(REPO, 'tests', 'integration', 'workspaces', 'untrusted-home'), home, { recursive: true });
  materializeWorkspace(home, dest);
}

/** The `approval` phase's fixture: workspaces/approval (project servers) at `dest`, filled in. */
export function copyApprovalFixture(dest) {
  fs.cpSync(path.join(REPO, 'tests', 'integration', 'workspaces', 'approval'), dest, { recursive: true });
  materializeWorkspace(dest);
}

/**
 * The `shared` phase's fixture: workspaces/shared at `first` and at `second`, both filled in
 * with `first` (the same project server command line in both), and workspaces/shared-home
 * (the user-level server) in `home`.
 */
export function copySharedFixture(first, second, home) {
  for (const dest of [first, second]) {
    fs.cpSync(path.join(REPO, 'tests', 'integration', 'workspaces', 'shared'), dest, { recursive: true });
    materializeWorkspace(dest, first);
  }
  fs.cpSync(path.join(REPO, 'tests', 'integration', 'workspaces', 'shared-home'), home, { recursive: true });
  materializeWorkspace(home, first);
}

/** A fresh, filled-in copy of the basic fixture at `dest`. */
export function copyBasicWorkspace(dest) {
  fs.cpSync(BASIC_WORKSPACE, dest, { recursive: true });
  materializeWorkspace(dest);
}

/**
 * The `oauth` phases' fixture: workspaces/oauth at `dest`, its two remote servers pointed at the
 * runner's OAuth test worlds (`worlds.guarded`, `worlds.spare`: tests/fixtures/oauth).
 */
export function copyOAuthWorkspace(dest, worlds) {
  fs.cpSync(path.join(REPO, 'tests', 'integration', 'workspaces', 'oauth'), dest, { recursive: true });
  for (const rel of fs.readdirSync(dest, { recursive: true })) {
    const file = path.join(dest, rel);
    if (!fs.statSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replaceAll('@@OAUTH_GUARDED_URL@@', worlds.guarded.mcpUrl).replaceAll('@@OAUTH_SPARE_URL@@', worlds.spare.mcpUrl));
  }
  materializeWorkspace(dest);
}
