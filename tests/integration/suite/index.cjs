// extensionTestsPath module (the @vscode/test-electron contract): VS Code's extension
// host calls run() once the window and the extension under development are up.
// Plain CommonJS, no build step. Runs every *.test.cjs in this folder with mocha (tdd).
//
// Env (all optional, read inside the extension host):
//   LAZY_MCP_TEST_GREP         only run tests whose full title matches this regexp
//   LAZY_MCP_TEST_RESULT_FILE  the runner's file to receive {passes, failures, ...} as JSON
//   LAZY_MCP_TEST_LOG_MARKER   set by the headless runner: prefix that marks lines logged with log()
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');

/**
 * console.log with the runner's marker on every line. VS Code's extension host makes the
 * console methods non-overridable, so only lines logged through this are marked; the runner
 * shows the others too once the suite has started (minus known workbench noise).
 */
function log(...args) {
  const marker = process.env.LAZY_MCP_TEST_LOG_MARKER || '';
  console.log(util.format(...args).replace(/^/gm, marker));
}

function loadMocha() {
  // mocha 12's package entry is ESM; its CommonJS build is lib/mocha.cjs.
  try {
    return require('mocha/lib/mocha.cjs');
  } catch {
    const m = require('mocha');
    return m.Mocha || m.default || m;
  }
}

function writeResult(result, file = process.env.LAZY_MCP_TEST_RESULT_FILE) {
  if (!file) return;
  try {
    fs.writeFileSync(file, JSON.stringify(result));
  } catch (err) {
    console.error(`mocha: could not write ${file}: ${err.message}`);
  }
}

function run() {
  return runFolder(__dirname);
}

/**
 * Runs every *.test.cjs in `dir` (another phase's suite, e.g. ../untrusted, reuses this), or
 * those `only` accepts; `resultFile`: where the counts go instead of the runner's usual file.
 */
function runFolder(dir, { only = () => true, resultFile } = {}) {
  const Mocha = loadMocha();
  // mocha's reporters log printf-style (fmt, ...args); VS Code forwards the raw args, so format here.
  if (Mocha.reporters && Mocha.reporters.Base) Mocha.reporters.Base.consoleLog = log;
  const mocha = new Mocha({
    ui: 'tdd',
    timeout: 60_000,
    color: false,
    reporter: 'spec',
    grep: process.env.LAZY_MCP_TEST_GREP || undefined,
  });
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.cjs') && only(f))
    .sort()
    .map((f) => path.join(dir, f));
  for (const f of files) mocha.addFile(f);
  log(`mocha: running ${files.length} file(s) in ${process.env.LAZY_MCP_TEST_PHASE || 'dev'} phase (node ${process.version})`);

  return new Promise((resolve, reject) => {
    let runner;
    // Each failed test's title and first error line, so the runner's last lines name them.
    const failed = [];
    try {
      runner = mocha.run((failures) => {
        const stats = runner.stats || {};
        const passes = stats.passes || 0;
        const result = { passes, failures, pending: stats.pending || 0, tests: stats.tests || 0, files: files.length, failed };
        writeResult(result, resultFile);
        log(`mocha: ${passes} passing, ${failures} failing`);
        if (failures > 0) reject(new Error(`${failures} test(s) failed`));
        else if (passes === 0) reject(new Error('no tests ran'));
        else resolve();
      });
      runner.on('fail', (test, err) => failed.push(`${test.fullTitle()}: ${String((err && err.message) || err).split('\n')[0].slice(0, 300)}`));
    } catch (err) {
      writeResult({ passes: 0, failures: 1, pending: 0, tests: 0, files: files.length, error: String(err && err.stack || err) }, resultFile);
      console.error(`mocha: could not load or run the suite: ${err && err.stack || err}`);
      log('mocha: 0 passing, 1 failing');
      reject(err);
    }
  });
}

module.exports = { run, runFolder, log };
