// OAuth scope strings (space-separated, RFC 6749 §3.3) as sets: a step-up asks for
// the union of what was granted and what the server now requires.

export function scopeSet(...scopes: (string | readonly string[] | undefined | null)[]): Set<string> {
  const out = new Set<string>();
  for (const s of scopes) {
    if (s == null) continue;
    for (const one of typeof s === 'string' ? s.split(/\s+/) : s) if (one) out.add(one);
  }
  return out;
}

/** The scope parameter for a set (undefined when empty: the server's advertised scopes apply). */
export function scopeParam(set: Set<string>): string | undefined {
  return set.size > 0 ? [...set].join(' ') : undefined;
}

/** Whether `granted` (a scope string) includes every scope of `wanted`. */
export function covers(granted: string | undefined, wanted: Set<string>): boolean {
  const have = scopeSet(granted);
  return [...wanted].every((s) => have.has(s));
}
