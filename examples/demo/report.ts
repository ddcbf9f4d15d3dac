import type { PhaseSummary } from './analysis.js';

/** One line of the comparison: a metric for each assigner and their ratio (ours ÷ round-robin). */
export interface ComparisonRow {
  metric: string;
  roundRobin: string;
  loadAware: string;
  ratio: string;
}

interface Metric {
  name: string;
  value: (s: PhaseSummary) => number | null;
  digits: number;
  /** What a null means for this metric. */
  none: string;
}

const METRICS: Metric[] = [
  { name: 'total throughput (msg/s)', value: (s) => s.throughputPerSec, digits: 0, none: '-' },
  { name: 'max instance load (msg/s per member)', value: (s) => s.maxInstanceLoad, digits: 0, none: '-' },
  { name: 'mean instance load (msg/s per member)', value: (s) => s.meanInstanceLoad, digits: 0, none: '-' },
  { name: 'busiest instance / ideal', value: (s) => s.maxLoadRatio, digits: 2, none: '-' },
  { name: 'p99 lag after the move (messages)', value: (s) => s.p99LagMessages, digits: 0, none: '-' },
  { name: 'mean lag (messages)', value: (s) => s.meanLagMessages, digits: 0, none: '-' },
  { name: 'max lag (messages)', value: (s) => s.maxLagMessages, digits: 0, none: '-' },
  { name: 'time to drain the backlog (s)', value: (s) => s.drainSeconds, digits: 1, none: 'never' },
  { name: 'time to converge after the move (s)', value: (s) => s.convergeSeconds, digits: 1, none: 'never' },
  { name: 'rebalances after the group formed', value: (s) => s.rebalances, digits: 0, none: '-' },
  { name: 'partitions moved per rebalance', value: (s) => s.movesPerRebalance, digits: 1, none: '-' },
  { name: 'assignor compute per rebalance (ms, mean)', value: (s) => s.assignMsMean, digits: 2, none: '-' },
  { name: 'assignor compute per rebalance (ms, max)', value: (s) => s.assignMsMax, digits: 2, none: '-' },
];

function format(value: number | null, metric: Metric): string {
  return value === null ? metric.none : value.toFixed(metric.digits);
}

/** The side-by-side comparison; a missing phase shows as "-". */
export function compare(roundRobin: PhaseSummary | undefined, loadAware: PhaseSummary | undefined): ComparisonRow[] {
  return METRICS.map((m) => {
    const rr = roundRobin === undefined ? null : m.value(roundRobin);
    const la = loadAware === undefined ? null : m.value(loadAware);
    const ratio = rr === null || la === null || rr === 0 ? '-' : (la / rr).toFixed(2);
    return {
      metric: m.name,
      roundRobin: roundRobin === undefined ? '-' : format(rr, m),
      loadAware: loadAware === undefined ? '-' : format(la, m),
      ratio,
    };
  });
}

const HEADER: ComparisonRow = {
  metric: 'metric',
  roundRobin: 'round-robin',
  loadAware: 'load-aware',
  ratio: 'ratio (ours/rr)',
};

/** The comparison as an aligned text table for the terminal. */
export function textTable(rows: readonly ComparisonRow[]): string {
  const all = [HEADER, ...rows];
  const w = {
    metric: Math.max(...all.map((r) => r.metric.length)),
    roundRobin: Math.max(...all.map((r) => r.roundRobin.length)),
    loadAware: Math.max(...all.map((r) => r.loadAware.length)),
    ratio: Math.max(...all.map((r) => r.ratio.length)),
  };
  const line = (r: ComparisonRow): string =>
    `${r.metric.padEnd(w.metric)}  ${r.roundRobin.padStart(w.roundRobin)}  ${r.loadAware.padStart(w.loadAware)}  ${r.ratio.padStart(w.ratio)}`;
  const rule = '-'.repeat(w.metric + w.roundRobin + w.loadAware + w.ratio + 6);
  return [line(HEADER), rule, ...rows.map(line)].join('\n');
}

/** The comparison as a Markdown table (BENCHMARKS.md). */
export function markdownTable(rows: readonly ComparisonRow[]): string {
  const line = (r: ComparisonRow): string => `| ${r.metric} | ${r.roundRobin} | ${r.loadAware} | ${r.ratio} |`;
  return [line(HEADER), '| --- | ---: | ---: | ---: |', ...rows.map(line)].join('\n');
}
