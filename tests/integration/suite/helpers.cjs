// Shared by the *.test.cjs files (not a test file itself): the extension's API,
// a bounded wait, and the workspace the runner opened.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const phase = process.env.LAZY_MCP_TEST_PHASE || 'dev';
const workspace = process.env.LAZY_MCP_TEST_WORKSPACE || vscode.workspace.workspaceFolders?.[0]?.uri.fsPath || '';
/** Where the runner and the tests exchange files (spawn log, screenshot and click requests). */
const testDir = path.join(workspace, '.lazy-mcp-test');

async function api() {
  const ext = vscode.extensions.getExtension('lazy-mcp.lazy-mcp');
  assert.ok(ext, 'extension not installed');
  const exports = await ext.activate();
  assert.ok(exports, 'the extension returned no API (did the core fail to load?)');
  return exports;
}

async function waitFor(what, predicate, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether `pid` runs (a zombie has exited; pid 1 of a container may never reap it). */
function isRunning(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const stateOf = (lazy, name) => lazy.snapshot().servers.find((s) => s.name === name)?.state.kind;

/**
 * Set once seen: this VS Code's extension host keeps tools in vscode.lm.tools after VS Code
 * dropped them (1.103: its $onDidChangeTools deletes only tools that host registered itself).
 */
let lmToolsKeepsRemoved = false;

/**
 * Waits until VS Code no longer offers `tools()` (a function returning vscode.lm.tools entries).
 * `ready` holds once VS Code has processed the change. The tools must leave vscode.lm.tools
 * within 20 s, unless the extension host is seen to keep removed tools: then each one left must
 * be unknown to VS Code itself (invokeTool: "was not contributed"), so Copilot Chat cannot call it.
 */
async function waitToolsGone(what, tools, ready = () => true) {
  await waitFor(`VS Code to process the change (${what})`, ready);
  if (!lmToolsKeepsRemoved && (await waitFor(what, () => tools().length === 0, 20_000).then(() => true, () => false))) return;
  for (const tool of tools()) {
    // VS Code drops a tool in two steps: first the server's definition ("Collection or definition
    // not found" while the tool is still registered), then the tool itself ("was not contributed").
    // Only the second means VS Code is done; the first is seen when this check runs straight after
    // the change (once an earlier test set lmToolsKeepsRemoved, nothing waits before it).
    await waitFor(`${what}: VS Code to drop ${tool.name}`, async () => {
      const error = await vscode.lm.invokeTool(tool.name, { input: {}, toolInvocationToken: undefined }).then(
        () => assert.fail(`${what}: ${tool.name} is still in vscode.lm.tools and can still be called`),
        (e) => e,
      );
      if (/was not contributed/.test(String(error?.message ?? error))) return true;
      assert.match(String(error?.message ?? error), /Collection or definition not found/, `${what}: ${tool.name} failed for another reason`);
      return false;
    }, 20_000);
    lmToolsKeepsRemoved = true;
  }
}

/**
 * Asks the runner for the layout of the first frame holding `selector` (Playwright's: `:has-text()`,
 * `:visible`): measure.request → measure.done, JSON `{found, viewportWidth, innerWidth, scrollWidth, clientWidth}`.
 * `selector` may be `{selector, width, words}`: resize the window to `width` first (it stays so),
 * and with `words` also get `brokenWords` (table cell words drawn on more than one line).
 */
async function measure(selector) {
  const done = path.join(testDir, 'measure.done');
  fs.rmSync(done, { force: true });
  fs.writeFileSync(path.join(testDir, 'measure.request'), typeof selector === 'string' ? selector : JSON.stringify(selector));
  await waitFor(`the runner to measure ${JSON.stringify(selector)}`, () => fs.existsSync(done), 15_000);
  return JSON.parse(fs.readFileSync(done, 'utf8'));
}

/** Waits until an element matching `selector` is on screen (e.g. a quick pick's row). */
const waitForVisible = (selector, timeoutMs = 15_000) => waitFor(`${selector} on screen`, async () => (await measure(`${selector}:visible`)).found, timeoutMs);

module.exports = { api, isRunning, measure, phase, stateOf, testDir, waitFor, waitForVisible, waitToolsGone, workspace };
