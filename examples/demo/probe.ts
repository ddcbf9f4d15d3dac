import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type Admin, type Kafka } from 'kafkajs';
import { createTopicsWithLeaders, uniqueName } from '@load-aware/integration-tests';
import { startInstance, type InstanceHandle } from './instances.js';
import { judgeLag, type LagReason, type LagVerdict } from './lag-verdict.js';
import type { DemoOptions } from './options.js';
import { ADMIN_TIMEOUT_MS, instanceIds, instanceSpecs, SAMPLE_MS, withTimeout } from './phase.js';
import { runSteadyProducer } from './producer.js';
import { DemoInterruptedError } from './run.js';
import { isPinned, type AssignerKind, type PinnedKind } from './protocol.js';
import { emptyPhaseRecord, type GenerationRecord } from './record.js';
import { PhaseTracker } from './tracker.js';
import { createTraffic } from './traffic.js';

/** How long each stage of a probe may take. */
export interface ProbeTiming {
  /** From the instances' start until the group must be stable (else: "unsettled"). */
  stableDeadlineSeconds: number;
  /** Time the group must stay on one stable generation before the window opens. */
  settleSeconds: number;
  /** Length of the observation window the verdict is made on. */
  windowSeconds: number;
}

/** The clients and settings every probe runs with. */
export interface ProbeContext {
  brokers: string[];
  kafka: Kafka;
  admin: Admin;
  options: DemoOptions;
  signal: AbortSignal;
  log: (line: string) => void;
  /** The plans pinned assigners hold (member slot → partitions); needed only by their probes. */
  pinnedPlans?: Partial<Record<PinnedKind, number[][]>>;
}

/** Why a probe ended as it did; only `bounded` is sustainable. */
export type ProbeOutcome = LagReason | 'unsettled';

/** One probe: a rate, the verdict and what it was made on. */
export interface ProbeResult {
  assigner: AssignerKind;
  rate: number;
  sustainable: boolean;
  outcome: ProbeOutcome;
  /** Undefined when the group never settled. */
  verdict: LagVerdict | undefined;
  /** Seconds from the instances' start until the group was first stable, and until the window opened. */
  stableAtSeconds: number | null;
  windowStartSeconds: number | null;
  /** Generation of the window's end, and rebalances (new generations) seen during the window. */
  generationId: number | null;
  rebalancesInWindow: number;
  triggers: number;
  /** Messages processed per second during the window, from the instances' reports. */
  consumedPerSec: number | null;
  /** Total lag at each sample of the probe (t in seconds since the instances' start). */
  lag: Array<{ t: number; totalLag: number }>;
  warnings: string[];
  /**
   * The window's last complete generation: each member (labelled as in the verdict's slopes),
   * its partitions and their share of the produced rate. Compares a live plan with a pinned one.
   */
  members?: Array<{ member: string; partitions: number[]; share: number }>;
}

/** Labels members "instance-a#1", "instance-b#2"... (ordinal by member id within the instance). */
function memberLabels(g: GenerationRecord): Map<string, string> {
  const labels = new Map<string, string>();
  const byInstance = new Map<string, string[]>();
  for (const m of g.members) byInstance.set(m.instanceId, [...(byInstance.get(m.instanceId) ?? []), m.memberId]);
  for (const [instanceId, ids] of byInstance) {
    ids.sort().forEach((id, i) => labels.set(id, `${instanceId}#${String(i + 1)}`));
  }
  return labels;
}

/** Each member of `g` with its partitions and their share of `rates`, by label. */
function memberShares(g: GenerationRecord, rates: readonly number[]): NonNullable<ProbeResult['members']> {
  const labels = memberLabels(g);
  const total = rates.reduce((a, b) => a + b, 0);
  return g.members
    .map((m) => ({
      member: labels.get(m.memberId) ?? m.memberId,
      partitions: [...m.partitions].sort((a, b) => a - b),
      share: total > 0 ? m.partitions.reduce((n, p) => n + (rates[p] ?? 0), 0) / total : 0,
    }))
    .sort((a, b) => a.member.localeCompare(b.member));
}

/** Each member's lag series (summed over the partitions it holds in `g`), aligned with the window's samples. */
function memberSeries(g: GenerationRecord, partitionLags: readonly number[][]): Record<string, number[]> {
  const labels = memberLabels(g);
  const owner = new Map<number, string>();
  for (const m of g.members) for (const p of m.partitions) owner.set(p, labels.get(m.memberId) ?? m.memberId);
  const series: Record<string, number[]> = {};
  for (const label of labels.values()) series[label] = partitionLags.map(() => 0);
  partitionLags.forEach((lags, i) => {
    lags.forEach((lag, p) => {
      const label = owner.get(p) ?? 'unassigned';
      (series[label] ??= partitionLags.map(() => 0))[i]! += lag;
    });
  });
  return series;
}

async function groupStable(admin: Admin, groupId: string, members: number): Promise<boolean> {
  try {
    const { groups } = await withTimeout(admin.describeGroups([groupId]), ADMIN_TIMEOUT_MS, 'describeGroups');
    const group = groups[0];
    return group?.state === 'Stable' && group.members.length === members;
  } catch {
    return false;
  }
}

/**
 * One probe at `rate`: a fresh topic and group, the demo's instances with `assigner`, and the
 * producer at `rate` with the demo's skew (its first ranking; the hotspot does not move). Once
 * the group is stable (the broker says Stable, every member reported the same generation, every
 * partition held) and has stayed on that generation for `settleSeconds`, lag is sampled every
 * second for `windowSeconds` and judged by {@link judgeLag}. load-aware's instances wait for
 * their first rates before joining (read from the time index as soon as traffic exists), so its
 * first assignment is already weighed. Every wait has a deadline; the producer, the instances
 * and the topic are always stopped and removed, also on abort.
 */
export async function runProbe(
  assigner: AssignerKind,
  rate: number,
  timing: ProbeTiming,
  ctx: ProbeContext,
): Promise<ProbeResult> {
  const { options, admin, signal, log } = ctx;
  const rates = createTraffic({ ...options, eventsPerSecond: rate }).before;
  const layout = instanceIds(options);
  const totalMembers = layout.reduce((n, i) => n + i.members, 0);
  const topic = uniqueName('sustain');
  const groupId = uniqueName(`sustain-${assigner}`);
  // Not KafkaJS's waitForLeaders: it gives up on the UNKNOWN_TOPIC_OR_PARTITION a loaded broker
  // still answers for a moment after the create, seen right after the previous probe's topic was deleted.
  await createTopicsWithLeaders(admin, [{ topic, numPartitions: options.partitions, replicationFactor: 1 }], 60_000);
  const abort = new AbortController();
  const onOuterAbort = (): void => {
    abort.abort();
  };
  signal.addEventListener('abort', onOuterAbort);
  const handles: InstanceHandle[] = [];
  const producer = ctx.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const warnings: string[] = [];
  try {
    await withTimeout(producer.connect(), 30_000, 'producer.connect');
    const t0 = Date.now();
    const lastWindowOpen = t0 + (timing.stableDeadlineSeconds + timing.settleSeconds) * 1000;
    const endAt = lastWindowOpen + timing.windowSeconds * 1000;
    const tracker = new PhaseTracker(
      emptyPhaseRecord({
        assigner,
        topic,
        groupId,
        startedAt: new Date(t0).toISOString(),
        durationSeconds: (endAt - t0) / 1000,
        moveAtSeconds: Infinity,
        instances: layout,
        partitions: options.partitions,
        eventsPerSecond: rate,
      }),
      t0,
      endAt,
      SAMPLE_MS,
      {
        sample: () => undefined,
        note: (line) => {
          if (line.includes('WARN') && warnings.length < 10) warnings.push(line);
        },
      },
    );
    // The producer first, so load-aware's instances find rates in the time index when they ask.
    const producing = runSteadyProducer(producer, {
      topic,
      before: rates,
      after: rates,
      moveAt: endAt,
      endAt,
      tickMs: 100,
      signal: abort.signal,
    });
    producing.catch(() => undefined);
    for (const spec of instanceSpecs(
      assigner,
      { brokers: ctx.brokers, options, groupId, topic },
      endAt - t0 + 60_000,
    )) {
      if (isPinned(assigner)) {
        const plan = ctx.pinnedPlans?.[assigner];
        if (plan === undefined) throw new Error(`a ${assigner} probe needs its plan in the context's pinnedPlans`);
        spec.pinnedPlan = plan;
      }
      handles.push(
        startInstance(spec, (event) => {
          tracker.onEvent(event);
        }),
      );
    }
    let failure: Error | undefined;
    for (const h of handles) {
      h.ready.catch((err: unknown) => {
        failure ??= err instanceof Error ? err : new Error(String(err));
      });
    }

    const lag: ProbeResult['lag'] = [];
    const windowT: number[] = [];
    const windowLags: number[][] = [];
    let stableAt: number | undefined;
    let settledGeneration: number | undefined;
    let settleFrom = 0;
    let windowStart: number | undefined;
    let windowGenerations = new Set<number>();
    let consumedAtWindowStart = 0;
    let lastGeneration: GenerationRecord | undefined;
    const aborted = (): boolean => abort.signal.aborted;
    let next = t0 + SAMPLE_MS;
    while (!aborted()) {
      await sleep(Math.max(0, next - Date.now()));
      next += SAMPLE_MS;
      if (aborted()) break;
      if (failure !== undefined) throw failure;
      const dead = handles.find((h) => h.exited);
      if (dead !== undefined) throw new Error(`instance ${dead.spec.instanceId} exited: ${dead.stderr().trim()}`);
      const now = Date.now();
      if (windowStart !== undefined && now >= windowStart + timing.windowSeconds * 1000) break;
      let ends: Array<{ partition: number; offset: string }>;
      try {
        ends = await withTimeout(admin.fetchTopicOffsets(topic), ADMIN_TIMEOUT_MS, 'fetchTopicOffsets');
      } catch {
        continue;
      }
      const partitionLags = tracker.partitionLags(ends);
      tracker.sample(now, ends, rates, false);
      const t = tracker.since(now);
      lag.push({ t, totalLag: partitionLags.reduce((a, b) => a + b, 0) });
      const latest = tracker.latestGeneration();
      if (windowStart !== undefined) {
        windowT.push(t);
        windowLags.push(partitionLags);
        if (latest !== undefined) windowGenerations.add(latest.generation.generationId);
        // Members are grouped by the last complete generation: a rebalance in progress holds only part of the partitions.
        if (latest?.complete === true) lastGeneration = latest.generation;
        continue;
      }
      const stable = latest?.complete === true && (await groupStable(admin, groupId, totalMembers)) && !aborted();
      if (!stable) {
        settledGeneration = undefined;
        if (now >= t0 + timing.stableDeadlineSeconds * 1000 && stableAt === undefined) break;
        if (now >= lastWindowOpen) break;
        continue;
      }
      stableAt ??= now;
      if (settledGeneration !== latest.generation.generationId) {
        settledGeneration = latest.generation.generationId;
        settleFrom = now;
      }
      // Settled: one stable generation for settleSeconds (or, at the latest, stable at the deadline).
      if (now - settleFrom >= timing.settleSeconds * 1000 || now >= lastWindowOpen) {
        windowStart = now;
        windowGenerations = new Set([settledGeneration]);
        consumedAtWindowStart = tracker.record.consumedMessages;
        lastGeneration = latest.generation;
        windowT.push(t);
        windowLags.push(partitionLags);
        log(
          `    stable at ${String(tracker.since(stableAt))} s, window opens at ${String(t)} s (lag ${String(lag.at(-1)!.totalLag)})`,
        );
      }
    }
    if (aborted()) throw new DemoInterruptedError('interrupted');
    const result: Omit<ProbeResult, 'sustainable' | 'outcome' | 'verdict'> = {
      assigner,
      rate,
      stableAtSeconds: stableAt === undefined ? null : tracker.since(stableAt),
      windowStartSeconds: windowStart === undefined ? null : tracker.since(windowStart),
      generationId: lastGeneration?.generationId ?? null,
      rebalancesInWindow: Math.max(0, windowGenerations.size - 1),
      triggers: tracker.record.triggers.length,
      consumedPerSec:
        windowStart === undefined || windowT.length < 2
          ? null
          : (tracker.record.consumedMessages - consumedAtWindowStart) / (windowT.at(-1)! - windowT[0]!),
      lag,
      warnings,
      ...(lastGeneration === undefined ? {} : { members: memberShares(lastGeneration, rates) }),
    };
    if (windowStart === undefined || lastGeneration === undefined) {
      return { ...result, sustainable: false, outcome: 'unsettled', verdict: undefined };
    }
    const verdict = judgeLag(windowT, memberSeries(lastGeneration, windowLags), rate);
    return { ...result, sustainable: verdict.bounded, outcome: verdict.reason, verdict };
  } finally {
    abort.abort();
    signal.removeEventListener('abort', onOuterAbort);
    await Promise.all(handles.map((h) => h.stop()));
    await producer.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
  }
}
