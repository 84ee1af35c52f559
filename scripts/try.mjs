// README command 1 (`npm start`): build the VSIX, then open it in a real VS Code
// (code-server's, on 127.0.0.1) with a demo workspace of real MCP servers, so you
// can try Lazy MCP in a browser. Ctrl-C stops everything.
//   LAZY_MCP_TRY_PORT (default 8484)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './lib/paths.mjs';
import { StepError, main, run } from './lib/run.mjs';
import { ensureCodeServer, reportAndExit } from './tools/index.mjs';
import { copyBasicWorkspace } from '../tests/integration/fixtureWorkspace.mjs';
import { vsixPath } from './package.mjs';

await main(async () => {
  run(process.execPath, [path.join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot });
  let tools;
  try {
    tools = ensureCodeServer();
  } catch (err) {
    reportAndExit(err);
  }
  const dir = path.join(repoRoot, '.try');
  const dirs = { userData: path.join(dir, 'user-data'), serverData: path.join(dir, 'server-data'), extensions: path.join(dir, 'extensions') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const workspace = path.join(dir, 'workspace');
  if (!fs.existsSync(workspace)) copyBasicWorkspace(workspace);

  const serverArgs = ['--user-data-dir', dirs.userData, '--server-data-dir', dirs.serverData, '--extensions-dir', dirs.extensions];
  const install = spawnSync(tools.node, [tools.serverMain, ...serverArgs, '--install-extension', vsixPath(), '--force'], { stdio: 'inherit' });
  if (install.status !== 0) throw new StepError(`installing ${path.relative(repoRoot, vsixPath())} into the trial VS Code failed`);

  const port = Number(process.env.LAZY_MCP_TRY_PORT || 8484);
  // Loopback only; no connection token because nothing but this machine can reach it.
  const server = spawn(tools.node, [tools.serverMain, '--host', '127.0.0.1', '--port', String(port), '--without-connection-token', '--accept-server-license-terms', '--telemetry-level', 'off', ...serverArgs], {
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  console.log(`\n✔ Lazy MCP is installed in a trial VS Code. Open:\n\n    http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}\n`);
  console.log('  Then run "MCP Diagnostics" from the command palette. Ctrl-C stops the server.\n');
  const code = await new Promise((resolve) => server.on('exit', (c) => resolve(c ?? 0)));
  process.exit(code === null ? 0 : code);
});
