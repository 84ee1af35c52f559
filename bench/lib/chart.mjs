// Hand-written SVG chart of the startup and growth results (no dependency):
// horizontal bars on a log time axis, median with a min–max whisker, labelled.
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (ms) => (ms >= 1000 ? `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return { median: s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2, min: s[0], max: s[s.length - 1] };
};

export function renderChart(results) {
  const groups = [];
  const st = results.startup;
  groups.push({
    title: `Startup to "all tools listed", six real MCP servers (median, min–max of ${st.eager.length})`,
    bars: [
      { label: 'eager (SDK client)', kind: 'eager', ...stats(st.eager.map((x) => x.ms)) },
      { label: 'lazy cold', kind: 'cold', ...stats(st.cold.map((x) => x.ms)) },
      { label: 'lazy warm', kind: 'warm', ...stats(st.warm.map((x) => x.ms)) },
      { label: 'lazy warm, fresh process', kind: 'fresh', ...stats(st.warmFreshProcess.map((x) => x.ms)) },
    ],
  });
  for (const g of results.growth ?? []) {
    const bars = [];
    if (g.eager.length) bars.push({ label: `eager, ${g.n} servers`, kind: 'eager', ...stats(g.eager.map((x) => x.ms)) });
    bars.push({ label: `lazy warm, ${g.n} servers`, kind: 'warm', ...stats(g.lazyWarm.map((x) => x.ms)) });
    groups.push({ title: `Growth: ${g.n} tiny fixture servers`, bars });
  }

  const all = groups.flatMap((g) => g.bars);
  const lo = 10 ** Math.floor(Math.log10(Math.max(0.1, Math.min(...all.map((b) => b.min)))));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all.map((b) => b.max))));
  const left = 170;
  const width = 760;
  const plotW = width - left - 90;
  const x = (ms) => left + (plotW * (Math.log10(Math.max(ms, lo)) - Math.log10(lo))) / (Math.log10(hi) - Math.log10(lo));
  const colors = { eager: '#c0504d', cold: '#e3a33b', warm: '#4f81bd', fresh: '#9bb7dc' };
  const barH = 18;
  const out = [];
  let y = 40;
  for (const g of groups) {
    out.push(`<text x="10" y="${y}" font-weight="bold">${esc(g.title)}</text>`);
    y += 10;
    for (const b of g.bars) {
      const y0 = y;
      out.push(`<text x="${left - 8}" y="${y0 + 13}" text-anchor="end">${esc(b.label)}</text>`);
      out.push(`<rect x="${left}" y="${y0}" width="${Math.max(1, x(b.median) - left).toFixed(1)}" height="${barH}" fill="${colors[b.kind]}"/>`);
      out.push(`<line x1="${x(b.min).toFixed(1)}" x2="${x(b.max).toFixed(1)}" y1="${y0 + barH / 2}" y2="${y0 + barH / 2}" stroke="#222" stroke-width="1.5"/>`);
      for (const v of [b.min, b.max]) out.push(`<line x1="${x(v).toFixed(1)}" x2="${x(v).toFixed(1)}" y1="${y0 + 4}" y2="${y0 + barH - 4}" stroke="#222" stroke-width="1.5"/>`);
      out.push(`<text x="${(Math.max(x(b.max), x(b.median)) + 6).toFixed(1)}" y="${y0 + 13}">${esc(fmt(b.median))}</text>`);
      y += barH + 6;
    }
    y += 22;
  }
  const axisY = y - 10;
  const grid = [];
  for (let v = lo; v <= hi; v *= 10) {
    grid.push(`<line x1="${x(v).toFixed(1)}" x2="${x(v).toFixed(1)}" y1="25" y2="${axisY}" stroke="#ddd"/>`);
    grid.push(`<text x="${x(v).toFixed(1)}" y="${axisY + 15}" text-anchor="middle" fill="#555">${esc(fmt(v))}</text>`);
  }
  const height = axisY + 45;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="10" y="18" font-size="14" font-weight="bold">Lazy MCP vs eager MCP startup — ${esc(results.date.slice(0, 10))} (log time axis; shared, noisy 2-core machine)</text>
${grid.join('\n')}
${out.join('\n')}
<text x="${left}" y="${height - 8}" fill="#555">wall time, log scale · bar = median, whisker = min–max</text>
</svg>
`;
}
