// Where the build puts things, and where slow tool installs are cached.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// CI clones afresh each run, so it points this at a per-user cache to keep installs.
export const toolsDir = path.resolve(process.env.LAZY_MCP_TOOLS_DIR || path.join(repoRoot, '.tools'));
export const outDir = path.join(repoRoot, 'out');
export const distDir = path.join(repoRoot, 'dist');
export const artifactsDir = path.join(repoRoot, 'artifacts');
