// Summaries of V8 .cpuprofile files (node --cpu-prof, node:inspector): self and
// inclusive time per function, summed over the files and divided by their count.
import fs from 'node:fs';
import path from 'node:path';

const keyOf = ({ functionName, url, lineNumber }) => `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''}`.trim();

/** `{ busyMs, self: [[key, ms]], inclusive: [[key, ms]] }` per profile on average, idle excluded. */
export function summarizeProfiles(files) {
  const self = new Map();
  const inclusive = new Map();
  let busy = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    profile.samples.forEach((id, i) => {
      const dt = profile.timeDeltas[i] ?? 0;
      const key = keyOf(nodes.get(id).callFrame);
      if (key === '(idle)') return;
      busy += dt;
      self.set(key, (self.get(key) ?? 0) + dt);
      const seen = new Set();
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const k = keyOf(nodes.get(cur).callFrame);
        if (seen.has(k)) continue;
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
      }
    });
  }
  const per = (m) => [...m].map(([k, us]) => [k, us / 1000 / files.length]).sort((a, b) => b[1] - a[1]);
  return { busyMs: busy / 1000 / files.length, self: per(self), inclusive: per(inclusive) };
}
