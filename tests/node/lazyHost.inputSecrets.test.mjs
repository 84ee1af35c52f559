// A value typed for a VS Code `${input:…}` variable exists only at connect
// time; a server that echoes it (stderr, then exit) must not get it printed:
// not in the host's log lines (including --verbose stderr lines), not in the
// engine's snapshot (Diagnostics), not in the report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCoreModule, loadHostModule, repoRoot } from './helpers/bundle.mjs';
import { waitFor } from './helpers/realServers.mjs';

const { WasmCore } = await loadHostModule('core/wasmCore');
const { LazyHost } = await loadHostModule('host/lazyHost');
const { BlobFile } = await loadHostModule('host/storage/blobFile');

test('an input value resolved at connect time is masked in logs, snapshot and report', { timeout: 120_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-mcp-input-'));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  const fixture = path.join(repoRoot, 'tests', 'fixtures', 'servers', 'argv-echo-exit.mjs');
  fs.writeFileSync(
    path.join(ws, '.vscode', 'mcp.json'),
    JSON.stringify({
      inputs: [{ id: 'api', type: 'promptString', password: true }],
      servers: { echo: { command: process.execPath, args: [fixture, '--key=${input:api}'] } },
    }),
  );
  const typed = 'typed-input-secret-7c1d';
  const logs = [];
  const host = new LazyHost({
    core: new WasmCore(builtCoreModule, () => {}),
    discovery: { home: path.join(root, 'home'), workspaceFolders: [ws], platform: 'linux', env: { PATH: process.env.PATH ?? '' } },
    // Servers of the workspace's files run without approval here (issue 24: that is tested in cli.trust).
    policy: { workspaceTrusted: true, vscodeNative: 'alsoManage', only: null, trustProjectServers: true, approvalVia: 'cli' },
    settings: { backoffBaseMs: 60_000 },
    store: new BlobFile(path.join(root, 'catalogue.json')),
    log: (level, message, server) => logs.push(`${level} [${server ?? ''}] ${message}`),
    // What VS Code's input resolver does: substitute the stored value.
    resolveTransport: async (_server, transport) => ({ ...transport, args: transport.args.map((a) => a.replace('${input:api}', typed)) }),
  });
  try {
    await host.start();
    const failed = () => JSON.parse(host.driver.snapshotJson({ withMemory: false })).servers.find((s) => s.name === 'echo' && s.lastError);
    await waitFor('the echo server to fail', failed, 60_000);
    const snapshot = host.driver.snapshotJson({ withMemory: false });
    const report = host.driver.reportMarkdown(JSON.stringify({}));
    const text = [snapshot, report, logs.join('\n')].join('\n');
    assert.match(text, /argv: --key=••••/, `the server echoed its argv:\n${text}`);
    assert.ok(!text.includes(typed), `the input value was printed:\n${text}`);
  } finally {
    await host.stop();
  }
});
