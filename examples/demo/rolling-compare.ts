/**
 * Side-by-side tables of several `pnpm bench:rolling` runs, from their result.json files, for a
 * results page (BENCHMARKS.md, "Rolling restart"):
 *
 *   node examples/.build/demo/rolling-compare.js LABEL=out/a/result.json LABEL=out/b/result.json ...
 *
 * Prints, as markdown: for each pair of runs in the order given (e.g. dynamic then static of one
 * Kafka version), a per-step table whose cells read "first / second"; then the totals and the
 * static-membership targets of every run. Every number is recomputed with rolling-analysis.ts
 * from the recorded run, so it matches what the benchmark printed.
 */
import { readFileSync } from 'node:fs';
import {
  summarizeRolling,
  targetsTable,
  totalsTable,
  type RollingRun,
  type RollingSummary,
  type StepSummary,
} from './rolling-analysis.js';

interface Loaded {
  label: string;
  summary: RollingSummary;
  kafka: string;
  load: string;
}

function load(arg: string): Loaded[] {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new Error(`${arg}: expected LABEL=path/to/result.json`);
  const label = arg.slice(0, eq);
  const result = JSON.parse(readFileSync(arg.slice(eq + 1), 'utf8')) as {
    kafka: { version: string };
    machine: { loadBefore: string; loadAfter: string };
    runs: Array<{ run: RollingRun }>;
  };
  return result.runs.map(({ run }, i) => {
    const summary = summarizeRolling(run);
    // One label per file; a file with several runs numbers them.
    const name = result.runs.length === 1 ? label : `${label} ${String(i + 1)}`;
    summary.totals.label = name;
    return {
      label: name,
      summary,
      kafka: result.kafka.version,
      load: `${result.machine.loadBefore} → ${result.machine.loadAfter}`,
    };
  });
}

function longestOther(s: StepSummary): string {
  const entries = Object.entries(s.processing?.longest ?? {});
  if (entries.length === 0) return '-';
  const [id, seconds] = entries.reduce((a, b) => (b[1] > a[1] ? b : a));
  return `${seconds.toFixed(1)} (${id.replace(/^instance-/, '')})`;
}

const COLUMNS: Array<{ name: string; cell: (s: StepSummary) => string }> = [
  { name: 'rebalances', cell: (s) => String(s.generations.length) },
  { name: 'static rejoins', cell: (s) => String(s.staticRejoins) },
  { name: 'moved', cell: (s) => String(s.moved) },
  { name: 'longest without processing, other instances (s)', cell: longestOther },
  {
    name: 'restarted: stop → ready (s)',
    cell: (s) => (s.processing?.downtime == null ? '-' : s.processing.downtime.toFixed(1)),
  },
  {
    name: 'restarted: ready → first message (s)',
    cell: (s) => (s.processing?.resume == null ? '-' : s.processing.resume.toFixed(2)),
  },
  {
    name: 'paused member-s',
    cell: (s) => (s.processing === undefined ? '-' : s.processing.pausedMemberSeconds.toFixed(1)),
  },
  { name: 'peak lag', cell: (s) => String(Math.round(s.peakLag)) },
  { name: 'imbalance-s', cell: (s) => s.imbalanceSeconds.toFixed(1) },
  { name: 'duplicates', cell: (s) => String(s.processing?.duplicates ?? '-') },
];

/** Per-step table of two runs, cells "a / b". */
function pairTable(a: RollingSummary, b: RollingSummary): string {
  const header = `| step | restart | ${COLUMNS.map((c) => c.name).join(' | ')} |`;
  const rule = `| ---: | --- | ${COLUMNS.map(() => '---:').join(' | ')} |`;
  const rows = a.steps.map((sa, i) => {
    const sb = b.steps[i];
    const cells = COLUMNS.map((c) => `${c.cell(sa)} / ${sb === undefined ? '-' : c.cell(sb)}`);
    return `| ${String(sa.index)} | ${(sa.instanceId ?? '-').replace(/^instance-/, '')} | ${cells.join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}

function main(argv: readonly string[]): void {
  if (argv.length === 0) {
    process.stderr.write('usage: rolling-compare.js LABEL=path/result.json [LABEL=path/result.json ...]\n');
    process.exit(2);
  }
  const runs = argv.flatMap(load);
  const out: string[] = [];
  for (let i = 0; i + 1 < runs.length; i += 2) {
    const [a, b] = [runs[i]!, runs[i + 1]!];
    out.push(`Per step, ${a.label} / ${b.label} (Kafka ${a.kafka}):\n\n${pairTable(a.summary, b.summary)}`);
  }
  const totals = runs.map((r) => r.summary.totals);
  out.push(`Totals:\n\n${totalsTable(totals)}`);
  out.push(`Targets:\n\n${targetsTable(totals)}`);
  out.push(`Load average (1/5/15 min) before → after each run: ${runs.map((r) => `${r.label}: ${r.load}`).join('; ')}`);
  process.stdout.write(`${out.join('\n\n')}\n`);
}

main(process.argv.slice(2));
