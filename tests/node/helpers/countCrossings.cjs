// Preloaded into a `lazy-mcp` process (`node -r THIS dist/cli.js …`): every call
// into the built WASM core (dist/core/lazy_mcp_wasm.js, however often it is
// loaded) is appended, by name, to the file $LAZY_MCP_TEST_CROSSINGS, so a test
// counts the crossings a real process makes. With $LAZY_MCP_TEST_CROSSINGS_FORM set, a
// hot crossing's name is followed by the form its effects came back in: ` compact`
// (`#` first, read by host/hotParts.ts with slices) or ` json`.
const fs = require('node:fs');
const Module = require('node:module');

const file = process.env.LAZY_MCP_TEST_CROSSINGS;
const withForm = process.env.LAZY_MCP_TEST_CROSSINGS_FORM !== undefined;
const note = (name) => fs.appendFileSync(file, `${name}\n`);
const wrapped = new WeakSet();

/**
 * The form of a hot crossing's effects part: after the routing (`clientPost`) or the
 * awaited flag (`messageReceived` with `reply_of`), else first; the parts joined by
 * U+001E or an array.
 */
function formOf(method, args, out) {
  const parts = typeof out === 'string' ? out.split('\u001e') : out;
  const at = method === 'clientPost' || (method === 'messageReceived' && args[3] != null) ? 1 : 0;
  return String(parts[at] ?? '').startsWith('#') ? 'compact' : 'json';
}
const hot = new Set(['clientPost', 'clientMessage', 'messageReceived']);

function wrap(core) {
  for (const [name, value] of Object.entries(core)) {
    if (typeof value !== 'function') continue;
    if (/^[A-Z]/.test(name)) {
      // A class (`Engine`, `SharedOwner`): its methods cross.
      for (const method of Object.getOwnPropertyNames(value.prototype)) {
        const original = value.prototype[method];
        if (method === 'constructor' || typeof original !== 'function') continue;
        value.prototype[method] = function (...args) {
          // A JSON event says which one it is (`Engine.handleSplit:timeout`).
          const type = method === 'handleSplit' ? `:${JSON.parse(args[1]).type}` : '';
          if (!withForm || name !== 'Engine' || !hot.has(method)) {
            note(`${name}.${method}${type}`);
            return original.apply(this, args);
          }
          const out = original.apply(this, args);
          note(`${name}.${method} ${formOf(method, args, out)}`);
          return out;
        };
      }
    } else {
      core[name] = (...args) => {
        note(name);
        return value(...args);
      };
    }
  }
}

const load = Module._load;
Module._load = function (request, ...rest) {
  const out = load.call(this, request, ...rest);
  if (/lazy_mcp_wasm\.js$/.test(request) && out && !wrapped.has(out)) {
    wrapped.add(out);
    wrap(out);
  }
  return out;
};
