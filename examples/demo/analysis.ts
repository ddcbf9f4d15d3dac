/**
 * Turns a phase's timeline into the numbers the demo and the benchmark report. Definitions (also
 * in BENCHMARKS.md):
 *
 * - instance load: produce rate of the partitions an instance holds ÷ its members (events/s per
 *   member), averaged over the samples where every partition is held; "max" is the busiest
 *   instance at each sample, "mean" the average over instances;
 * - load ratio: the busiest instance's load ÷ the ideal (total rate ÷ total members);
 * - p99 lag: 99th percentile of the group's total lag over the samples after the hotspot move
 *   (the backlog is gone by then unless the placement cannot drain it); mean lag: over all samples;
 * - drain time: from the start of the consumers until the total lag is below one second of
 *   traffic on three samples in a row;
 * - convergence: from the hotspot move until the load ratio stays ≤ 1.1 for the rest of the phase;
 * - rebalances: generations after the first one in which every member held its share; partitions
 *   moved: partitions whose member changed between consecutive complete generations.
 */
import type { GenerationRecord, PhaseRecord, Sample } from './record.js';

/** Ratio at or under which the group counts as balanced (the trigger's threshold). */
export const BALANCED_RATIO = 1.1;

/** The numbers of one phase. `null` times mean "never" within the phase. */
export interface PhaseSummary {
  assigner: string;
  throughputPerSec: number;
  consumedMessages: number;
  producedMessages: number;
  maxInstanceLoad: number;
  meanInstanceLoad: number;
  maxLoadRatio: number;
  p99LagMessages: number;
  meanLagMessages: number;
  maxLagMessages: number;
  drainSeconds: number | null;
  convergeSeconds: number | null;
  rebalances: number;
  generations: number;
  movesPerRebalance: number | null;
  assignmentsTimed: number;
  assignMsMean: number | null;
  assignMsMax: number | null;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Instance loads (events/s per member) at one sample. */
function loads(record: PhaseRecord, sample: Sample): number[] {
  return record.instances.map(
    ({ instanceId, members }) => (sample.instances[instanceId]?.offeredPerSec ?? 0) / members,
  );
}

/** The busiest instance's load ÷ an even split per member, at one sample. */
export function loadRatio(record: PhaseRecord, sample: Sample): number {
  const totalMembers = record.instances.reduce((n, i) => n + i.members, 0);
  const ideal = sample.producedPerSec / totalMembers;
  return ideal > 0 ? Math.max(...loads(record, sample)) / ideal : 1;
}

/** True when every member of the phase reported the generation and together they hold every partition. */
export function isComplete(record: Pick<PhaseRecord, 'instances' | 'partitions'>, g: GenerationRecord): boolean {
  const totalMembers = record.instances.reduce((n, i) => n + i.members, 0);
  const held = new Set(g.members.flatMap((m) => m.partitions)).size;
  return g.members.length === totalMembers && held === record.partitions;
}

function owners(g: GenerationRecord): Map<number, string> {
  return new Map(g.members.flatMap((m) => m.partitions.map((p) => [p, m.memberId] as const)));
}

/** Partitions moved at each rebalance after the group first formed completely. */
export function rebalanceMoves(record: PhaseRecord): { rebalances: number; moves: number[] } {
  const formed = record.generations.findIndex((g) => isComplete(record, g));
  if (formed < 0) return { rebalances: 0, moves: [] };
  const later = record.generations.slice(formed + 1);
  const moves: number[] = [];
  let previous = record.generations[formed]!;
  for (const g of later) {
    if (!isComplete(record, g)) continue;
    const before = owners(previous);
    let moved = 0;
    for (const [p, member] of owners(g)) if (before.get(p) !== member) moved++;
    moves.push(moved);
    previous = g;
  }
  return { rebalances: later.length, moves };
}

/** Computes the summary of one phase. */
export function summarize(record: PhaseRecord): PhaseSummary {
  const { samples } = record;
  const held = samples.filter((s) => s.assignedPartitions === record.partitions);
  const threshold = record.eventsPerSecond;
  let drainIndex = -1;
  for (let i = 0; i < samples.length && drainIndex < 0; i++) {
    const run = samples.slice(i, i + 3);
    if (run.every((s) => s.totalLag <= threshold)) drainIndex = i;
  }
  const lagsAfterMove = samples.filter((s) => s.t >= record.moveAtSeconds).map((s) => s.totalLag);

  let convergeSeconds: number | null = null;
  const afterMove = held.filter((s) => s.t >= record.moveAtSeconds);
  for (let i = afterMove.length - 1; i >= 0; i--) {
    if (loadRatio(record, afterMove[i]!) > BALANCED_RATIO) break;
    convergeSeconds = afterMove[i]!.t - record.moveAtSeconds;
  }
  const { rebalances, moves } = rebalanceMoves(record);
  const durations = record.assignments.map((a) => a.durationMs);
  return {
    assigner: record.assigner,
    throughputPerSec: record.consumedMessages / record.durationSeconds,
    consumedMessages: record.consumedMessages,
    producedMessages: record.producedMessages,
    maxInstanceLoad: mean(held.map((s) => Math.max(...loads(record, s)))),
    meanInstanceLoad: mean(held.map((s) => mean(loads(record, s)))),
    maxLoadRatio: mean(held.map((s) => loadRatio(record, s))),
    p99LagMessages: percentile(lagsAfterMove, 99),
    meanLagMessages: mean(samples.map((s) => s.totalLag)),
    maxLagMessages: Math.max(0, ...samples.map((s) => s.totalLag)),
    drainSeconds: drainIndex < 0 ? null : samples[drainIndex]!.t,
    convergeSeconds,
    rebalances,
    generations: record.generations.length,
    movesPerRebalance: moves.length === 0 ? null : mean(moves),
    assignmentsTimed: durations.length,
    assignMsMean: durations.length === 0 ? null : mean(durations),
    assignMsMax: durations.length === 0 ? null : Math.max(...durations),
  };
}
