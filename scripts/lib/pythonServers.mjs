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

// Python servers for the protocol-era tests, each set in its own venv (the servers
// venv above follows whatever `mcp` mcp-server-time pins):
// - `py-eras`: `mcp` 2.3.0 (`MCPServer`) and `fastmcp` 4.1.0 (4.1.6 needs a `certifi`
//   newer than the registry has); both answer `server/discover` and `initialize`.
// - `py-legacy`: `mcp` 1.30.0 (`mcp.server.fastmcp.FastMCP`), `initialize` only.
const eraVenvs = {
  'py-eras': ['mcp==2.3.0', 'fastmcp==4.1.0'],
  'py-legacy': ['mcp==1.30.0'],
};

/** `{ bin(venv, name) }` for the era venvs, installed when missing or different. */
export function ensurePythonEraServers() {
  for (const [name, packages] of Object.entries(eraVenvs)) {
    const venv = path.join(toolsDir, name);
    const marker = path.join(venv, 'lazy-mcp-packages.txt');
    const wanted = packages.join('\n');
    if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === wanted) continue;
    if (capture('python3', ['--version']) === null) {
      throw new StepError('python3 is not installed; install Python 3.10+ (e.g. `apt-get install python3 python3-venv`).');
    }
    console.error(`• installing ${packages.join(', ')} from PyPI into ${venv}`);
    run('python3', ['-m', 'venv', venv]);
    run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', ...packages]);
    fs.writeFileSync(marker, wanted);
  }
  return { bin: (venv, name) => path.join(toolsDir, venv, 'bin', name) };
}
