#!/usr/bin/env node
// Structure figures of crates/lazy-mcp-core/src, as ARCHITECTURE.md quotes them:
// impl Engine blocks (their lines and methods), files that import engine/mod.rs, fields reachable from
// `&mut Engine` (and how many of them files other than their owner's may write, and
// how many any file under engine/ may write), file-level import cycles, method-name literals and `.get("…")`.
// Production code only: `#[cfg(test)] mod tests` and comment lines are left out.
// Usage: node scripts/core-structure.mjs [SRC_DIR]   (prints JSON; --cycles lists them;
// --walked names the structs whose fields count in fieldsAnyEngineFileMayWrite)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const src = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "crates/lazy-mcp-core/src";
const listCycles = process.argv.includes("--cycles");

function rsFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rsFiles(path);
    return name.endsWith(".rs") ? [path] : [];
  });
}

function production(text, keepVisibility = false) {
  // An inline test module ends the production code (it comes last); a test
  // module declared in its own file (`mod machine_tests;`) is only dropped.
  const at = text.search(/#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod \w+\s*\{/);
  const body = (at < 0 ? text : text.slice(0, at)).replace(/#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod \w+;/g, "");
  return body
    .split("\n")
    .filter((line) => !line.trim().startsWith("//"))
    .join("\n")
    .replace(/pub\(in [\w:]+\)/g, (v) => (keepVisibility ? v : "pub")); // a visibility names a module, it imports nothing
}

// The text with string and char literals emptied (their newlines kept), so a
// `"struct Settings"` in a message is not read as a declaration.
function withoutLiterals(text) {
  const keepLines = (m, open, close) => open + "\n".repeat((m.match(/\n/g) ?? []).length) + close;
  return text
    .replace(/r(#*)"[\s\S]*?"\1/g, (m, hashes) => keepLines(m, `r${hashes}"`, `"${hashes}`))
    .replace(/'(?:\\.|[^'\\\n])'/g, "' '")
    .replace(/"(?:\\[\s\S]|[^"\\])*"/g, (m) => keepLines(m, '"', '"'));
}

// Module path of each file: src/engine/server/auth.rs → engine::server::auth.
const files = rsFiles(src).sort();
const modOf = new Map();
for (const file of files) {
  let parts = relative(src, file).split(sep);
  const last = parts.pop().replace(/\.rs$/, "");
  if (last !== "mod" && last !== "lib") parts.push(last);
  modOf.set(file, parts.join("::"));
}
const fileOf = new Map([...modOf].map(([file, mod]) => [mod, file]));
const code = new Map(files.map((f) => [f, production(readFileSync(f, "utf8"))]));

// Expands `a::{b, c::{d, e}}` into full paths.
function expand(path) {
  const open = path.indexOf("{");
  if (open < 0) return [path.replace(/\s+/g, "")];
  const head = path.slice(0, open);
  let depth = 0;
  let item = "";
  const items = [];
  for (const ch of path.slice(open + 1, path.lastIndexOf("}"))) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    if (ch === "," && depth === 0) {
      items.push(item);
      item = "";
    } else item += ch;
  }
  items.push(item);
  return items
    .map((i) => i.trim())
    .filter(Boolean)
    .flatMap((i) => expand(head + i));
}

// The file a path names: the longest prefix that is a module of the crate.
function target(fromMod, path, depth = 0) {
  let segs = path.split("::").filter((s) => s && s !== "self");
  let base = fromMod.split("::").filter(Boolean);
  const isDirModule = (m) => {
    const f = fileOf.get(m);
    return f && (f.endsWith(`${sep}mod.rs`) || f.endsWith("lib.rs"));
  };
  const from = fileOf.get(fromMod);
  let scope = isDirModule(fromMod) || !from ? base : base; // a file's children live under it too
  if (segs[0] === "crate") {
    scope = [];
    segs = segs.slice(1);
  } else if (segs[0] === "super") {
    scope = base.slice();
    while (segs[0] === "super") {
      scope.pop();
      segs = segs.slice(1);
    }
  } else if (!fileOf.has([...scope, segs[0]].join("::"))) return null; // std, serde, a local name
  for (let n = segs.length; n >= 0; n--) {
    const mod = [...scope, ...segs.slice(0, n)].join("::");
    if (!fileOf.has(mod)) continue;
    // An item the module re-exports (`pub use servers::Servers;` in a mod.rs)
    // is an import of the file that defines it.
    const again = n < segs.length ? reexported(mod, segs[n]) : undefined;
    return (again && depth < 8 && target(mod, again, depth + 1)) || fileOf.get(mod);
  }
  return null;
}

// The path under which module `mod` re-exports `item` (`pub use a::{B, C as D};`).
const reexports = new Map();
function reexported(mod, item) {
  if (!reexports.has(mod)) {
    const names = new Map();
    for (const u of (code.get(fileOf.get(mod)) ?? "").matchAll(/\bpub(?:\([^)]*\))?\s+use\s+([^;]+);/g)) {
      for (const p of expand(u[1])) {
        const as = p.match(/^(.*?)\s*as\s*(\w+)$/);
        const path = as ? as[1] : p;
        names.set(as ? as[2] : path.split("::").pop(), path);
      }
    }
    reexports.set(mod, names);
  }
  return reexports.get(mod).get(item);
}

// Inline modules (`mod ts { … }`) of a file with their extents: inside one,
// `super` is the file's own module.
function inlineMods(text) {
  return [...text.matchAll(/\bmod\s+(\w+)\s*\{/g)].map((m) => {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; depth > 0 && i < text.length; i++) depth += text[i] === "{" ? 1 : text[i] === "}" ? -1 : 0;
    return { name: m[1], start: m.index, end: i };
  });
}

const edges = new Map(files.map((f) => [f, new Set()]));
for (const [file, text] of code) {
  const inline = inlineMods(text);
  const modAt = (at) =>
    [modOf.get(file), ...inline.filter((m) => m.start < at && at < m.end).map((m) => m.name)]
      .filter(Boolean)
      .join("::");
  const paths = [];
  for (const m of text.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expand(m[1]).map((p) => [m.index, p]));
  // Inline paths too: `crate::a::B`, `super::a::B`, and a child module's `a::B`.
  for (const m of text.matchAll(/(?<![:\w])[a-z_]\w*(?:::\w+)+/g)) paths.push([m.index, m[0]]);
  for (const [at, p] of paths) {
    const to = target(modAt(at), p.replace(/\s+as\s+\w+$/, ""));
    if (to && to !== file) edges.get(file).add(to);
  }
}

// Tarjan's strongly connected components: every one of more than one file is a cycle.
function cycles() {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(relative(src, w));
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of files) if (!idx.has(v)) visit(v);
  return out;
}

// Fields reachable from Engine: its fields and those of every struct of
// engine/ that a reachable field's type names (through Option, Vec, maps, Box).
const structs = new Map();
for (const [file, raw] of code) {
  if (!relative(src, file).startsWith("engine")) continue;
  const text = withoutLiterals(raw);
  for (const m of text.matchAll(/\b(struct|enum)\s+(\w+)[^{;]*\{/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    while (depth > 0 && i < text.length) {
      if (text[i] === "{") depth++;
      if (text[i] === "}") depth--;
      i++;
    }
    const body = text.slice(m.index + m[0].length, i - 1);
    const all = m[1] === "struct" ? [...body.matchAll(/^\s*(pub(?:\([^)]*\))?\s+)?(\w+)\s*:/gm)] : [];
    // Open: other files may write it (a `pub` field, or any field of a struct in
    // a mod.rs, which every file under that folder sees).
    const inModRs = file.endsWith(`${sep}mod.rs`);
    const open = all.filter((f) => inModRs || f[1]).length;
    structs.set(m[2], { fields: all.length, open, body });
  }
}
const seen = new Set();
const queue = ["Engine"];
let reachable = 0;
let reachableOpen = 0;
while (queue.length) {
  const name = queue.shift();
  if (seen.has(name) || !structs.has(name)) continue;
  seen.add(name);
  const { fields, open, body } = structs.get(name);
  reachable += fields;
  reachableOpen += open;
  for (const m of body.matchAll(/\b([A-Z]\w+)\b/g)) if (!seen.has(m[1])) queue.push(m[1]);
}

// Fields any file under engine/ may write through `&mut Engine`: walked from
// Engine through fields whose visibility reaches all of engine/ (`pub`,
// `pub(crate)`, `pub(in crate::engine)`, `pub(super)` of a file directly in
// engine/, or any field of a struct in engine/mod.rs). A private field stops the
// walk: what it holds is its owner's (e.g. `Clients`' fields, private to clients/).
const withVisibility = new Map();
for (const file of files) {
  if (!relative(src, file).startsWith("engine")) continue;
  const text = withoutLiterals(production(readFileSync(file, "utf8"), true));
  const mod = modOf.get(file).split("::");
  for (const m of text.matchAll(/\bstruct\s+(\w+)[^{;]*\{/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    while (depth > 0 && i < text.length) {
      if (text[i] === "{") depth++;
      if (text[i] === "}") depth--;
      i++;
    }
    const body = text.slice(m.index + m[0].length, i - 1);
    const found = [...body.matchAll(/^\s*(pub(?:\([^)]*\))?\s+)?(\w+)\s*:/gm)];
    const fields = found.map((f, n) => {
      const vis = (f[1] ?? "").trim();
      const scope =
        vis === "pub" || vis === "pub(crate)"
          ? []
          : vis.startsWith("pub(in crate::")
            ? vis.slice("pub(in crate::".length, -1).split("::")
            : vis === "pub(super)"
              ? mod.slice(0, -1)
              : mod;
      const type = body.slice(f.index + f[0].length, found[n + 1]?.index ?? body.length);
      return { engineWide: scope.length <= 1, type };
    });
    withVisibility.set(m[1], fields);
  }
}
let engineWide = 0;
const walked = new Set();
const walk = ["Engine"];
while (walk.length) {
  const name = walk.shift();
  if (walked.has(name) || !withVisibility.has(name)) continue;
  walked.add(name);
  for (const field of withVisibility.get(name)) {
    if (!field.engineWide) continue;
    engineWide++;
    for (const t of field.type.matchAll(/\b([A-Z]\w+)\b/g)) walk.push(t[1]);
  }
}

// Folders (and files) directly under `base` that import each other, directly or
// round a loop: every import between two of them runs back up a layer. A file
// `x.rs` and its folder `x/` are one room; `top` is the file that only declares
// (lib.rs, mod.rs), left out.
function backArrows(base, top) {
  const room = (f) => relative(base, f).split(sep)[0].replace(/\.rs$/, "");
  const inside = (f) => !relative(base, f).startsWith("..");
  const roomEdges = new Map();
  for (const [from, tos] of edges) {
    if (!inside(from)) continue;
    for (const to of tos) {
      if (!inside(to)) continue;
      const [a, b] = [room(from), room(to)];
      if (a === b || a === top || b === top) continue;
      if (!roomEdges.has(a)) roomEdges.set(a, new Set());
      roomEdges.get(a).add(b);
    }
  }
  const reaches = (a, b, seen = new Set()) =>
    [...(roomEdges.get(a) ?? [])].some((n) => n === b || (!seen.has(n) && (seen.add(n), reaches(n, b, seen))));
  const out = [];
  for (const [a, tos] of roomEdges) for (const b of tos) if (reaches(b, a)) out.push(`${a} -> ${b}`);
  return out.sort();
}

const engineFiles = files.filter((f) => relative(src, f).startsWith(`engine${sep}`));
const engineMod = join(src, "engine", "mod.rs");
const all = [...code.values()].join("\n");
const methodLiteral =
  /"((?:notifications|tools|prompts|resources|completion|logging|roots|sampling|elicitation|server|subscriptions|tasks)\/[A-Za-z_/]+|initialize|ping)"/g;
const literals = [...all.matchAll(methodLiteral)].map((m) => m[1]);
const found = cycles();
// `impl Engine` blocks' lines (from `impl Engine` to its closing `}` at column 0,
// comment lines left out) and their methods: what the router still does itself.
let implEngineLines = 0;
let implEngineMethods = 0;
for (const text of code.values()) {
  let inside = false;
  for (const line of text.split("\n")) {
    if (!inside && /^impl Engine\b/.test(line)) inside = true;
    if (!inside) continue;
    implEngineLines++;
    if (/^ {4}(pub(\([^)]*\))? )?(const )?fn \w+/.test(line)) implEngineMethods++;
    if (/^}/.test(line)) inside = false;
  }
}
const figures = {
  src,
  files: files.length,
  engineFiles: engineFiles.length,
  implEngineBlocks: [...all.matchAll(/^impl Engine\b/gm)].length,
  implEngineLines,
  implEngineMethods,
  filesImportingEngineModRs: engineFiles.filter((f) => f !== engineMod && edges.get(f).has(engineMod)).length,
  engineModRsImports: edges.get(engineMod)?.size ?? 0,
  fieldsReachableFromEngine: reachable,
  fieldsOtherFilesMayWrite: reachableOpen,
  fieldsAnyEngineFileMayWrite: engineWide,
  structsReachableFromEngine: seen.size,
  foldersImportingEachOther: backArrows(src, "lib"),
  engineRoomsImportingEachOther: backArrows(join(src, "engine"), "mod"),
  // The same one level down: the rooms inside each of engine/'s folders.
  ownerRoomsImportingEachOther: Object.fromEntries(
    (existsSync(join(src, "engine")) ? readdirSync(join(src, "engine"), { withFileTypes: true }) : [])
      .filter((d) => d.isDirectory())
      .map((d) => [d.name, backArrows(join(src, "engine", d.name), "mod")])
      .filter(([, arrows]) => arrows.length),
  ),
  importCycles: found.length,
  filesInCycles: found.reduce((n, c) => n + c.length, 0),
  methodLiterals: literals.length,
  distinctMethodLiterals: new Set(literals).size,
  toolsCallLiterals: literals.filter((l) => l === "tools/call").length,
  dotGetCalls: [...all.matchAll(/\.get\("/g)].length,
};
if (listCycles) figures.cycles = found;
if (process.argv.includes("--walked")) figures.walked = [...walked];
console.log(JSON.stringify(figures, null, 2));
