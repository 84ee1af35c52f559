// Installs the PyPI MCP servers used by tests and benchmarks into a venv in the
// tools cache, only when missing.
import fs from 'node:fs';
import path from 'node:path';
import { toolsDir } from './paths.mjs';
import { StepError, capture, run } from './run.mjs';

const packages = ['mcp-server-time', 'mcp-server-git'];

export function ensurePythonServers() {
  const venv = path.join(toolsDir, 'py-servers');
  const bin = (name) => path.join(venv, 'bin', name);
  if (packages.every((p) => fs.existsSync(bin(p)))) return { bin };
  if (capture('python3', ['--version']) === null) {
    throw new StepError('python3 is not installed; install Python 3.10+ (e.g. `apt-get install python3 python3-venv`).');
  }
  console.error(`• installing ${packages.join(', ')} from PyPI into ${venv}`);
  run('python3', ['-m', 'venv', venv]);
  run(bin('pip'), ['install', '--quiet', ...packages]);
  return { bin };
}
