// Counts in words for the few lines the host writes itself (view rows, quick
// picks, CLI lines): "1 tool", "2 tools". The core words its own texts
// (crates/lazy-mcp-core/src/wording.rs); this is the same rule.

/** `n` and the noun, singular for exactly one; `plural` when it is not noun + "s". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
