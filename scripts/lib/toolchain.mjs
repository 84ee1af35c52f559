// Makes sure the Rust→WASM toolchain is present, installing only what is missing.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, toolsDir } from './paths.mjs';
import { StepError, capture, run } from './run.mjs';

/** The wasm-bindgen version pinned in Cargo.lock: the CLI must match it exactly. */
export function lockedWasmBindgenVersion() {
  const lock = fs.readFileSync(path.join(repoRoot, 'Cargo.lock'), 'utf8');
  const m = lock.match(/name = "wasm-bindgen"\nversion = "([^"]+)"/);
  if (!m) throw new StepError('Cargo.lock has no wasm-bindgen entry; run `cargo generate-lockfile`.');
  return m[1];
}

function requireCommand(cmd, hint) {
  if (capture(cmd, ['--version']) === null) {
    throw new StepError(`${cmd} is not installed. ${hint}`);
  }
}

/** Ensure rustup's wasm target and a wasm-bindgen CLI of the locked version; returns its path. */
export function ensureWasmToolchain() {
  requireCommand('cargo', 'Install Rust with rustup: https://rustup.rs');
  requireCommand('rustup', 'Install Rust with rustup (the wasm32 target is added through it): https://rustup.rs');
  const targets = capture('rustup', ['target', 'list', '--installed']) ?? '';
  if (!targets.split('\n').includes('wasm32-unknown-unknown')) {
    console.log('• adding the Rust target wasm32-unknown-unknown');
    run('rustup', ['target', 'add', 'wasm32-unknown-unknown']);
  }
  const version = lockedWasmBindgenVersion();
  const cargoRoot = path.join(toolsDir, 'cargo');
  const bin = path.join(cargoRoot, 'bin', 'wasm-bindgen');
  if (capture(bin, ['--version']) === `wasm-bindgen ${version}`) return bin;
  const onPath = capture('wasm-bindgen', ['--version']);
  if (onPath === `wasm-bindgen ${version}`) return 'wasm-bindgen';
  console.log(`• installing wasm-bindgen-cli ${version} into ${cargoRoot} (one time, several minutes)`);
  // Not --locked: one of its locked transitive versions is missing from some registry mirrors.
  try {
    run('cargo', ['install', 'wasm-bindgen-cli', '--version', version, '--root', cargoRoot]);
  } catch (err) {
    throw new StepError(
      `installing wasm-bindgen-cli ${version} failed (${err.message}). ` +
        `Install it yourself with \`cargo install wasm-bindgen-cli --version ${version}\` and re-run.`,
    );
  }
  return bin;
}
