// What the two windows of the `shared` phase tell each other, through files in the first
// window's .lazy-mcp-test (both extension hosts see LAZY_MCP_TEST_WORKSPACE).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const { isRunning, testDir, waitFor } = require('../suite/helpers.cjs');

/** Writes `name` whole (renamed into place: the other window polls for it). */
function tell(name, value) {
  const file = path.join(testDir, `${name}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value));
  fs.renameSync(`${file}.tmp`, file);
}

/** Waits for the other window's `name`; fails at once when a test of either window failed. */
function heard(name, timeoutMs = 180_000) {
  const file = path.join(testDir, `${name}.json`);
  const failed = path.join(testDir, 'failed.json');
  return waitFor(`the other window's ${name}`, () => {
    if (fs.existsSync(failed)) throw new Error(`a test failed in a window: ${fs.readFileSync(failed, 'utf8')}`);
    return fs.existsSync(file) && JSON.parse(fs.readFileSync(file, 'utf8'));
  }, timeoutMs);
}

/**
 * Mocha `teardown`: a failed test tells the other window, which stops waiting for it, and prints
 * the extension's last log lines (the runner keeps the extension host's output in CI's log).
 */
async function tellFailure() {
  if (this.currentTest?.state !== 'failed') return;
  tell('failed', { test: this.currentTest.title, error: String(this.currentTest.err?.message ?? '') });
  const lines = (await vscode.extensions.getExtension('lazy-mcp.lazy-mcp')?.activate())?.logLines?.() ?? [];
  console.error(`Lazy MCP's last ${Math.min(lines.length, 80)} log lines in this window:\n${lines.slice(-80).join('\n')}`);
}

const toolsOf = (server) => vscode.lm.tools.filter((t) => t.name.startsWith(`mcp_${server.slice(0, 13)}`));

/** Calls `server`'s tool ending in `suffix` the way Copilot Chat does; returns the text. */
async function callTool(server, suffix, input) {
  const tool = await waitFor(`${server}'s ${suffix} in vscode.lm.tools`, () => toolsOf(server).find((t) => t.name.endsWith(suffix)), 60_000);
  const result = await vscode.lm.invokeTool(tool.name, { input, toolInvocationToken: undefined });
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('\n');
}

/** Pids the spawn log holds that are still running (zombies do not count). */
function runningSpawns() {
  const log = path.join(testDir, 'spawns.log');
  const pids = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).map(Number) : [];
  return pids.filter(isRunning);
}

module.exports = { callTool, heard, runningSpawns, tell, tellFailure };
