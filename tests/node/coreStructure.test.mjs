// The core's layers (issue 25, ARCHITECTURE.md "Invariant (layers)"): no
// folder of crates/lazy-mcp-core/src imports one that imports it back, and no
// file-level import cycle anywhere (engine/'s last one, router.rs and the
// owners' files, went when the owners' state types moved beside their code).
// Measured by scripts/core-structure.mjs, the figures ARCHITECTURE.md quotes;
// MCP method names are string literals only where protocol/methods.rs defines
// them. The last test checks that the script sees a back arrow and a cycle at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(repoRoot, 'scripts', 'core-structure.mjs');

function figures(src) {
  return JSON.parse(execFileSync(process.execPath, [script, src, '--cycles'], { cwd: repoRoot, encoding: 'utf8' }));
}

// Three levels, one rule: no part imports one that imports it back.
const layers = [
  [
    'no folder of the core imports one that imports it back',
    'foldersImportingEachOther',
    [],
    'these imports run back up a layer: move the type they share to the lower part (ARCHITECTURE.md "Invariant (layers)")',
  ],
  [
    'no room of engine/ (a folder with its parent file, or a file) imports one that imports it back',
    'engineRoomsImportingEachOther',
    [],
    'these imports run back up inside engine/: the router imports the owners, an owner imports only the owners and leaves below it (ARCHITECTURE.md "Invariant (layers)")',
  ],
  [
    'no room inside an owner folder of engine/ imports one that imports it back',
    'ownerRoomsImportingEachOther',
    {},
    "inside an owner's folder: its inputs (impl Owner files) above the owner's type, the machines it holds below it, shared types in leaf rooms (the folder's mod.rs says the order)",
  ],
];
for (const [name, figure, none, why] of layers) {
  test(name, () => {
    assert.deepEqual(figures('crates/lazy-mcp-core/src')[figure], none, why);
  });
}

test('the engine rooms check sees a room pair that imports each other through a child file', () => {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'core-structure-'));
  try {
    fs.mkdirSync(path.join(src, 'engine', 'owner'), { recursive: true });
    fs.writeFileSync(path.join(src, 'lib.rs'), 'pub mod engine;\n');
    fs.writeFileSync(path.join(src, 'engine', 'mod.rs'), 'pub mod owner;\npub mod router;\npub use router::Engine;\n');
    fs.writeFileSync(path.join(src, 'engine', 'owner.rs'), 'pub mod part;\npub struct Owner;\n');
    fs.writeFileSync(path.join(src, 'engine', 'router.rs'), 'use crate::engine::owner::Owner;\npub struct Engine(Owner);\n');
    // The router's code in the owner's folder: the owner imports the router back.
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'part.rs'), 'use crate::engine::router::Engine;\nimpl Engine {}\n');
    assert.deepEqual(figures(src).engineRoomsImportingEachOther, ['owner -> router', 'router -> owner']);
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'part.rs'), 'pub struct Part;\n');
    assert.deepEqual(figures(src).engineRoomsImportingEachOther, []);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
});

test("the owner rooms check follows a re-export to the owner's type", () => {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'core-structure-'));
  try {
    fs.mkdirSync(path.join(src, 'engine', 'owner', 'inputs'), { recursive: true });
    fs.writeFileSync(path.join(src, 'lib.rs'), 'pub mod engine;\n');
    fs.writeFileSync(path.join(src, 'engine', 'mod.rs'), 'pub mod owner;\n');
    // The owner's type in machine.rs, named by the others through mod.rs's re-export.
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'mod.rs'), 'mod inputs;\nmod machine;\npub use machine::Owner;\n');
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'inputs.rs'), 'pub mod part;\n');
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'inputs', 'part.rs'), 'use crate::engine::owner::Owner;\npub struct Held;\nimpl Owner {}\n');
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'machine.rs'), 'use super::inputs::part::Held;\npub struct Owner(Held);\n');
    assert.deepEqual(figures(src).ownerRoomsImportingEachOther, { owner: ['inputs -> machine', 'machine -> inputs'] });
    // The held type in a room below the owner: no loop.
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'inputs', 'part.rs'), 'use crate::engine::owner::Owner;\nimpl Owner {}\n');
    fs.writeFileSync(path.join(src, 'engine', 'owner', 'machine.rs'), 'pub struct Owner;\n');
    assert.deepEqual(figures(src).ownerRoomsImportingEachOther, {});
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
});

test('no file-level import cycle in the core', () => {
  const { cycles } = figures('crates/lazy-mcp-core/src');
  assert.deepEqual(cycles, [], 'break the cycle: move what the files share to a file both import (in engine/, the state type beside the code that owns it)');
});

test('every MCP method name is written once, in protocol/methods.rs', () => {
  const { methodLiterals } = figures('crates/lazy-mcp-core/src');
  const methods = fs.readFileSync(path.join(repoRoot, 'crates/lazy-mcp-core/src/protocol/methods.rs'), 'utf8');
  const defined = [...methods.matchAll(/^\s*(?:pub const \w+: &str =)?\s*"[^"]+";$/gm)].length;
  assert.ok(defined > 0, 'no method constants read from protocol/methods.rs');
  assert.equal(
    methodLiterals,
    defined,
    'a method name is written as a string literal outside protocol/methods.rs: use its constant (methods::TOOLS_CALL)',
  );
});

test('the check sees a new back arrow and a new cycle', () => {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'core-structure-'));
  try {
    fs.mkdirSync(path.join(src, 'low'));
    fs.mkdirSync(path.join(src, 'high'));
    fs.writeFileSync(path.join(src, 'lib.rs'), 'pub mod high;\npub mod low;\n');
    fs.writeFileSync(path.join(src, 'low', 'mod.rs'), 'pub mod a;\npub mod b;\n');
    fs.writeFileSync(path.join(src, 'high', 'mod.rs'), 'use crate::low::a::A;\npub struct H(A);\n');
    // low/a.rs and low/b.rs import each other; low/b.rs also imports high/ back.
    fs.writeFileSync(path.join(src, 'low', 'a.rs'), 'use super::b::B;\npub struct A(B);\n');
    fs.writeFileSync(path.join(src, 'low', 'b.rs'), 'use crate::high::H;\npub struct B;\nfn f(_: crate::low::a::A) {}\n');
    const seen = figures(src);
    assert.deepEqual(seen.foldersImportingEachOther, ['high -> low', 'low -> high']);
    assert.deepEqual(seen.cycles, [[path.join('high', 'mod.rs'), path.join('low', 'a.rs'), path.join('low', 'b.rs')]]);
    // An inline module's `super` is its own file: not an import of lib.rs.
    fs.writeFileSync(path.join(src, 'low', 'b.rs'), 'pub struct B;\nmod inner {\n    use super::B;\n}\n');
    const fixed = figures(src);
    assert.deepEqual(fixed.foldersImportingEachOther, []);
    assert.deepEqual(fixed.cycles, []);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
});

test("a struct named inside a string is not read as the struct's declaration", () => {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'core-structure-'));
  try {
    fs.mkdirSync(path.join(src, 'engine'));
    fs.writeFileSync(path.join(src, 'lib.rs'), 'pub mod engine;\n');
    fs.writeFileSync(path.join(src, 'engine', 'mod.rs'), 'pub mod router;\npub mod router_json;\n');
    fs.writeFileSync(path.join(src, 'engine', 'router.rs'), 'pub struct Engine {\n    pub settings: Settings,\n}\npub struct Settings {\n    pub a: u64,\n    pub b: u64,\n}\n');
    // A hand reader's message, as `Visitor::expecting` writes it, in a file read after the struct's own.
    fs.writeFileSync(path.join(src, 'engine', 'router_json.rs'), 'fn expecting(f: &mut F) -> R {\n    f.write_str("struct Settings")\n}\nfn visit() -> u64 {\n    let c = \'"\';\n    0\n}\n');
    const seen = figures(src);
    assert.equal(seen.fieldsReachableFromEngine, 3, 'Engine.settings, Settings.a, Settings.b');
    assert.equal(seen.fieldsOtherFilesMayWrite, 3);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
});
