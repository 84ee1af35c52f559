// Tidy: the host holds no policy a grep would find (issue 25's "decisions in the core,
// constants in one place"). Waits, intervals, retries and what an HTTP status means are
// the core's (crates/lazy-mcp-core/src/host_limits.rs, http_status.rs), read by the host
// through `WasmCore.limits()` / `httpPolicy()`. This test greps extension/src for:
//   - a timer or sleep whose delay is a number literal (`setTimeout(f, 500)`, `sleep(300)`);
//   - a duration, timeout, grace, delay, retry or backoff given a number literal
//     (`const PIPE_CLOSE_WAIT_MS = 500`, `graceMs = opts.killGraceMs ?? 2000`), whatever its
//     unit (`TERM_TO_KILL_S = 2`, `waitSeconds = 5`), and a shell `sleep 2` in a script;
//   - a size cap, bound or count given a number literal (`maxFileBytes = 4096`,
//     `minTokenLength = 32`, `backlog: 4096`, `listenAttempts = 3`) and a byte size
//     written as arithmetic (`256 * 1024 * 1024`);
//   - an HTTP status number in a comparison (`status === 401`, `case 404:`);
//   - an array of three or more number literals (a retry or backoff schedule);
//   - a network error code as a string (`code === 'ECONNREFUSED'`, `case 'ENOTFOUND':`): what
//     a failed request means for its connection is the core's (http_request_error.rs).
// Loops that retry a literal number of times (`attempt < 3`) fail in the loop test below.
// A new one fails here: move it into the core's limits, or, if it is mechanics and no
// policy, add it to `allowed` below with the reason. An allowed entry no longer found
// fails too, so the list stays true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const srcRoot = path.join(repoRoot, 'extension', 'src');

const NUM = String.raw`\d[\d_]*(?:\.\d+)?`;
/** Literal arithmetic only (`5 * 60_000`, `2 ** 31 - 1`), no identifiers. */
const LITERAL_EXPR = String.raw`\(?\s*${NUM}(?:\s*(?:\*\*|[-+*/])\s*${NUM})*\s*\)?`;
const rules = [
  {
    rule: 'timer with a literal delay',
    re: new RegExp(String.raw`\b(?:setTimeout|setInterval)\s*\(.*,\s*${LITERAL_EXPR}\s*\)`),
  },
  {
    // A timer written over several lines ends with its delay: `}, 2000);` (e.g. the bound of an
    // HTTP session's DELETE, which is the core's `httpSessionEndTimeoutMs`). Not 0: `reduce`'s start.
    rule: 'timer with a literal delay',
    re: new RegExp(String.raw`^\s*\}\s*,\s*\(?\s*[1-9][\d_]*(?:\.\d+)?(?:\s*(?:\*\*|[-+*/])\s*${NUM})*\s*\)?\s*\)`),
  },
  { rule: 'sleep with a literal delay', re: new RegExp(String.raw`\b(?:sleep|delay)\s*\(\s*${NUM}`) },
  // A shell script's own wait (`sleep 2; kill -s KILL 0`): a string, so no name rule sees it.
  { rule: 'sleep with a literal delay', re: new RegExp(String.raw`\bsleep\s+${NUM}\b`) },
  {
    rule: 'duration, retry or backoff literal',
    re: new RegExp(
      String.raw`\b\w*(?:Ms|_MS|_S|_SECS?|_SECONDS|Secs?|Seconds|_MINS?|_MINUTES|Mins|Minutes|[tT]imeout|TIMEOUT|[iI]nterval|INTERVAL|[gG]race|GRACE|[dD]elay|DELAY|[rR]etries|RETRIES|[bB]ackoff|BACKOFF|[pP]auses?|PAUSES?)\b\s*(?:=|\?\?|\|\||:)\s*\(?\s*[1-9][\d_]*`,
    ),
  },
  {
    // A size cap, bound or count by its name: `maxTokenFileBytes = 4096`, `MAX_ERROR_BODY_CHARS = 64 * 1024`,
    // `minTokenLength = 32`, `backlog: 4096`, `listenAttempts = 3`, `recordLimit = 1000`.
    rule: 'size cap or count literal',
    re: new RegExp(
      String.raw`\b(?:\w*(?:Bytes|BYTES|Chars|CHARS|Length|LENGTH|Limit|LIMIT|Size|SIZE|Attempts|ATTEMPTS|Tries|TRIES)|(?:max|min)[A-Z]\w*|(?:MAX|MIN)_\w+|backlog)\b\s*(?:=|\?\?|\|\||:)\s*\(?\s*[1-9][\d_]*`,
    ),
  },
  // A collection bounded by an unnamed number (`log.length > 1000`, `splice(0, 200)`): a cap
  // all the same. 100 and up: a short list's structural checks (`length > 1`) are not caps.
  {
    rule: 'size cap or count literal',
    re: new RegExp(String.raw`(?:\.(?:length|size)\s*(?:>|>=)\s*[1-9][\d_]{2,}\b|\bsplice\(\s*0\s*,\s*[1-9][\d_]*\s*\))`),
  },
  // A byte size written as arithmetic, whatever it is called or passed to (`256 * 1024 * 1024,`).
  // Not `1024 * 1024` alone: the unit a size is shown in (`n / (1024 * 1024)` MB).
  { rule: 'size cap or count literal', re: new RegExp(String.raw`\b(?!1024\b)${NUM}\s*\*\s*1024\b`) },
  {
    rule: 'HTTP status comparison',
    re: /(?:status\w*\s*(?:===|!==|==|!=|>=|<=|<|>)\s*[1-5]\d\d\b|\b[1-5]\d\d\s*(?:===|!==|==|!=)\s*\w*status|\bcase\s+[1-5]\d\d\s*:)/i,
  },
  { rule: 'number array (a schedule?)', re: new RegExp(String.raw`\[\s*${NUM}\s*(?:,\s*${NUM}\s*){2,}\]`) },
  {
    rule: 'network error code',
    re: /(['"`])(?:ECONN[A-Z]*|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|ETIMEDOUT|EAI_AGAIN)\1/,
  },
];

/**
 * Mechanics, not policy: each entry is one line (file, rule, a piece of its text) and why it
 * stays in the host.
 */
const allowed = [
  {
    file: 'vscode/serverTree.ts',
    rule: 'timer with a literal delay',
    text: 'this.changed.fire(), 1000)',
    why: 'redraws the "next retry in N s" countdown once a second: the display unit, not a wait',
  },
  {
    file: 'vscode/diagnosticsView.ts',
    rule: 'timer with a literal delay',
    text: 'this.refresh(), 1000)',
    why: 'the open MCP Diagnostics view redraws its countdowns once a second, like the tree',
  },
  {
    file: 'vscode/controller.ts',
    rule: 'timer with a literal delay',
    text: 'this.updateUi(), 100)',
    why: 'coalesces a burst of state changes into one redraw of the tree and status bar',
  },
  {
    file: 'vscode/notifier.ts',
    rule: 'size cap or count literal',
    text: 'recordLimit = 1000',
    why: 'the record of shown notifications that tests read keeps its last entries: a memory bound of that record, nothing a user meets',
  },
  {
    file: 'vscode/controller.ts',
    rule: 'size cap or count literal',
    text: 'recentLogLimit = 1000',
    why: "the window's recent log lines that the API's logLines() returns (tests read it) keep the newest: a memory bound of that buffer (the Output channel keeps every line), nothing a server meets",
  },
  {
    file: 'host/connections/stdioConnection.ts',
    rule: 'size cap or count literal',
    text: 'text.length > 160 ?',
    why: 'how much of an ignored non-JSON stdout line its warning quotes: wording, not a limit on the line',
  },
  {
    file: 'host/auth/loopbackRedirect.ts',
    rule: 'duration, retry or backoff literal',
    text: 'keepAliveTimeout = 1000',
    why: "the one-shot sign-in callback listener lets the browser's idle keep-alive socket go soon; close() ends them all anyway",
  },
  {
    file: 'host/engineDriver.ts',
    rule: 'duration, retry or backoff literal',
    text: 'MAX_TIMEOUT_MS = 2 ** 31 - 1',
    why: "Node's setTimeout range: a longer delay fires at once, so the core's deadline is clamped to it",
  },
  {
    file: 'host/engineDriver.ts',
    rule: 'size cap or count literal',
    text: 'MAX_TIMEOUT_MS = 2 ** 31 - 1',
    why: "the same line: Node's setTimeout range, no limit of Lazy MCP's",
  },
  {
    file: 'host/config/readConfigFile.ts',
    rule: 'size cap or count literal',
    text: 'Math.max(opened.size + 1, 64 * 1024)',
    why: "the first read's buffer (the file's size, at least one chunk) so a file that grew is seen: I/O mechanics; the cap is the core's `configFileMaxBytes`",
  },
  {
    file: 'host/shared/ownerLauncher.ts',
    rule: 'network error code',
    text: "code === 'ENOENT' || code === 'ECONNREFUSED'",
    why: "what the OS answers when no process listens on Lazy MCP's own owner socket (no socket file, or a stale one): a fact read, not a rule about a server; what follows (start the owner) and how long to wait are the core's (host_waits.rs)",
  },
];

/**
 * Comments out, strings kept: a comment starts a line or follows a blank or punctuation, so a
 * URL's `//` (after a colon) and a media range's `/*` (after a letter) stay code.
 */
function codeLines(text) {
  const withoutBlocks = text.replace(/(?<=^|[\s;{}(),])\/\*[\s\S]*?\*\//gm, (block) => block.replace(/[^\n]/g, ' '));
  return withoutBlocks.split('\n').map((line) => line.replace(/(^|[\s;{}(),])\/\/.*$/, '$1'));
}

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.includes('.generated.') ? [full] : [];
  });
}

/** Every line of `text` a rule matches: `{ line, rule, code }`. */
function findings(text) {
  const found = [];
  codeLines(text).forEach((code, i) => {
    // Once per line and rule (two patterns of one rule may match the same line).
    for (const { rule, re } of rules) if (re.test(code) && !found.some((f) => f.line === i + 1 && f.rule === rule)) found.push({ line: i + 1, rule, code: code.trim() });
  });
  return found;
}

test('the detector finds each kind of policy literal (else this test would pass on anything)', () => {
  const samples = {
    'timer with a literal delay': ['this.timer = setTimeout(() => this.close(), 15_000);', 'setInterval(() => this.flush(false), 10 * 1000)', '        }, 2_000);', '  }, 5 * 60_000)'],
    'sleep with a literal delay': [
      'await sleep(300, cancelled);',
      'await delay(10);',
      "  `(trap '' TERM; read -r _ <&3; kill -s TERM 0; sleep 2; kill -s KILL 0) </dev/null &`,",
    ],
    'duration, retry or backoff literal': [
      'const PIPE_CLOSE_WAIT_MS = 500;',
      'this.graceMs = opts.killGraceMs ?? 2000;',
      'private readonly intervalMs = 10_000,',
      'const trapNoticeIntervalMs = 60_000;',
      'const TERM_TO_KILL_S = 2;',
      'const stopWaitSeconds = 15;',
      'const LINGER_MINUTES = 5;',
    ],
    'size cap or count literal': [
      'const maxConfigFileBytes = 4 * 1024 * 1024;',
      'const maxTokenFileBytes = 4096;',
      'const minTokenLength = 32;',
      'const MAX_ERROR_BODY_CHARS = 64 * 1024;',
      "server.listen({ path: this.socketPath, backlog: 4096 }, () => resolve(undefined));",
      'const listenAttempts = 3;',
      'const recordLimit = 1000;',
      '    256 * 1024 * 1024,',
      'if (this.recentLog.length > 1000) this.recentLog.splice(0, 200);',
      'while (queue.size >= 500) queue.delete(first);',
      'lines.splice(0, 50);',
    ],
    'HTTP status comparison': ['if (res.statusCode === 404) return;', 'if (admission.status === 401) headers.x = 1;', 'case 405:'],
    'number array (a schedule?)': ['const pausesMs = [25, 50, 100, 200, 400];'],
    'network error code': [
      "if (isFirst || code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {",
      "case 'ECONNRESET':",
      '["EHOSTUNREACH", "ETIMEDOUT"].includes(code)',
    ],
  };
  for (const [rule, lines] of Object.entries(samples)) {
    for (const line of lines) assert.ok(findings(line).some((f) => f.rule === rule), `${rule}: ${line}`);
  }
  // A media range in a string is no comment: the code after it is still read.
  assert.equal(findings("const accept = 'text/*'; setTimeout(f, 500); const x = '*/';").length, 1);
  // Not policy: zero, a limit read from the core, a status written as an answer, comments.
  for (const line of [
    'let trapNoticeIntervalMs = 0;',
    '  }, 0);',
    '        }, this.policy.sessionEndTimeoutMs);',
    'setTimeout(resolve, this.limits.pipeCloseWaitMs)',
    "`(trap '' TERM; read -r _ <&3; kill -s TERM 0; sleep ${seconds}; kill -s KILL 0)`",
    'const seconds = Math.max(1, Math.ceil(killGraceMs / 1000));',
    'readBody(res, this.policy.errorBodyMaxChars, this.maxMessageBytes)',
    'const buffer = Buffer.alloc(limits.tokenFileMaxBytes + 1);',
    'export async function readConfigFile(p: string, maxBytes: number): Promise<ReadResult> {',
    'const maxBytes = ctx.core.limits().gateway.maxBodyBytes;',
    'server.listen({ path: this.socketPath, backlog: listenBacklog }, () => resolve(undefined));',
    'const memory = `RSS ${Math.round(rss / 1_048_576)} MB`;',
    'const mib = n / (1024 * 1024);',
    "res.writeHead(404, { 'Content-Type': 'text/plain' })",
    '// a 401 or 403 holds the request; retries after 500 ms',
    "fetch('http://127.0.0.1:8080/mcp')",
    'if (parts.length > 1) return parts[0];',
    'if (this.recentLog.length > recentLogLimit) this.recentLog.splice(0, recentLogLimit / 5);',
    "return 'command not found (ENOENT); check that it is installed';",
    'this.closeWith({ reason: `cannot connect to ${this.shownUrl}: ${code}` });',
    '// ECONNREFUSED, ENOTFOUND: the core says the connection ends',
  ]) {
    assert.deepEqual(findings(line), [], line);
  }
});

test('extension/src holds no wait, retry, interval or status rule of its own but the mechanics allowed', () => {
  const unexplained = [];
  const used = new Set();
  for (const file of sourceFiles(srcRoot)) {
    const rel = path.relative(srcRoot, file).split(path.sep).join('/');
    for (const f of findings(fs.readFileSync(file, 'utf8'))) {
      const allow = allowed.find((a) => a.file === rel && a.rule === f.rule && f.code.includes(a.text));
      if (allow) used.add(allow);
      else unexplained.push(`extension/src/${rel}:${f.line}: ${f.rule}: ${f.code}`);
    }
  }
  assert.deepEqual(
    unexplained,
    [],
    "policy in the host: move it into the core's limits (host_limits.rs, read with WasmCore.limits()), or allow it here with the reason it is mechanics",
  );
  const stale = allowed.filter((a) => !used.has(a)).map((a) => `${a.file}: ${a.text}`);
  assert.deepEqual(stale, [], 'allowed entries no longer found: remove them');
});

// ── Retry and poll loops ─────────────────────────────────────────────────────
// A loop (`for (;;)`, `while`, `do`) whose body sleeps (`await sleep(…)`, an awaited
// `setTimeout`), compares `Date.now()` with a deadline or counts its tries to a number literal
// (`attempt < 3`) is a retry or poll schedule: policy
// the core should own. Today's are listed with why each stays; a new one fails here, and an
// entry no longer found fails too.

/** Each entry: the file, a piece of the loop's first line, and why it stays in the host. */
const allowedLoops = [
  {
    file: 'host/coreWaits.ts',
    text: 'for (;;) {\n    const seen = await look();',
    why: "the host's one loop that looks again at what gives no event (the owner's socket and start lock, another process's sign-in lock): how soon and when to give up are the core's (host_waits.rs `nextTry`)",
  },
  {
    file: 'host/connections/processGroup.ts',
    text: 'for (;;) {\n    if (except ?',
    why: "a stopped process group has no exit event: polled until the caller's (the core's) timeout",
  },
];

/** String contents blanked (newlines kept), so braces in text do not count. */
function blankStrings(code) {
  return code.replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, (s) => s[0] + s.slice(1, -1).replace(/[^\n]/g, ' ') + s[0]);
}

/** The index just past the bracket that closes the one at `open`. */
function closing(code, open) {
  const pairs = { '(': ')', '{': '}' };
  const stack = [];
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c in pairs) stack.push(pairs[c]);
    else if (c === ')' || c === '}') {
      stack.pop();
      if (stack.length === 0) return i + 1;
    }
  }
  return code.length;
}

/** Every loop of `text`: `{ line, head, body }` (`body` includes the head). */
function loops(text) {
  const code = blankStrings(codeLines(text).join('\n'));
  const found = [];
  for (const m of code.matchAll(/\b(for|while|do)\b\s*(\(|\{)/g)) {
    const start = m.index;
    let end = closing(code, start + m[0].length - 1);
    if (m[1] !== 'do') {
      const rest = code.slice(end).match(/^\s*(\{|;)?/);
      if (rest[1] === ';' && m[1] === 'while') continue; // a do-while's tail
      end = rest[1] === '{' ? closing(code, end + rest[0].length - 1) : code.indexOf(';', end) + 1 || code.length;
    }
    const line = code.slice(0, start).split('\n').length;
    found.push({ line, keyword: m[1], body: code.slice(start, end) });
  }
  return found;
}

const SLEEPS = /\bawait\s+(?:[\w.]+\.)?(?:sleep|delay|pause|wait)\w*\s*\(/i;
const DEADLINE = /Date\.now\(\)\s*(?:-\s*\w+\s*)?(?:<=|>=|<|>(?!=))|(?:<=|>=|<|(?<!=)>)\s*Date\.now\(\)/;

/** A count of tries compared with a number literal: `attempt < 3`, `tries >= 5`, `3 > retry`. */
const TRIES = /\b\w*(?:attempt|tries|tried|retry|retries)\w*\s*(?:<=?|>=?|===?|!==?)\s*\d|\d\s*(?:<=?|>=?|===?|!==?)\s*\w*(?:attempt|tries|tried|retry|retries)\w*\b/i;

/** Why a loop is a retry or poll loop, or undefined when it is none. */
function pollReason(body) {
  if (/\bawait\b/.test(body) && /\bsetTimeout\b/.test(body)) return 'awaits a setTimeout';
  if (TRIES.test(body)) return 'tries a literal number of times';
  if (SLEEPS.test(body)) return 'sleeps';
  if (DEADLINE.test(body)) return 'compares Date.now() with a deadline';
  return undefined;
}

/** The retry and poll loops of a file's text: `{ line, reason, head }`, `head` from the original text. */
function pollLoops(text) {
  const lines = text.split('\n');
  return loops(text).flatMap(({ line, keyword, body }) => {
    const reason = pollReason(body);
    if (!reason) return [];
    // Comments are gone from `body`: the head is read from the original lines.
    const from = lines.slice(line - 1, line + 3).join('\n');
    return [{ line, reason, head: from.slice(Math.max(0, from.search(new RegExp(String.raw`\b${keyword}\b`)))) }];
  });
}

test('the loop detector finds each kind of retry or poll loop (else this test would pass on anything)', () => {
  const polls = [
    'for (;;) {\n  if (await ready()) return;\n  await sleep(limits.pollMs);\n}',
    'while (!done()) {\n  await new Promise((r) => setTimeout(r, limits.pauseMs));\n}',
    'const deadline = Date.now() + ms;\nfor (;;) {\n  try { return await connect(); } catch { if (Date.now() > deadline) throw new Error("gone"); }\n}',
    'do {\n  await delay(ms);\n} while (!ready());',
    'while (Date.now() - since < limitMs) step();',
    'for (let attempt = 0; attempt < 3; attempt++) {\n  if (tryListen()) return true;\n  removeStaleSocket();\n}',
    'let tries = 0;\nwhile (!createExclusively(file)) {\n  if (++tries >= 5) throw new Error("keeps changing");\n}',
  ];
  for (const text of polls) assert.equal(pollLoops(text).length, 1, text);
  // Not a poll: a read loop, an event wait, a counter, braces in strings, a timer armed in a loop.
  for (const text of [
    'for (;;) {\n  const { bytesRead } = await handle.read(buf);\n  if (bytesRead === 0) break;\n}',
    'for (;;) {\n  if (!busy()) return;\n  await host.whenSettled();\n}',
    "while (start < end && line[start] === ' ') start++;",
    "for (const x of xs) {\n  const s = '{ }}';\n  x.timer = setTimeout(f, x.ms);\n}",
    'const started = Date.now();\nfor (const x of xs) x.at = Date.now() - started;',
    'for (let attempt = 0; attempt < limits.tokenFileAttempts; attempt++) {\n  if (create()) return;\n}',
  ]) {
    assert.deepEqual(pollLoops(text), [], text);
  }
});

test('extension/src has no retry or poll loop of its own but the ones allowed', () => {
  const unexplained = [];
  const used = new Set();
  for (const file of sourceFiles(srcRoot)) {
    const rel = path.relative(srcRoot, file).split(path.sep).join('/');
    for (const loop of pollLoops(fs.readFileSync(file, 'utf8'))) {
      const allow = allowedLoops.find((a) => a.file === rel && loop.head.startsWith(a.text));
      if (allow) used.add(allow);
      else unexplained.push(`extension/src/${rel}:${loop.line}: a loop that ${loop.reason}: ${loop.head.split('\n')[0]}`);
    }
  }
  assert.deepEqual(
    unexplained,
    [],
    'a retry or poll loop in the host: let the core decide when to try again (its timer table, host_limits.rs), or allow it here with the reason it is mechanics',
  );
  const stale = allowedLoops.filter((a) => !used.has(a)).map((a) => `${a.file}: ${a.text.split('\n')[0]}`);
  assert.deepEqual(stale, [], 'allowed loops no longer found: remove them');
});
