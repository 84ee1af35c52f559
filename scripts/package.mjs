// README command 1: build everything and write artifacts/lazy-mcp-<version>.vsix.
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir, repoRoot } from './lib/paths.mjs';
import { main, run } from './lib/run.mjs';

export function vsixPath() {
  const { name, version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  return path.join(artifactsDir, `${name}-${version}.vsix`);
}

export function packageVsix() {
  const out = vsixPath();
  fs.mkdirSync(artifactsDir, { recursive: true });
  // A stale VSIX must never stand in for a failed package step.
  fs.rmSync(out, { force: true });
  console.log(`• packaging ${path.relative(repoRoot, out)} with vsce`);
  // --no-dependencies: the bundle carries all runtime code; node_modules never ships.
  // --no-rewrite-relative-links: README links to repo files stay relative (no public repo URL yet).
  run(path.join(repoRoot, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out], { cwd: repoRoot });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(async () => {
    // npm test builds first and passes --skip-build; users get a full build.
    if (!process.argv.includes('--skip-build')) {
      run(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot });
    }
    const out = packageVsix();
    console.log(`✔ ${path.relative(repoRoot, out)} (${(fs.statSync(out).size / 1024).toFixed(0)} KB)`);
    console.log('  Install it with: code --install-extension ' + path.relative(repoRoot, out));
  });
}
