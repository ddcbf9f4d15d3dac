/**
 * The numbers of the rolling-restart benchmark (`pnpm bench:rolling`), computed from what a run
 * recorded: pure functions of plain data, so they are unit-tested without a broker. Definitions
 * (also in BENCHMARKS.md, "Rolling restart"):
 *
 * - rebalances (of a step): generations it went through, from the one after the last generation
 *   before the step to the last one in it; ids go up by one per rebalance, so a generation no
 *   member reported (superseded at once, e.g. when the two members of a process leave one after
 *   the other) still counts.
 * - complete generation: one whose members' reported assignments hold every partition of the
 *   topic exactly once; a generation some member never reported is skipped, and the next
 *   complete one is compared with the last complete one.
 * - moved (per rebalance): partitions whose owning member differs between two consecutive
 *   complete generations. A restarted process has new member ids, so its partitions count as
 *   moved when it leaves and again when it comes back.
 * - necessary (per rebalance): the fewest moves any assigner needs to go from the previous
 *   assignment to one with the same per-member partition counts as the new one:
 *   Σ over members of the new generation of max(0, new count − count it held before), a member
 *   that just joined holding 0. It includes every partition whose owner left (their owners are
 *   gone, so they land on members whose count grows) and is reached by letting every member
 *   keep min(old, new count) of its own partitions. It is a lower bound for the counts chosen:
 *   moves that only reshape the load at equal counts (a trigger's rebalance) show as excess.
 * - weighted necessary (per rebalance, when the run knows the produced per-partition rates):
 *   the fewest partitions any assignment must move from the previous generation to reach a
 *   busiest instance load ÷ members no worse than the new generation's, by those rates
 *   (rolling-necessary.ts; exact). Partitions of departed owners count; a partition whose owner
 *   stayed may stay on its instance for free. "By weight": the least msg/s any such assignment
 *   moves, beside the msg/s the new generation moved.
 * - busiest ÷ ideal (at one sample): the busiest running instance's offered load (produce rate,
 *   measured from end offsets, of the partitions it holds ÷ its members) over the ideal (total
 *   rate ÷ members of the running instances). An instance runs from the moment its process is
 *   ready (its members joined the group) until its stop is requested. Samples where some partition is held by
 *   no one or by two instances (mid-rebalance) have no ratio; their cost shows in the lag.
 * - imbalance-seconds: Σ max(0, ratio − 1) × Δt over the samples of a window that have a ratio,
 *   Δt being the time since the previous sample (at most {@link MAX_SAMPLE_GAP_SECONDS}).
 * - owner: a member is its group instance id when it has one (static membership: a restarted
 *   process's member is the same owner), else its member id.
 * - static rejoins: static members that took their place back in the current generation (the
 *   broker swapped their member id without a rebalance).
 * - pause (with the processing reports, {@link ProcessingRecord}): a stretch longer than
 *   {@link PAUSE_THRESHOLD_MS} without a finished message, of one member or of a whole process;
 *   a member that has not processed yet is pausing from its process's `ready` line on.
 * - longest stretch without processing (of an instance not restarted in the step): the longest
 *   stretch between two messages its process finished, or pause, within the step window.
 * - resume (of the restarted instance): its new process's first finished message − its `ready`.
 * - paused member-seconds: Σ over members of the time of their pauses inside the step window,
 *   leaving out the restarted instance's own downtime (from its stop request to its new
 *   process's `ready`): the pod is gone then, its members are not paused but absent.
 * - duplicates / lost: offsets processed more than once / never processed, over the run once
 *   the producer stopped and the group drained (bounded); duplicates are dated by the stats
 *   line that reported them.
 */
import type { AssignmentRecord, GenerationRecord, PhaseRecord, Sample } from './record.js';
import { fewestMoves } from './rolling-necessary.js';
import type { DeliveryRecord, PauseRecord, ProcessingRecord } from './rolling-processing.js';

/** A stretch without a finished message longer than this is a pause (per member, or per process). */
export const PAUSE_THRESHOLD_MS = 500;

/** A longer gap between samples (a skipped admin request) counts as this long. */
export const MAX_SAMPLE_GAP_SECONDS = 5;
/** "After the step": busiest ÷ ideal averaged over the samples of this many seconds before it ended. */
export const AFTER_WINDOW_SECONDS = 5;

/** One restart of one instance, as the benchmark drove it. Times are seconds since the consumers' start. */
export interface StepRecord {
  /** 1-based. */
  index: number;
  instanceId: string;
  /** The graceful stop was requested (the old process disconnects, LeaveGroup). */
  stopAt: number;
  /** The old process exited. */
  stoppedAt: number;
  /** The new process with the same instance id was started (after the pod restart delay). */
  startAt: number;
  /** Every member of the new process runs; null if it never got there. */
  readyAt: number | null;
  /** The step ended: the group was Stable and settled, or the wait gave up. */
  settledAt: number;
  settled: boolean;
  /** Which process of the instance the new one is (1 after its first restart); see {@link ProcessingRecord}. */
  process?: number;
}

/** How the members join: dynamic (KafkaJS's own) or static (KIP-345, the assigner's `staticMembership`). */
export type Membership = 'dynamic' | 'static';

/** What one assigner's run recorded. */
export interface RollingRun {
  record: PhaseRecord;
  /** End of the warm-up (group settled, weights warm): the first restart starts here. */
  warmedAt: number;
  warmSettled: boolean;
  steps: StepRecord[];
  /** Absent in records written before static membership: dynamic. */
  membership?: Membership;
  /** The instances' processing reports (pauses, first messages, lost and duplicates). */
  processing?: ProcessingRecord;
  /** The producer's per-partition rates (msg/s, index = partition); absent in older records. */
  rates?: readonly number[];
}

/** How the membership changed in one rebalance. */
export type RebalanceCause = 'leave' | 'join' | 'leave+join' | 'same members';

/** One rebalance between two complete generations. */
export interface Transition {
  fromGeneration: number;
  toGeneration: number;
  cause: RebalanceCause;
  moved: number;
  necessary: number;
  /** Absent when the run has no known per-partition rates. */
  weighted?: WeightedMoves;
}

/** The weighted necessary of one rebalance, or the sum over a step's (see the module comment). */
export interface WeightedMoves {
  /** Fewest partitions moved by any assignment as balanced as the new generation. */
  necessary: number;
  /** Least msg/s moved by any such assignment. */
  necessaryWeight: number;
  /** msg/s the new generation moved. */
  movedWeight: number;
  /** The new generation's busiest instance load ÷ members (msg/s per member), the bar to reach. */
  limit: number;
  /** Every search finished (a false would mean the necessary is an upper bound). */
  exact: boolean;
}

/** The leader of a generation. */
export interface Leader {
  instanceId: string;
  memberId: string;
}

/** What the processing reports say about one step. */
export interface StepProcessing {
  /**
   * Instance → longest stretch (s) without a finished message within the step, for every
   * instance but the restarted one; 0 when it never paused.
   */
  longest: Record<string, number>;
  /** The restarted instance: its new process's first finished message − its `ready` (s). */
  resume: number | null;
  /**
   * The restarted instance's own downtime: its new process's `ready` − its stop request (s).
   * Static members' partitions wait for it that long (plus the resume); dynamic members' are
   * handed to the others at the rebalance its leave starts.
   */
  downtime: number | null;
  pausedMemberSeconds: number;
  duplicates: number;
}

/** The numbers of one step (or of the warm-up, index 0). */
export interface StepSummary {
  index: number;
  /** The restarted instance; undefined for the warm-up. */
  instanceId: string | undefined;
  /**
   * Ids of the generations the step went through: from the one after the last generation before
   * it to the last one in it (generation ids go up by one per rebalance, so one no member lived
   * long enough to report is counted too).
   */
  generations: number[];
  /** Of those, the ones no member reported (superseded at once). */
  unreported: number[];
  transitions: Transition[];
  leaderBefore: Leader | undefined;
  leaderAfter: Leader | undefined;
  /** The leader's member changed (a new process, or another one). */
  leaderChanged: boolean;
  /** The restarted instance held the leader when the step began. */
  restartedLeader: boolean;
  moved: number;
  necessary: number;
  /** Summed over the step's rebalances (limit: the last one's); absent without known rates. */
  weighted?: WeightedMoves;
  /** The assignments leaders computed in the step. */
  assignments: AssignmentRecord[];
  triggerFires: number;
  /** Busiest ÷ ideal at the end of the step; null without a usable sample. */
  ratioAfter: number | null;
  peakLag: number;
  imbalanceSeconds: number;
  durationSeconds: number;
  settled: boolean;
  /** Static members that took their place back in the window without a rebalance. */
  staticRejoins: number;
  /** Absent without processing reports. */
  processing?: StepProcessing;
}

/** Processing totals over the restarts. */
export interface ProcessingTotals {
  /** Longest stretch without processing of an instance that was not restarting (s), and where. */
  longest: number;
  longestAt: string | undefined;
  /** Longest resume of a restarted instance (s); null when some step has none. */
  resume: number | null;
  pausedMemberSeconds: number;
  /** Duplicates reported during the restarts; the run's are in `delivery`. */
  duplicates: number;
  delivery: DeliveryRecord | undefined;
}

/** The totals of one assigner's restarts (the warm-up excluded). */
export interface RollingTotals {
  assigner: string;
  /** Column label: the assigner, with "(static)" for static membership. */
  label: string;
  membership: Membership;
  staticRejoins: number;
  restarts: number;
  settledSteps: number;
  /** Generations that started during the restarts. */
  rebalances: number;
  moved: number;
  necessary: number;
  /** Summed over the steps; absent without known rates. */
  weightedNecessary?: number;
  /** Steps whose moves exceed {@link TARGET_MOVED_PER_WEIGHTED_NECESSARY} × their weighted necessary. */
  stepsOverWeightedTarget?: number;
  leaderChanges: number;
  assignments: number;
  /** Assignments with at least one defaulted weight, and the defaulted partitions over all of them. */
  assignmentsWithDefaults: number;
  defaultedWeights: number;
  triggerFires: number;
  imbalanceSeconds: number;
  peakLag: number;
  meanRatioAfter: number | null;
  /** From the first stop to the end of the last step. */
  restartSeconds: number;
  processing?: ProcessingTotals;
}

/** Everything reported for one assigner. */
export interface RollingSummary {
  assigner: string;
  warmUp: StepSummary;
  steps: StepSummary[];
  totals: RollingTotals;
}

/** Who owns a member's partitions: its group instance id when static, else its member id. */
function ownerOf(m: GenerationRecord['members'][number]): string {
  return m.groupInstanceId ?? m.memberId;
}

/** Partition → owner (see the module comment), or undefined when some partition is held twice or not at all. */
export function ownersOf(g: GenerationRecord, partitions: number): Map<number, string> | undefined {
  const owners = new Map<number, string>();
  for (const m of g.members) {
    for (const p of m.partitions) {
      if (owners.has(p) || p < 0 || p >= partitions) return undefined;
      owners.set(p, ownerOf(m));
    }
  }
  return owners.size === partitions ? owners : undefined;
}

function counts(g: GenerationRecord): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of g.members) out.set(ownerOf(m), (out.get(ownerOf(m)) ?? 0) + m.partitions.length);
  return out;
}

/**
 * The weighted necessary between two complete generations (see the module comment), by `rates`.
 * Instances are the members' `instanceId`s; each one's capacity is its members in `to`.
 */
export function weightedMoves(
  from: GenerationRecord,
  to: GenerationRecord,
  partitions: number,
  rates: readonly number[],
): WeightedMoves {
  const before = ownersOf(from, partitions);
  const after = ownersOf(to, partitions);
  if (before === undefined || after === undefined) throw new Error('weighted moves between incomplete generations');
  const instanceOf = new Map<string, string>();
  for (const m of from.members) instanceOf.set(ownerOf(m), m.instanceId);
  const stayed = new Set(to.members.map(ownerOf));
  const capacities = new Map<string, number>();
  for (const m of to.members) capacities.set(m.instanceId, (capacities.get(m.instanceId) ?? 0) + 1);
  const loads = new Map<string, number>();
  let movedWeight = 0;
  for (const [p, owner] of after) {
    const instance = to.members.find((m) => ownerOf(m) === owner)!.instanceId;
    loads.set(instance, (loads.get(instance) ?? 0) + (rates[p] ?? 0));
    if (before.get(p) !== owner) movedWeight += rates[p] ?? 0;
  }
  const limit = Math.max(0, ...[...loads].map(([id, load]) => load / capacities.get(id)!));
  const weights = Array.from({ length: partitions }, (_, p) => rates[p] ?? 0);
  const keepAt = weights.map((_, p) => {
    const owner = before.get(p)!;
    return stayed.has(owner) ? instanceOf.get(owner) : undefined;
  });
  const input = { weights, keepAt, capacities, limit };
  // The new generation itself reaches the limit, so both searches find an assignment.
  const byCount = fewestMoves(input, 'count')!;
  const byWeight = fewestMoves(input, 'weight')!;
  return {
    necessary: byCount.moves,
    necessaryWeight: byWeight.weight,
    movedWeight,
    limit,
    exact: byCount.exact && byWeight.exact,
  };
}

/** Partitions moved and the necessary moves between two complete generations (weighted too, given `rates`). */
export function transition(
  from: GenerationRecord,
  to: GenerationRecord,
  partitions: number,
  rates?: readonly number[],
): Transition {
  const before = ownersOf(from, partitions);
  const after = ownersOf(to, partitions);
  if (before === undefined || after === undefined) throw new Error('transition between incomplete generations');
  let moved = 0;
  for (const [p, member] of after) if (before.get(p) !== member) moved++;
  const had = counts(from);
  const has = counts(to);
  let necessary = 0;
  for (const [member, n] of has) necessary += Math.max(0, n - (had.get(member) ?? 0));
  const left = [...had.keys()].some((m) => !has.has(m));
  const joined = [...has.keys()].some((m) => !had.has(m));
  const cause: RebalanceCause = left && joined ? 'leave+join' : left ? 'leave' : joined ? 'join' : 'same members';
  return {
    fromGeneration: from.generationId,
    toGeneration: to.generationId,
    cause,
    moved,
    necessary,
    ...(rates === undefined ? {} : { weighted: weightedMoves(from, to, partitions, rates) }),
  };
}

/** Busiest ÷ ideal at one sample (see the module comment); undefined mid-rebalance. */
export function sampleRatio(record: Pick<PhaseRecord, 'instances' | 'partitions'>, sample: Sample): number | undefined {
  let members = 0;
  let held = 0;
  let busiest = 0;
  for (const { instanceId, members: n } of record.instances) {
    const s = sample.instances[instanceId];
    if (s === undefined || !s.running) continue;
    members += n;
    held += s.partitions;
    busiest = Math.max(busiest, s.offeredPerSec / n);
  }
  if (members === 0 || sample.producedPerSec <= 0) return undefined;
  if (sample.assignedPartitions !== record.partitions || held !== record.partitions) return undefined;
  return busiest / (sample.producedPerSec / members);
}

/** Σ max(0, ratio − 1) × Δt over the samples with from < t ≤ to. */
export function imbalanceSeconds(
  record: Pick<PhaseRecord, 'instances' | 'partitions' | 'samples'>,
  from: number,
  to: number,
): number {
  let total = 0;
  let previous: number | undefined;
  for (const s of record.samples) {
    if (s.t > to) break;
    if (s.t > from && previous !== undefined) {
      const ratio = sampleRatio(record, s);
      if (ratio !== undefined) total += Math.max(0, ratio - 1) * Math.min(MAX_SAMPLE_GAP_SECONDS, s.t - previous);
    }
    previous = s.t;
  }
  return total;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

function leaderOf(g: GenerationRecord | undefined): Leader | undefined {
  return g?.leaderInstance === undefined || g.leaderMemberId === undefined
    ? undefined
    : { instanceId: g.leaderInstance, memberId: g.leaderMemberId };
}

/** A step's window: from < t ≤ to, and the restart in it. */
export interface StepWindow {
  index: number;
  /** The instance restarted in the window; undefined for the warm-up. */
  instanceId: string | undefined;
  from: number;
  to: number;
  settled: boolean;
  /** When its stop was requested, and the number of its new process. */
  restart?: { stopAt: number; process: number };
}

/** Seconds of `[a, b]` inside `[from, to]`. */
function clip(a: number, b: number, from: number, to: number): number {
  return Math.max(0, Math.min(b, to) - Math.max(a, from));
}

/** The processing numbers of one window (see the module comment). */
export function stepProcessing(
  processing: ProcessingRecord,
  instances: readonly string[],
  window: StepWindow,
): StepProcessing {
  const { from, to, instanceId: restarted, restart } = window;
  const fresh =
    restart === undefined
      ? undefined
      : processing.processes.find((p) => p.instanceId === restarted && p.process === restart.process);
  // The restarted pod's own downtime: from its stop request until its new process is ready.
  const downFrom = restart?.stopAt ?? Infinity;
  const downTo = fresh?.readyAt ?? to;
  const longest: Record<string, number> = {};
  for (const id of instances) {
    if (id === restarted) continue;
    const pauses = processing.instancePauses
      .filter((p) => p.instanceId === id)
      .map((p) => clip(p.from, p.to, from, to));
    const gaps = processing.gaps.filter((g) => g.instanceId === id && g.t > from && g.t <= to).map((g) => g.seconds);
    longest[id] = Math.max(0, ...pauses, ...gaps);
  }
  const pausedSeconds = (p: PauseRecord): number => {
    const inside = clip(p.from, p.to, from, to);
    return p.instanceId === restarted
      ? inside - clip(p.from, p.to, Math.max(from, downFrom), Math.min(to, downTo))
      : inside;
  };
  const resume =
    fresh?.readyAt == null || fresh.firstProcessedAt === null ? null : fresh.firstProcessedAt - fresh.readyAt;
  const downtime = fresh?.readyAt == null || restart === undefined ? null : fresh.readyAt - restart.stopAt;
  return {
    longest,
    resume,
    downtime,
    pausedMemberSeconds: processing.memberPauses.reduce((n, p) => n + pausedSeconds(p), 0),
    duplicates: processing.duplicates.filter((d) => d.t > from && d.t <= to).reduce((n, d) => n + d.count, 0),
  };
}

/** The numbers of the window from < t ≤ to; `instanceId` is the instance restarted in it. */
export function summarizeWindow(
  record: PhaseRecord,
  window: StepWindow,
  processing?: ProcessingRecord,
  rates?: readonly number[],
): StepSummary {
  const { from, to, instanceId } = window;
  const generations = [...record.generations].sort((a, b) => a.generationId - b.generationId);
  const isComplete = (g: GenerationRecord): boolean => ownersOf(g, record.partitions) !== undefined;
  const before = generations.filter((g) => g.t <= from);
  const inside = generations.filter((g) => g.t > from && g.t <= to);
  const transitions: Transition[] = [];
  let base = before.findLast(isComplete);
  for (const g of inside.filter(isComplete)) {
    if (base !== undefined) transitions.push(transition(base, g, record.partitions, rates));
    base = g;
  }
  const leaderBefore = leaderOf(before.findLast((g) => g.leaderMemberId !== undefined));
  const leaderAfter = leaderOf(inside.findLast((g) => g.leaderMemberId !== undefined)) ?? leaderBefore;
  const lastBefore = before.at(-1)?.generationId ?? inside[0]?.generationId;
  const lastInside = inside.at(-1)?.generationId;
  const range: number[] = [];
  if (lastBefore !== undefined && lastInside !== undefined) {
    // A fresh group (the warm-up) starts at generation 1.
    const first = before.length === 0 ? Math.min(1, lastBefore) : lastBefore + 1;
    for (let id = first; id <= lastInside; id++) range.push(id);
  }
  const samples = record.samples.filter((s) => s.t > from && s.t <= to);
  const ratios = samples
    .filter((s) => s.t >= to - AFTER_WINDOW_SECONDS)
    .map((s) => sampleRatio(record, s))
    .filter((r): r is number => r !== undefined);
  return {
    index: window.index,
    instanceId,
    generations: range,
    unreported: range.filter((id) => !inside.some((g) => g.generationId === id)),
    transitions,
    leaderBefore,
    leaderAfter,
    leaderChanged: leaderBefore?.memberId !== leaderAfter?.memberId,
    restartedLeader: instanceId !== undefined && leaderBefore?.instanceId === instanceId,
    moved: transitions.reduce((n, t) => n + t.moved, 0),
    necessary: transitions.reduce((n, t) => n + t.necessary, 0),
    ...(rates === undefined ? {} : { weighted: sumWeighted(transitions) }),
    assignments: record.assignments.filter((a) => a.t > from && a.t <= to),
    triggerFires: record.triggers.filter((t) => t > from && t <= to).length,
    ratioAfter: mean(ratios),
    peakLag: Math.max(0, ...samples.map((s) => s.totalLag)),
    imbalanceSeconds: imbalanceSeconds(record, from, to),
    durationSeconds: to - from,
    settled: window.settled,
    staticRejoins: (record.staticRejoins ?? []).filter((r) => r.t > from && r.t <= to).length,
    ...(processing === undefined
      ? {}
      : {
          processing: stepProcessing(
            processing,
            record.instances.map((i) => i.instanceId),
            window,
          ),
        }),
  };
}

function sumWeighted(transitions: readonly Transition[]): WeightedMoves {
  const sum = (pick: (w: WeightedMoves) => number): number =>
    transitions.reduce((n, t) => n + (t.weighted === undefined ? 0 : pick(t.weighted)), 0);
  return {
    necessary: sum((w) => w.necessary),
    necessaryWeight: sum((w) => w.necessaryWeight),
    movedWeight: sum((w) => w.movedWeight),
    limit: transitions.at(-1)?.weighted?.limit ?? 0,
    exact: transitions.every((t) => t.weighted?.exact !== false),
  };
}

/** Target: a step moves at most this many times its weighted necessary. */
export const TARGET_MOVED_PER_WEIGHTED_NECESSARY = 1.5;

/** Whether a step meets {@link TARGET_MOVED_PER_WEIGHTED_NECESSARY}; undefined without known rates. */
export function meetsWeightedTarget(s: StepSummary): boolean | undefined {
  return s.weighted === undefined ? undefined : s.moved <= TARGET_MOVED_PER_WEIGHTED_NECESSARY * s.weighted.necessary;
}

/** The warm-up (index 0), every step, and the totals of one assigner's run. */
export function summarizeRolling(run: RollingRun): RollingSummary {
  const { record } = run;
  const { processing } = run;
  const warmUp = summarizeWindow(
    record,
    { index: 0, instanceId: undefined, from: 0, to: run.warmedAt, settled: run.warmSettled },
    processing,
    run.rates,
  );
  // The warm-up has no previous leader: "changed" means nothing there.
  warmUp.leaderChanged = false;
  const steps = run.steps.map((step, i) =>
    summarizeWindow(
      record,
      {
        index: step.index,
        instanceId: step.instanceId,
        // Each step starts where the previous one ended, so nothing falls between two steps.
        from: i === 0 ? run.warmedAt : run.steps[i - 1]!.settledAt,
        to: step.settledAt,
        settled: step.settled,
        ...(step.process === undefined ? {} : { restart: { stopAt: step.stopAt, process: step.process } }),
      },
      processing,
      run.rates,
    ),
  );
  const sum = (pick: (s: StepSummary) => number): number => steps.reduce((n, s) => n + pick(s), 0);
  const assignments = steps.flatMap((s) => s.assignments);
  const ratios = steps.map((s) => s.ratioAfter).filter((r): r is number => r !== null);
  const first = run.steps[0];
  const last = run.steps.at(-1);
  const membership = run.membership ?? 'dynamic';
  return {
    assigner: record.assigner,
    warmUp,
    steps,
    totals: {
      assigner: record.assigner,
      label: membership === 'static' ? `${record.assigner} (static)` : record.assigner,
      membership,
      staticRejoins: sum((s) => s.staticRejoins),
      restarts: steps.length,
      settledSteps: steps.filter((s) => s.settled).length,
      rebalances: sum((s) => s.generations.length),
      moved: sum((s) => s.moved),
      necessary: sum((s) => s.necessary),
      ...(run.rates === undefined
        ? {}
        : {
            weightedNecessary: sum((s) => s.weighted?.necessary ?? 0),
            stepsOverWeightedTarget: steps.filter((s) => meetsWeightedTarget(s) === false).length,
          }),
      leaderChanges: steps.filter((s) => s.leaderChanged).length,
      assignments: assignments.length,
      assignmentsWithDefaults: assignments.filter((a) => (a.defaulted ?? 0) > 0).length,
      defaultedWeights: assignments.reduce((n, a) => n + (a.defaulted ?? 0), 0),
      triggerFires: sum((s) => s.triggerFires),
      imbalanceSeconds: sum((s) => s.imbalanceSeconds),
      peakLag: Math.max(0, ...steps.map((s) => s.peakLag)),
      meanRatioAfter: mean(ratios),
      restartSeconds: first === undefined || last === undefined ? 0 : last.settledAt - run.warmedAt,
      ...(processing === undefined ? {} : { processing: processingTotals(steps, processing) }),
    },
  };
}

function processingTotals(steps: readonly StepSummary[], processing: ProcessingRecord): ProcessingTotals {
  let longest = 0;
  let longestAt: string | undefined;
  for (const s of steps) {
    for (const [id, seconds] of Object.entries(s.processing?.longest ?? {})) {
      if (seconds > longest) {
        longest = seconds;
        longestAt = `${short(id)}, step ${String(s.index)}`;
      }
    }
  }
  const resumes = steps.map((s) => s.processing?.resume ?? null);
  return {
    longest,
    longestAt,
    resume: resumes.length === 0 || resumes.includes(null) ? null : Math.max(...(resumes as number[])),
    pausedMemberSeconds: steps.reduce((n, s) => n + (s.processing?.pausedMemberSeconds ?? 0), 0),
    duplicates: steps.reduce((n, s) => n + (s.processing?.duplicates ?? 0), 0),
    delivery: processing.delivery,
  };
}

/** Whether the group counts as settled now: what the benchmark waits for after each restart. */
export interface SettleInput {
  /** Broker's view (DescribeGroups). */
  groupState: string;
  groupMembers: number;
  /** Members the group has when every instance runs. */
  totalMembers: number;
  partitions: number;
  /** The latest generation the members reported. */
  latest: GenerationRecord | undefined;
  /** Last join, trigger fire or process start (ms). */
  lastActivityAt: number;
  now: number;
  /** Quiet time asked for: no rebalance and no fire for this long. */
  quietMs: number;
}

/**
 * Settled: the broker says Stable with every member in, the latest generation was reported by
 * every member and holds every partition exactly once, and nothing happened for `quietMs`.
 */
export function isSettled(input: SettleInput): boolean {
  const { latest } = input;
  return (
    input.groupState === 'Stable' &&
    input.groupMembers === input.totalMembers &&
    latest !== undefined &&
    latest.members.length === input.totalMembers &&
    ownersOf(latest, input.partitions) !== undefined &&
    input.now - input.lastActivityAt >= input.quietMs
  );
}

// ---------------------------------------------------------------------------------------------
// Markdown

const short = (instanceId: string | undefined): string => (instanceId ?? '-').replace(/^instance-/, '');

function fixed(value: number | null, digits: number): string {
  return value === null ? '-' : value.toFixed(digits);
}

function leaderCell(s: StepSummary): string {
  const before = short(s.leaderBefore?.instanceId);
  const after = short(s.leaderAfter?.instanceId);
  if (s.index === 0) return after;
  if (!s.leaderChanged) return `${after} (same)`;
  const note = s.restartedLeader ? 'restarted' : before === after ? 'new member' : 'moved';
  return `${before} → ${after} (${note})`;
}

function generationsCell(s: StepSummary): string {
  if (s.generations.length === 0) return '-';
  const causes = new Map(s.transitions.map((t) => [t.toGeneration, t.cause]));
  return s.generations
    .map((g) => {
      const cause = causes.get(g) ?? (s.unreported.includes(g) ? 'unreported' : undefined);
      return cause === undefined ? String(g) : `${String(g)} ${cause}`;
    })
    .join(', ');
}

function defaultedCell(s: StepSummary): string {
  const leaders = s.assignments.filter((a) => a.result !== 'round_robin');
  if (leaders.length === 0) return '-';
  return leaders
    .map((a) => {
      const known = a.previouslyOwned === undefined ? '' : `/${String(a.previouslyOwned)}`;
      return `${String(a.defaulted ?? '?')}${known} (${short(a.instanceId)})`;
    })
    .join(', ');
}

/** a ÷ b, two decimals; "-" when both are 0, "∞" when only b is. */
function quotient(a: number, b: number): string {
  if (b > 0) return (a / b).toFixed(2);
  return a === 0 ? '-' : '∞';
}

/** Weighted-necessary cells: necessary, moved ÷ necessary by count, moved msg/s ÷ necessary msg/s. */
function weightedCells(s: StepSummary): string[] {
  const w = s.weighted;
  if (s.index === 0 || w === undefined) return ['-', '-', '-'];
  return [
    `${String(w.necessary)}${w.exact ? '' : ' (bound)'}`,
    quotient(s.moved, w.necessary),
    `${quotient(w.movedWeight, w.necessaryWeight)} (${w.movedWeight.toFixed(0)}/${w.necessaryWeight.toFixed(0)})`,
  ];
}

/** The per-step table of one assigner, warm-up first. */
export function stepTable(summary: RollingSummary, partitions: number): string {
  const header =
    '| step | restart | generations (membership change) | leader | moved | necessary | weighted necessary | ' +
    'moved ÷ weighted necessary | moved ÷ necessary by msg/s (moved/necessary) | ' +
    `defaulted/known owners of ${String(partitions)} (leader) | trigger fires | busiest ÷ ideal after | ` +
    'peak lag | imbalance-s | step s |';
  const rule = '| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |';
  const rows = [summary.warmUp, ...summary.steps].map((s) =>
    [
      s.index === 0 ? 'warm-up' : String(s.index),
      s.index === 0 ? '-' : short(s.instanceId),
      generationsCell(s),
      leaderCell(s),
      s.index === 0 ? '-' : String(s.moved),
      s.index === 0 ? '-' : String(s.necessary),
      ...weightedCells(s),
      defaultedCell(s),
      String(s.triggerFires),
      fixed(s.ratioAfter, 2),
      String(Math.round(s.peakLag)),
      s.imbalanceSeconds.toFixed(1),
      `${s.durationSeconds.toFixed(0)}${s.settled ? '' : ' (not settled)'}`,
    ].join(' | '),
  );
  return [header, rule, ...rows.map((r) => `| ${r} |`)].join('\n');
}

function seconds(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? '-' : value.toFixed(digits);
}

function longestCell(p: StepProcessing | undefined): string {
  if (p === undefined) return '-';
  return Object.entries(p.longest)
    .map(([id, s]) => `${short(id)} ${s.toFixed(1)}`)
    .join(', ');
}

/**
 * The processing table of one run, warm-up first: rebalances and the time members spent without
 * processing. Empty string without processing reports (records written before them).
 */
export function processingTable(summary: RollingSummary): string {
  if (summary.steps.every((s) => s.processing === undefined)) return '';
  const header =
    '| step | restart | rebalances | static rejoins | moved | longest without processing, other instances (s) | ' +
    'restarted: stop → ready (s) | restarted: ready → first message (s) | ' +
    `paused member-s (> ${String(PAUSE_THRESHOLD_MS / 1000)} s) | peak lag | imbalance-s | duplicates |`;
  const rule = '| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |';
  const rows = [summary.warmUp, ...summary.steps].map((s) =>
    [
      s.index === 0 ? 'warm-up' : String(s.index),
      s.index === 0 ? '-' : short(s.instanceId),
      String(s.generations.length),
      String(s.staticRejoins),
      s.index === 0 ? '-' : String(s.moved),
      longestCell(s.processing),
      s.index === 0 ? '-' : seconds(s.processing?.downtime),
      s.index === 0 ? '-' : seconds(s.processing?.resume, 2),
      seconds(s.processing?.pausedMemberSeconds),
      String(Math.round(s.peakLag)),
      s.imbalanceSeconds.toFixed(1),
      String(s.processing?.duplicates ?? '-'),
    ].join(' | '),
  );
  return [header, rule, ...rows.map((r) => `| ${r} |`)].join('\n');
}

interface TotalsMetric {
  name: string;
  value: (t: RollingTotals) => string;
}

const TOTALS: TotalsMetric[] = [
  { name: 'restarts (settled)', value: (t) => `${String(t.restarts)} (${String(t.settledSteps)})` },
  { name: 'rebalances (generations during the restarts)', value: (t) => String(t.rebalances) },
  { name: 'partitions moved', value: (t) => String(t.moved) },
  { name: 'necessary moves', value: (t) => String(t.necessary) },
  { name: 'excess moves (moved − necessary)', value: (t) => String(t.moved - t.necessary) },
  {
    name: 'weighted necessary moves (as balanced as the assigner, by the produced rates)',
    value: (t) => (t.weightedNecessary === undefined ? '-' : String(t.weightedNecessary)),
  },
  {
    name: `steps moving more than ${String(TARGET_MOVED_PER_WEIGHTED_NECESSARY)}× their weighted necessary`,
    value: (t) =>
      t.stepsOverWeightedTarget === undefined ? '-' : `${String(t.stepsOverWeightedTarget)} of ${String(t.restarts)}`,
  },
  { name: 'leader changes', value: (t) => String(t.leaderChanges) },
  {
    name: 'load-aware assignments with defaulted weights (defaulted partitions)',
    value: (t) =>
      t.assigner === 'round-robin'
        ? '-'
        : `${String(t.assignmentsWithDefaults)} of ${String(t.assignments)} (${String(t.defaultedWeights)})`,
  },
  {
    name: 'trigger fires (proactive rebalances)',
    value: (t) => (t.assigner === 'round-robin' ? '-' : String(t.triggerFires)),
  },
  { name: 'imbalance-seconds', value: (t) => t.imbalanceSeconds.toFixed(1) },
  { name: 'peak lag (messages)', value: (t) => String(Math.round(t.peakLag)) },
  { name: 'mean busiest ÷ ideal after a step', value: (t) => fixed(t.meanRatioAfter, 2) },
  { name: 'restart sequence duration (s)', value: (t) => t.restartSeconds.toFixed(0) },
  { name: 'static rejoins (no rebalance)', value: (t) => String(t.staticRejoins) },
  {
    name: 'longest without processing, instance not restarting (s)',
    value: (t) =>
      t.processing === undefined ? '-' : `${t.processing.longest.toFixed(1)} (${t.processing.longestAt ?? '-'})`,
  },
  {
    name: 'longest restarted instance: ready → first message (s)',
    value: (t) => seconds(t.processing?.resume, 2),
  },
  {
    name: `paused member-seconds (pauses > ${String(PAUSE_THRESHOLD_MS / 1000)} s, own downtime excluded)`,
    value: (t) => seconds(t.processing?.pausedMemberSeconds),
  },
  {
    name: 'messages produced / processed (run, after the drain)',
    value: (t) => {
      const d = t.processing?.delivery;
      return d === undefined ? '-' : `${String(d.produced)} / ${String(d.processed)}`;
    },
  },
  {
    name: 'lost / duplicates (run)',
    value: (t) => {
      const d = t.processing?.delivery;
      if (d === undefined) return '-';
      return `${String(d.lost)}${d.drained ? '' : ' (not drained)'} / ${String(d.duplicates)}`;
    },
  },
];

/** The totals of every assigner side by side. */
export function totalsTable(totals: readonly RollingTotals[]): string {
  const header = `| metric | ${totals.map((t) => t.label).join(' | ')} |`;
  const rule = `| --- | ${totals.map(() => '---:').join(' | ')} |`;
  const rows = TOTALS.map((m) => `| ${m.name} | ${totals.map((t) => m.value(t)).join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}

/** One target of a rolling restart with static membership, and whether a run met it. */
export interface TargetCheck {
  target: string;
  value: string;
  met: boolean | undefined;
}

/** Longest stretch without processing an instance that is not restarting may have (s). */
export const TARGET_LONGEST_SECONDS = 2;
/** Longest wait of a restarted instance, from ready to its first processed message (s). */
export const TARGET_RESUME_SECONDS = 5;

/**
 * The targets a rolling restart with static membership should meet: no rebalance and no moved
 * partition during the roll, instances that are not restarting never more than
 * {@link TARGET_LONGEST_SECONDS} without processing, a restarted one processing within
 * {@link TARGET_RESUME_SECONDS} of being ready, nothing lost. `met` is undefined when the run
 * has no processing reports for it.
 */
export function targetChecks(t: RollingTotals): TargetCheck[] {
  const p = t.processing;
  const delivery = p?.delivery;
  return [
    { target: 'rebalances during the roll = 0', value: String(t.rebalances), met: t.rebalances === 0 },
    { target: 'partitions moved = 0', value: String(t.moved), met: t.moved === 0 },
    {
      target: `instances not restarting: longest without processing ≤ ${String(TARGET_LONGEST_SECONDS)} s`,
      value: p === undefined ? '-' : `${p.longest.toFixed(2)} s (${p.longestAt ?? '-'})`,
      met: p === undefined ? undefined : p.longest <= TARGET_LONGEST_SECONDS,
    },
    {
      target: `restarted instance: first message ≤ ${String(TARGET_RESUME_SECONDS)} s after ready`,
      value: p?.resume == null ? '-' : `${p.resume.toFixed(2)} s (worst step)`,
      met: p?.resume == null ? undefined : p.resume <= TARGET_RESUME_SECONDS,
    },
    {
      target: 'messages lost = 0',
      value: delivery === undefined ? '-' : `${String(delivery.lost)}${delivery.drained ? '' : ' (not drained)'}`,
      met: delivery === undefined ? undefined : delivery.drained && delivery.lost === 0,
    },
  ];
}

/** {@link targetChecks} of every run side by side. */
export function targetsTable(totals: readonly RollingTotals[]): string {
  const checks = totals.map(targetChecks);
  const header = `| target | ${totals.map((t) => t.label).join(' | ')} |`;
  const rule = `| --- | ${totals.map(() => '---').join(' | ')} |`;
  const verdict = (c: TargetCheck): string =>
    `${c.value}: ${c.met === undefined ? 'not measured' : c.met ? 'met' : 'not met'}`;
  const rows = checks[0]?.map((c, i) => `| ${c.target} | ${checks.map((cs) => verdict(cs[i]!)).join(' | ')} |`) ?? [];
  return [header, rule, ...rows].join('\n');
}
