/**
 * Pure helpers of the trigger: what the *current* assignment costs, measured exactly the way
 * `balance()` measures its own result (effective weights, instances, capacity), so that the ratio
 * compares like with like.
 */
import {
  balance,
  instanceCapacities,
  keyOfPartition as keyOf,
  weightTable,
  type BalanceResult,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor/internal';

/** A group member as the trigger sees it: who it is, what it subscribes to, what it holds now. */
export interface ObservedMember {
  readonly memberId: string;
  /** The member's instance (from its load-aware userData; its own id when it has none). */
  readonly instanceId: string;
  readonly topics: ReadonlyArray<string>;
  /** Partitions the member currently holds. */
  readonly assigned: ReadonlyArray<TopicPartition>;
  /** Its instance's capacity from userData. Default 1. */
  readonly capacity?: number | undefined;
}

/** Effective weights of every partition involved, resolved once per check. */
export interface ResolvedWeights {
  /** Every observed or assigned partition, each once, as `balance()` should see it. */
  readonly partitions: ReadonlyArray<WeightedPartition>;
  /** The weight a partition counts with (its usable weight, else the default). */
  readonly weightOf: (partition: TopicPartition) => number;
  /** Partitions with a usable weight. */
  readonly usableCount: number;
}

/**
 * Resolves weights with `balance()`'s own table: unusable weights become `defaultWeight`; a
 * partition listed twice keeps its largest usable weight. A partition that is assigned but absent
 * from `partitions` joins without a weight, so both sides of the ratio weigh the same set.
 */
export function resolveWeights(
  members: ReadonlyArray<ObservedMember>,
  partitions: ReadonlyArray<WeightedPartition>,
  defaultWeight: number,
): ResolvedWeights {
  const table = weightTable(partitions);
  for (const m of members) for (const p of m.assigned) table.add(p.topic, p.partition, undefined);
  const all: WeightedPartition[] = [];
  table.forEach((topic, partition, weight) => {
    all.push(weight === undefined ? { topic, partition } : { topic, partition, weight });
  });
  return {
    partitions: all,
    weightOf: (p) => table.weightOf(p.topic, p.partition) ?? defaultWeight,
    usableCount: table.usableCount,
  };
}

/**
 * The current assignment's largest instance load per unit of capacity. An instance's capacity is
 * the largest its members report (what `balance()` uses); a partition held twice, as can happen
 * only in a broken assignment, counts twice.
 */
export function currentMaxInstanceLoad(
  members: ReadonlyArray<ObservedMember>,
  weightOf: (partition: TopicPartition) => number,
): number {
  const capacity = instanceCapacities(members);
  const load = new Map<string, number>();
  for (const m of members) {
    let sum = load.get(m.instanceId) ?? 0;
    for (const p of m.assigned) sum += weightOf(p);
    load.set(m.instanceId, sum);
  }
  let max = 0;
  for (const [instanceId, sum] of load) max = Math.max(max, sum / capacity.get(instanceId)!);
  return max;
}

/** The current placement as `balance()`'s `previous` input: member id → partitions. */
export function currentAssignment(members: ReadonlyArray<ObservedMember>): Map<string, TopicPartition[]> {
  return new Map(members.map((m) => [m.memberId, m.assigned.map((p) => ({ topic: p.topic, partition: p.partition }))]));
}

/**
 * A canonical text of who holds what, independent of listing order: two checks that see the same
 * fingerprint saw the same assignment.
 */
export function assignmentFingerprint(members: ReadonlyArray<ObservedMember>): string {
  return members
    .map((m) => `${m.memberId}=${m.assigned.map(keyOf).sort().join(',')}`)
    .sort()
    .join('\n');
}

/** Number of distinct instances among the members. */
export function instanceCount(members: ReadonlyArray<ObservedMember>): number {
  return new Set(members.map((m) => m.instanceId)).size;
}

/** Every partition some member holds, once: the partitions a check weighs. */
export function heldPartitions(members: ReadonlyArray<ObservedMember>): TopicPartition[] {
  const seen = new Map<string, TopicPartition>();
  for (const m of members) {
    for (const p of m.assigned) seen.set(keyOf(p), { topic: p.topic, partition: p.partition });
  }
  return [...seen.values()];
}

/**
 * Attaches a source's weights to `partitions`, resolving a partition reported twice the way the
 * leader does; partitions it did not report stay weightless.
 */
export function withWeights(
  partitions: ReadonlyArray<TopicPartition>,
  weights: ReadonlyArray<{ topic: string; partition: number; weight: number }>,
): WeightedPartition[] {
  const table = weightTable(weights);
  return partitions.map((p) => {
    const weight = table.weightOf(p.topic, p.partition);
    return weight === undefined ? p : { ...p, weight };
  });
}

/** The assignor options a plan of the current assignment is computed with. */
export interface PlanOptions {
  readonly defaultWeight: number;
  readonly moveTolerance?: number | undefined;
  readonly maxMovesPerRebalance?: number | undefined;
}

/**
 * What `balance()` makes of the group now, starting from the current placement as `previous`
 * (so stickiness and the local search are exactly the leader's), and the current assignment's
 * busiest instance load in the plan's units: `balance()` scales weights whose sum would
 * overflow, and the two compare like with like only if the current load is scaled the same way.
 * The trigger judges with it; the CLI shows it.
 */
export function planFromCurrent(
  members: ReadonlyArray<ObservedMember>,
  weights: ResolvedWeights,
  options: PlanOptions,
): { readonly plan: BalanceResult; readonly currentMaxLoad: number } {
  const plan = balance(
    {
      members: members.map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        topics: m.topics,
        capacity: m.capacity,
      })),
      partitions: weights.partitions,
      previous: currentAssignment(members),
    },
    {
      defaultWeight: options.defaultWeight,
      ...(options.moveTolerance === undefined ? {} : { moveTolerance: options.moveTolerance }),
      ...(options.maxMovesPerRebalance === undefined ? {} : { maxMovesPerRebalance: options.maxMovesPerRebalance }),
    },
  );
  const scale = plan.weightScale;
  return { plan, currentMaxLoad: currentMaxInstanceLoad(members, (p) => weights.weightOf(p) * scale) };
}
