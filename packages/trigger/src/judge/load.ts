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
  mergeWeights,
  PartitionMap,
  siblingBaseLoads,
  siblingFingerprint,
  type SiblingReading,
  type BalanceResult,
  type ObservedMember,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import type { SiblingLoad } from '../contract/types.js';

export type { ObservedMember } from '@load-aware/assignor/internal';

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
  // Replica racks ride along (the leader's listing carries them): the plan must place with them too.
  let racks: PartitionMap<ReadonlyArray<string>> | undefined;
  for (const p of partitions) {
    if (p.racks === undefined || p.racks.length === 0) continue;
    (racks ??= new PartitionMap()).set(p.topic, p.partition, p.racks);
  }
  const all: WeightedPartition[] = [];
  table.forEach((topic, partition, weight) => {
    const r = racks?.get(topic, partition);
    const entry: WeightedPartition = weight === undefined ? { topic, partition } : { topic, partition, weight };
    all.push(r === undefined ? entry : { ...entry, racks: r });
  });
  return {
    partitions: all,
    weightOf: (p) => table.weightOf(p.topic, p.partition) ?? defaultWeight,
    usableCount: table.usableCount,
  };
}

/**
 * The current assignment's largest instance load per unit of capacity, each instance's base load
 * (from other groups) included. An instance's capacity is the largest its members report (what
 * `balance()` uses); a partition held twice, as can happen only in a broken assignment, counts twice.
 */
export function currentMaxInstanceLoad(
  members: ReadonlyArray<ObservedMember>,
  weightOf: (partition: TopicPartition) => number,
  baseLoadOf: (instanceId: string) => number = () => 0,
): number {
  const capacity = instanceCapacities(members);
  const load = new Map<string, number>();
  for (const m of members) if (!load.has(m.instanceId)) load.set(m.instanceId, baseLoadOf(m.instanceId));
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
 * leader does; partitions it did not report stay weightless. It is the leader's own merge, so the
 * two cannot drift apart.
 */
export const withWeights = mergeWeights;

/**
 * What the other groups of a cross-group set add, from one reading of them and the weights the
 * check got: the leader's own rule (`siblingBaseLoads`). A group is unavailable while it
 * rebalances (even with a recent reading: it is about to change) or when it could not be read at
 * all.
 */
export function siblingLoad(
  readings: ReadonlyArray<SiblingReading>,
  weights: ReadonlyArray<{ topic: string; partition: number; weight: number }>,
  defaultWeight: number,
): SiblingLoad {
  return {
    instanceBaseLoad: siblingBaseLoads(readings, weights, defaultWeight),
    fingerprint: siblingFingerprint(readings),
    unavailable: readings
      .filter((r) => r.status !== 'stable')
      .map((r) => ({ groupId: r.groupId, reason: r.reason ?? r.status })),
  };
}

/** The assignor options a plan of the current assignment is computed with. */
export interface PlanOptions {
  readonly defaultWeight: number;
  readonly moveTolerance?: number | undefined;
  readonly maxMovesPerRebalance?: number | undefined;
}

/**
 * What `balance()` makes of the group now, starting from the current placement as `previous`
 * (so stickiness and the local search are exactly the leader's), on top of the other groups' load
 * when `instanceBaseLoad` is given (cross-group), and the current assignment's busiest instance
 * load (combined, then) in the plan's units: `balance()` scales weights whose sum would
 * overflow, and the two compare like with like only if the current load is scaled the same way.
 * The trigger judges with it; the CLI shows it.
 */
export function planFromCurrent(
  members: ReadonlyArray<ObservedMember>,
  weights: ResolvedWeights,
  options: PlanOptions,
  instanceBaseLoad?: ReadonlyMap<string, number>,
): { readonly plan: BalanceResult; readonly currentMaxLoad: number } {
  const plan = planOf(members, weights, options, instanceBaseLoad);
  const scale = plan.weightScale;
  // The base loads exactly as balance() counted them (unusable ones as 0, scaled alike).
  const base = new Map(plan.instances.map((i) => [i.instanceId, i.baseLoad]));
  const currentMaxLoad = currentMaxInstanceLoad(
    members,
    (p) => weights.weightOf(p) * scale,
    (id) => base.get(id) ?? 0,
  );
  return { plan, currentMaxLoad };
}

/** `balance()` on the group as observed, with the current placement as `previous`. */
function planOf(
  members: ReadonlyArray<ObservedMember>,
  weights: ResolvedWeights,
  options: PlanOptions,
  instanceBaseLoad?: ReadonlyMap<string, number>,
): BalanceResult {
  return balance(
    {
      members: members.map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        topics: m.topics,
        capacity: m.capacity,
        ...(m.rack === undefined ? {} : { rack: m.rack }),
      })),
      partitions: weights.partitions,
      previous: currentAssignment(members),
      instanceBaseLoad,
    },
    {
      defaultWeight: options.defaultWeight,
      ...(options.moveTolerance === undefined ? {} : { moveTolerance: options.moveTolerance }),
      ...(options.maxMovesPerRebalance === undefined ? {} : { maxMovesPerRebalance: options.maxMovesPerRebalance }),
    },
  );
}

/**
 * The member-level judgement of one check: inside each instance, the busiest member now against
 * the busiest member of what `balance()` makes of that instance's own members and partitions.
 */
export interface MemberImbalance {
  /**
   * The largest, over instances with two members or more, of current ÷ planned busiest member
   * load; 1 when no instance has two members or no load.
   */
  readonly ratio: number;
  /** The instance with that ratio; undefined when no instance was judged. */
  readonly instanceId: string | undefined;
  /** Its busiest member's load now (in the plan's units). */
  readonly currentMaxLoad: number;
  /** Its busiest member's load after `balance()` re-places its partitions among its members. */
  readonly optimalMaxLoad: number;
}

/**
 * The position of each entry of `partitions`, by topic and partition number (a later entry for the
 * same partition wins). A PartitionMap, not nested Maps: this is built over every partition of
 * the group on every check.
 */
function positionsByPartition(partitions: ReadonlyArray<WeightedPartition>): PartitionMap<number> {
  const positions = new PartitionMap<number>();
  for (let i = 0; i < partitions.length; i++) positions.set(partitions[i]!.topic, partitions[i]!.partition, i);
  return positions;
}

/**
 * How unevenly members share their instance's partitions, judged against the leader itself: for
 * each instance, `balance()` runs on that instance's members and the partitions they hold now,
 * with those holders as `previous` and the assignor's settings. With one instance, `balance()`
 * moves nothing between instances and its member level is exactly the leader's (members of one
 * instance share its capacity equally, at twice the move tolerance), so the planned busiest member
 * is what a rebalance that keeps the instance split produces. Being sticky, that plan equals the
 * current placement whenever the leader would move nothing, so the ratio is then exactly 1: the
 * trigger can never fire for a member imbalance a rebalance would not improve.
 *
 * Instances are compared each to itself, never with each other: member loads are not divided by
 * capacity in `balance()`, and instance-level differences are the instance ratio's business.
 */
export function memberImbalance(
  members: ReadonlyArray<ObservedMember>,
  weights: ResolvedWeights,
  options: PlanOptions,
): MemberImbalance {
  const byInstance = new Map<string, ObservedMember[]>();
  for (const m of members) {
    const list = byInstance.get(m.instanceId);
    if (list === undefined) byInstance.set(m.instanceId, [m]);
    else list.push(m);
  }
  let worst: MemberImbalance = { ratio: 1, instanceId: undefined, currentMaxLoad: 0, optimalMaxLoad: 0 };
  // Each instance's partitions are looked up rather than filtered out of the whole list: a
  // filter per instance named every partition of the group once per instance (10 million string
  // keys for 100k partitions on 100 instances). balance() does not depend on their order.
  let positionOf: PartitionMap<number> | undefined;
  // takenBy[i] is the number of the last instance that took entry i: each instance lists an entry
  // once, however many of its members hold it, without a Set per instance.
  let takenBy: Int32Array | undefined;
  let judged = 0;
  // Sorted, so that equal ratios name the same instance on every check.
  for (const instanceId of [...byInstance.keys()].sort()) {
    const own = byInstance.get(instanceId)!;
    if (own.length < 2) continue;
    positionOf ??= positionsByPartition(weights.partitions);
    takenBy ??= new Int32Array(weights.partitions.length);
    judged++;
    const partitions: WeightedPartition[] = [];
    for (const m of own) {
      for (const p of m.assigned) {
        const position = positionOf.get(p.topic, p.partition);
        if (position === undefined || takenBy[position] === judged) continue;
        takenBy[position] = judged;
        partitions.push(weights.partitions[position]!);
      }
    }
    // balance() alone: the instance's current load, which planFromCurrent would add, is not used.
    const plan = planOf(own, { ...weights, partitions }, options);
    const scale = plan.weightScale;
    let current = 0;
    for (const m of own) {
      let sum = 0;
      for (const p of m.assigned) sum += weights.weightOf(p) * scale;
      current = Math.max(current, sum);
    }
    const optimal = Math.max(0, ...plan.members.map((m) => m.load));
    // No load, nothing to share: balanced. A NaN never passes `>` and so never wins.
    const ratio = optimal > 0 ? current / optimal : 1;
    if (ratio > worst.ratio) worst = { ratio, instanceId, currentMaxLoad: current, optimalMaxLoad: optimal };
  }
  return worst;
}
