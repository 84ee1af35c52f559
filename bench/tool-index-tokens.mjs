// `cargo run --release --example tool_index_bench -- --dump DIR && node bench/tool-index-tokens.mjs DIR`
// Counts the texts the tool index benchmark wrote — every tool definition
// (`full`) vs the compact index + meta-tools (`index`, with one-line summaries
// or names only) — with a real tokenizer, o200k_base (GPT-4o class), next to
// the core's estimate_tokens, so the estimate's error is visible.
import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/tool-index-tokens.mjs DIR   (DIR written by tool_index_bench --dump DIR)');
  process.exit(2);
}
const count = (name) => countTokens(fs.readFileSync(path.join(dir, name), 'utf8'));
const estimates = JSON.parse(fs.readFileSync(path.join(dir, 'estimates.json'), 'utf8'));
const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;

console.log('| tools | full, o200k | index + meta-tools: summaries, o200k | names, o200k | estimate_tokens (full / summaries / names) |');
console.log('|---|---:|---:|---:|---|');
for (const [label, key] of [['six real servers (51)', 'real'], ['six real + forge 200 (251)', 'all']]) {
  const full = count(`${key}-full.txt`);
  const summaries = count(`${key}-summaries.txt`);
  const names = count(`${key}-names.txt`);
  const e = estimates[key];
  console.log(
    `| ${label} | ${full} | ${summaries} (${pct(summaries, full)}) | ${names} (${pct(names, full)}) | ${e.full} / ${e.summaries} / ${e.names} |`,
  );
}

// What the engine's aggregate endpoint lists to a new client at session start
// (a warm engine, nothing spawned), per tool exposure mode.
const lines = (name) => fs.readFileSync(path.join(dir, name), 'utf8').split('\n').filter(Boolean).length;
console.log('');
console.log('| tools | engine tools/list, full: tools / o200k | index: tools / o200k | auto (default settings): tools / o200k |');
console.log('|---|---:|---:|---:|');
for (const [label, key] of [['six real servers (51)', 'real'], ['six real + forge 200 (251)', 'all']]) {
  const cell = (mode) => {
    const file = `${key}-engine-${mode}.txt`;
    return { tools: lines(file), tokens: count(file) };
  };
  const [full, index, auto] = ['full', 'index', 'auto'].map(cell);
  const show = (c) => `${c.tools} / ${c.tokens} (${pct(c.tokens, full.tokens)})`;
  console.log(`| ${label} | ${full.tools} / ${full.tokens} | ${show(index)} | ${show(auto)} |`);
}
