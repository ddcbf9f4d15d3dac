/**
 * The rebalance benchmark's tables: per tuning, one row per (cause, assigner) with the median
 * and range over the repeats of each member's longest gap, the group's, the paused
 * member-seconds and the rebalance count (the format, extended); and one line per run
 * with what explains it (heartbeat phases at the cause, joins, window length).
 */
import { spread, type Spread } from './analysis.js';
import { CAUSES, MEASURED, type Cause, type RebalanceOptions } from './options.js';
import type { AssignerKind } from './protocol.js';
import type { RunResult } from './result.js';
import { describeTuning, type TuningName } from './tuning.js';

/** What each cause is called in the tables. */
export function causeLabel(cause: Cause, o: Pick<RebalanceOptions, 'partitions' | 'addedPartitions'>): string {
  switch (cause) {
    case 'join':
      return 'a fourth member joins';
    case 'leave':
      return 'a fourth member leaves (clean disconnect)';
    case 'fire':
      return 'proactive fire from a';
    case 'coordinator':
      return 'group coordinator moves (its broker stops)';
    case 'metadata':
      return `partitions added (${String(o.partitions)} → ${String(o.partitions + o.addedPartitions)})`;
  }
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

/** `1.06 s (0.95–2.10)`: median and range of seconds; the range is left out for one run. */
export function secondsCell(s: Spread | undefined, unit = ' s'): string {
  if (s === undefined) return 'n/a';
  const median = `${seconds(s.median * 1000)}${unit}`;
  return s.n === 1 || s.min === s.max ? median : `${median} (${seconds(s.min * 1000)}–${seconds(s.max * 1000)})`;
}

/** `1 (1–2)`: median and range of counts. */
export function countCell(s: Spread | undefined): string {
  if (s === undefined) return 'n/a';
  const median = Number.isInteger(s.median) ? String(s.median) : s.median.toFixed(1);
  return s.n === 1 || s.min === s.max ? median : `${median} (${String(s.min)}–${String(s.max)})`;
}

function noteFor(cause: Cause, runs: readonly RunResult[], o: RebalanceOptions): string {
  const notes: string[] = [];
  if (cause === 'metadata') {
    const consumed = runs.flatMap((r) =>
      typeof r.addedFirstConsumedAfterMs === 'number' ? [r.addedFirstConsumedAfterMs] : [],
    );
    notes.push(
      consumed.length === 0
        ? `added partitions not consumed within ${String(o.metadataWaitMs / 1000)} s in any run`
        : `added partitions first consumed after ${secondsCell(spread(consumed.map((c) => c / 1000)))} in ${String(consumed.length)} of ${String(runs.length)} runs`,
    );
  }
  if (cause === 'coordinator') {
    const leaders = runs.reduce((sum, r) => sum + (r.coordinator?.leadersOnStoppedNode ?? 0), 0);
    if (leaders > 0) notes.push(`${String(leaders)} topic leaders were on the stopped broker`);
  }
  const limited = runs.filter((r) => r.endReason === 'limit').length;
  if (limited > 0) notes.push(`${String(limited)} of ${String(runs.length)} windows hit the time limit`);
  const unsettled = runs.filter((r) => !r.settled).length;
  if (unsettled > 0) notes.push(`${String(unsettled)} not settled before the cause`);
  const noise = runs.reduce((sum, r) => sum + r.members.reduce((s, m) => s + m.baselineGapsOverThreshold, 0), 0);
  if (noise > 0) notes.push(`${String(noise)} baseline gaps > ${String(o.thresholdMs)} ms`);
  return notes.join('; ');
}

/** The summary table of one tuning: the columns plus group, paused member-seconds, rebalances. */
export function summaryTable(runs: readonly RunResult[], tuning: TuningName, o: RebalanceOptions): string {
  const mine = runs.filter((r) => r.tuning === tuning);
  const withHistogram = mine.some((r) => r.pauseHistogram !== undefined);
  const header = [
    'cause',
    'member a',
    'member b',
    'member c',
    'group',
    'paused member-s',
    'rebalances',
    ...(withHistogram ? ['pause histogram Σ (count)'] : []),
    'runs',
    'notes',
  ];
  const rows: string[][] = [];
  for (const cause of CAUSES.filter((c) => o.causes.includes(c))) {
    for (const assigner of o.assigners) {
      const label = `${causeLabel(cause, o)}, ${assigner}`;
      const cell = mine.filter((r) => r.cause === cause && r.assigner === assigner);
      if (cause === 'fire' && assigner === 'round-robin') {
        rows.push([
          label,
          'n/a',
          'n/a',
          'n/a',
          'n/a',
          'n/a',
          'n/a',
          ...(withHistogram ? ['n/a'] : []),
          '0',
          'no proactive fire without load-aware',
        ]);
        continue;
      }
      if (cell.length === 0) continue;
      const member = (id: string): string =>
        secondsCell(
          spread(cell.flatMap((r) => r.members.filter((m) => m.instanceId === id).map((m) => m.longestGapMs / 1000))),
        );
      const histograms = cell.flatMap((r) => (r.pauseHistogram === undefined ? [] : [r.pauseHistogram]));
      rows.push([
        label,
        ...MEASURED.map(member),
        secondsCell(spread(cell.map((r) => r.groupLongestGapMs / 1000))),
        secondsCell(spread(cell.map((r) => r.pausedMemberSeconds)), ''),
        countCell(spread(cell.flatMap((r) => (r.rebalances === undefined ? [] : [r.rebalances])))),
        ...(withHistogram
          ? [
              histograms.length === 0
                ? 'n/a'
                : `${secondsCell(spread(histograms.map((h) => h.sumSeconds)))} (${countCell(spread(histograms.map((h) => h.count)))})`,
            ]
          : []),
        String(cell.length),
        noteFor(cause, cell, o),
      ]);
    }
  }
  return markdownTable(header, rows);
}

/** One row per run: what the medians hide. */
export function runsTable(runs: readonly RunResult[], thresholdMs: number): string {
  const header = [
    'tuning',
    'cause',
    'assigner',
    '#',
    'a',
    'b',
    'c',
    'group',
    'paused',
    'baseline paused',
    'rebalances',
    'joins a/b/c',
    'heartbeat due after cause a/b/c',
    'window',
    'notes',
  ];
  const rows = runs.map((r) => {
    const gap = (id: string): string => seconds(r.members.find((m) => m.instanceId === id)?.longestGapMs ?? NaN);
    const due = r.phases.map((p) => (p.dueInMs === undefined ? '-' : seconds(p.dueInMs))).join(' / ');
    const notes = [...r.notes];
    if (r.addedFirstConsumedAfterMs !== undefined) {
      notes.push(
        r.addedFirstConsumedAfterMs === null
          ? 'added partitions not consumed'
          : `added consumed after ${seconds(r.addedFirstConsumedAfterMs)} s`,
      );
    }
    if (r.coordinator !== undefined) {
      notes.push(`coordinator ${String(r.coordinator.stoppedNode)} → ${String(r.coordinator.newCoordinator ?? '?')}`);
    }
    if (r.pauseHistogram !== undefined)
      notes.push(`histogram ${String(r.pauseHistogram.count)} obs, Σ ${r.pauseHistogram.sumSeconds.toFixed(2)} s`);
    if (r.producer.failedSends > 0) notes.push(`${String(r.producer.failedSends)} failed sends`);
    if (r.producer.longestGapMs > thresholdMs) notes.push(`producer stalled ${seconds(r.producer.longestGapMs)} s`);
    return [
      r.tuning,
      r.cause,
      r.assigner,
      String(r.repeat),
      ...MEASURED.map(gap),
      seconds(r.groupLongestGapMs),
      r.pausedMemberSeconds.toFixed(2),
      (r.members.reduce((sum, m) => sum + m.baselinePausedMs, 0) / 1000).toFixed(2),
      r.rebalances === undefined ? '?' : String(r.rebalances),
      MEASURED.map((id) => String(r.joinsAfterCause[id] ?? 0)).join('/'),
      due,
      `${seconds(r.endAt - r.causeAt)} s${r.endReason === 'limit' ? ' (limit)' : ''}`,
      notes.join('; ').replace(/\|/g, '/').slice(0, 200),
    ];
  });
  return markdownTable(header, rows);
}

/** Every tuning's heading and summary table. */
export function summarySections(runs: readonly RunResult[], o: RebalanceOptions): string {
  return o.tunings.map((t) => `### ${describeTuning(t)}\n\n${summaryTable(runs, t, o)}`).join('\n\n');
}

function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The assigners compared, for headings. */
export function assignersText(assigners: readonly AssignerKind[]): string {
  return assigners.join(' vs ');
}
