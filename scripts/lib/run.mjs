// Running commands from build scripts: inherit output, fail with one clear line.
import { spawnSync } from 'node:child_process';

export class StepError extends Error {}

/** Run a command, streaming its output; throw a StepError naming it when it fails. */
export function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (res.error) {
    throw new StepError(`could not run ${cmd}: ${res.error.message}`);
  }
  if (res.status !== 0) {
    throw new StepError(`${[cmd, ...args].join(' ')} failed (exit ${res.status ?? res.signal})`);
  }
}

/** Run a command quietly and return its trimmed stdout, or null when it cannot run. */
export function capture(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (res.error || res.status !== 0) return null;
  return res.stdout.trim();
}

/** Top-level wrapper for scripts: a StepError prints one line, not a stack trace. */
export async function main(fn) {
  try {
    await fn();
  } catch (err) {
    if (err instanceof StepError) {
      console.error(`\n✖ ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
