// Framing pieces of the connection layer: SSE parsing, stdout line splitting,
// the stderr ring, envFile parsing.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { loadConnections } from './connections.helper.mjs';

const { SseParser, LineSplitter, StderrRing, parseEnvFile, redactUrl, planWindowsSpawn, escapeArgument, escapeCommand } = loadConnections();

function parseSse(chunks) {
  const events = [];
  const p = new SseParser((e) => events.push(e));
  for (const c of chunks) p.push(c);
  return events;
}

describe('SseParser', () => {
  const stream = 'id: 7\nevent: endpoint\ndata: /message?sessionId=abc\n\n: comment\n\ndata: {"a":\ndata:1}\n\ndata: tail-without-blank-line';

  test('events, multi-line data, ids, comments; an unterminated event is not dispatched', () => {
    const events = parseSse([stream]);
    assert.deepEqual(events, [
      { event: 'endpoint', data: '/message?sessionId=abc', id: '7' },
      { event: '', data: '{"a":\n1}', id: '7' },
    ]);
  });

  test('the same events whatever the chunking and line endings', () => {
    const expected = parseSse([stream]);
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = stream.replace(/\n/g, eol);
      for (let size = 1; size <= 7; size++) {
        const chunks = [];
        for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
        assert.deepEqual(parseSse(chunks), expected, `eol ${JSON.stringify(eol)} chunk size ${size}`);
      }
    }
  });

  test('a byte-order mark at the start of the stream is ignored', () => {
    assert.deepEqual(parseSse(['\ufeffdata: x\n\n']), [{ event: '', data: 'x', id: undefined }]);
  });

  test('a field without a colon, a data line without a space, an event with no data', () => {
    assert.deepEqual(parseSse(['data\n\nevent: x\n\ndata:no-space\n\n']), [
      { event: '', data: '', id: undefined },
      { event: '', data: 'no-space', id: undefined },
    ]);
  });
});

describe('LineSplitter', () => {
  function split(chunks, max = 1 << 20) {
    const lines = [];
    const overflows = [];
    const s = new LineSplitter((l) => lines.push(l), max, (n) => overflows.push(n));
    for (const c of chunks) s.push(Buffer.from(c));
    s.end();
    return { lines, overflows };
  }

  test('partial lines, CRLF, a last line without newline', () => {
    assert.deepEqual(split(['{"a"', ':1}\r\n{"b":2}\n', '{"c"', ':3}']).lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test('multi-byte characters split across chunks decode intact', () => {
    const bytes = Buffer.from('héllo 😀 wörld\n');
    const chunks = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));
    const lines = [];
    const s = new LineSplitter((l) => lines.push(l), 1 << 20, () => {});
    for (const c of chunks) s.push(c);
    assert.deepEqual(lines, ['héllo 😀 wörld']);
  });

  test('a line over the limit is dropped and reported; the next line is fine', () => {
    const { lines, overflows } = split(['x'.repeat(30), 'y'.repeat(30), '\n{"ok":1}\n'], 50);
    assert.deepEqual(lines, ['{"ok":1}']);
    assert.deepEqual(overflows, [60]);
  });
});

describe('StderrRing', () => {
  test('keeps the last lines, bounded by count and size', () => {
    const r = new StderrRing(3, 1000);
    for (let i = 1; i <= 5; i++) r.add(`line ${i}`);
    assert.equal(r.tail(), 'line 3\nline 4\nline 5');
    const small = new StderrRing(100, 20);
    small.add('a'.repeat(15));
    small.add('b'.repeat(15));
    assert.equal(small.tail(), 'b'.repeat(15));
    small.add('c'.repeat(50));
    assert.equal(small.tail(), 'c'.repeat(20));
  });
});

describe('parseEnvFile', () => {
  test('comments, blanks, export, quotes, escapes, trailing comments', () => {
    const text = [
      '# comment',
      '',
      'A=1',
      'export B = two ',
      'C="x\\ny \\"q\\""',
      "D='literal \\n # not a comment'",
      'E=value # comment',
      'F=',
      'not a line',
      '=novalue',
      'G=a=b',
    ].join('\r\n');
    assert.deepEqual(parseEnvFile(text), {
      A: '1',
      B: 'two',
      C: 'x\ny "q"',
      D: 'literal \\n # not a comment',
      E: 'value',
      F: '',
      G: 'a=b',
    });
  });
});

describe('redactUrl', () => {
  test('query values and credentials never shown', () => {
    assert.equal(redactUrl(new URL('https://user:pw@h.example:8443/mcp?key=s3cret&x=1')), 'https://h.example:8443/mcp?key=••••&x=••••');
  });
});

describe('Windows command planning (pure functions, checked on every OS)', () => {
  const crossSpawnEscape = createRequire(import.meta.url)('cross-spawn/lib/util/escape.js');
  const env = { Path: 'C:\\Windows\\system32;"C:\\Program Files\\nodejs"', PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };
  const files = new Set(['C:\\Program Files\\nodejs\\npx.cmd', 'C:\\Program Files\\nodejs\\node.exe', 'C:\\proj\\node_modules\\.bin\\srv.cmd']);
  const exists = (f) => files.has(f);

  test('argument escaping matches cross-spawn', () => {
    const samples = ['plain', 'with space', 'quote"inside', 'trailing\\', 'back\\"slash', '%PATH%', 'a&b|c<d>e^f', '', '(x) [y] !z, ;*?`'];
    for (const a of samples) {
      for (const twice of [false, true]) assert.equal(escapeArgument(a, twice), crossSpawnEscape.argument(a, twice), JSON.stringify(a));
    }
    assert.equal(escapeCommand('C:\\Program Files (x86)\\x.cmd'), crossSpawnEscape.command('C:\\Program Files (x86)\\x.cmd'));
  });

  test('npx resolves through PATHEXT to npx.cmd and runs under cmd.exe', () => {
    const plan = planWindowsSpawn('npx', ['-y', '@scope/server', 'a b'], env, 'C:\\proj', exists);
    assert.equal(plan.command, env.ComSpec);
    assert.equal(plan.verbatim, true);
    assert.deepEqual(plan.args.slice(0, 3), ['/d', '/s', '/c']);
    assert.equal(plan.args[3], '"C:\\Program^ Files\\nodejs\\npx.cmd ^"-y^" ^"@scope/server^" ^"a^ b^""');
  });

  test('an npm cmd-shim gets its meta characters escaped twice', () => {
    const plan = planWindowsSpawn('node_modules\\.bin\\srv', ['a&b'], env, 'C:\\proj', exists);
    assert.match(plan.args[3], /srv\.cmd \^\^\^"a\^\^\^&b\^\^\^"/);
  });

  test('an .exe runs directly; an unknown command is left for spawn to report', () => {
    assert.deepEqual(planWindowsSpawn('node', ['x'], env, undefined, exists), { command: 'C:\\Program Files\\nodejs\\node.exe', args: ['x'], verbatim: false });
    assert.deepEqual(planWindowsSpawn('nope', [], env, undefined, exists), { command: 'nope', args: [], verbatim: false });
  });
});
