// Installs the PyPI MCP servers used by tests and benchmarks into a venv in the
// tools cache, only when missing.
// `node scripts/lib/pythonServers.mjs` installs them up front (npm test does, before the node tests).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolsDir } from './paths.mjs';
import { StepError, capture, main, run } from './run.mjs';

const packages = ['mcp-server-time', 'mcp-server-git'];

export function ensurePythonServers() {
  const venv = path.join(toolsDir, 'py-servers');
  const bin = (name) => path.join(venv, 'bin', name);
  if (packages.every((p) => fs.existsSync(bin(p)))) return { bin };
  needPython();
  console.error(`• installing ${packages.join(', ')} from PyPI into ${venv}`);
  run('python3', ['-m', 'venv', venv]);
  run(bin('pip'), ['install', '--quiet', ...packages]);
  return { bin };
}

/** Fails at once, naming what to install, when python3 or its venv module is missing. */
function needPython() {
  if (capture('python3', ['--version']) === null) {
    throw new StepError('python3 is not installed; install Python 3.10+ (e.g. `apt-get install python3 python3-venv`).');
  }
  // Debian's python3 has no venv (ensurepip) without python3-venv: `python3 -m venv` would fail later.
  if (capture('python3', ['-c', 'import ensurepip, venv']) === null) {
    throw new StepError('python3 has no venv module; install it (e.g. `apt-get install python3-venv`).');
  }
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
    needPython();
    console.error(`• installing ${packages.join(', ')} from PyPI into ${venv}`);
    run('python3', ['-m', 'venv', venv]);
    run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', ...packages]);
    fs.writeFileSync(marker, wanted);
  }
  return { bin: (venv, name) => path.join(toolsDir, venv, 'bin', name) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(() => {
    ensurePythonServers();
    ensurePythonEraServers();
  });
}
