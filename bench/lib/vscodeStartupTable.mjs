// Markdown tables of `npm run bench:vscode`: one column per configuration (median and range
// over its launches), ratio columns for the timed rows.
import { summary } from './stats.mjs';

const fmt = (s) => (s ? `${Math.round(s.median)} ms (${Math.round(s.min)}–${Math.round(s.max)})` : '—');
const ratio = (a, b) => (a && b ? `${(a.median / b.median).toFixed(2)}×` : '—');

function stat(runs, key) {
  const xs = runs.map((m) => m[key]).filter((x) => typeof x === 'number');
  return xs.length ? summary(xs) : null;
}

function range(runs, key) {
  const xs = runs.map((m) => m[key]).filter((x) => typeof x === 'number');
  if (!xs.length) return '—';
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

/**
 * columns: [{ config, label, kind: 'lazy' | 'started' | 'idle' }], ratios: [[numerator, denominator]]
 * (configs); byConfig: config → per-launch metrics (launches with an error are left out).
 */
export function startupTable({ columns, ratios, byConfig }) {
  const runsOf = (c) => (byConfig[c.config] ?? []).filter((m) => !m.error);
  const timed = (label, key) => [
    label,
    ...columns.map((c) => fmt(stat(runsOf(c), key))),
    ...ratios.map(([a, b]) => ratio(stat(runsOf({ config: a }), key), stat(runsOf({ config: b }), key))),
  ];
  const plain = (label, cell) => [label, ...columns.map(cell), ...ratios.map(() => '')];
  const rows = [
    timed('window opened → every expected tool in `vscode.lm.tools`', 'toolsFromOpen'),
    timed('extension host start → every expected tool in `vscode.lm.tools`', 'toolsFromHost'),
    plain('window opened → all 3 servers running, tools live', (c) => (c.kind === 'started' ? fmt(stat(runsOf(c), 'liveFromOpen')) : 'none started')),
    plain('extension host start → Lazy MCP active', (c) => (c.kind === 'lazy' ? fmt(stat(runsOf(c), 'activeFromHost')) : '—')),
    plain('tools already there when the probe started (the time is then an upper bound)', (c) => `${runsOf(c).filter((m) => m.presentAtRun).length} of ${runsOf(c).length}`),
    plain('server processes spawned: when the tools were there / 3 s later', (c) => `${range(runsOf(c), 'spawnedAtTools')} / ${range(runsOf(c), 'spawned')}`),
    plain('server processes left after VS Code stopped', (c) => range(runsOf(c), 'leftover')),
  ];
  const head = ['', ...columns.map((c) => c.label), ...ratios.map(([a, b]) => `${a} / ${b}`)];
  const failed = columns.flatMap((c) => (byConfig[c.config] ?? []).filter((m) => m.error));
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    ...(failed.length ? ['', `Launches with an error (left out above): ${failed.map((m) => `${m.name}: ${m.error}`).join('; ')}`] : []),
  ].join('\n');
}
