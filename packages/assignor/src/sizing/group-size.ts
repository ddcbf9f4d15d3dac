/**
 * How many consumers a group needs, and when more cannot help.
 *
 * A member's capacity is the load it can carry at 100% busy, in the weights' own units (events/s
 * with offset-rate weights). A group of N members is big enough when `balance()` places the
 * measured weights so that no member carries more than `targetUtilization` × capacity. The answer
 * comes from the placement itself, not from a ratio of sums: a ratio of sums says 3 members for
 * three partitions of 60 + 60 + 60 at a capacity of 100 (180 ÷ 70), where every member can hold
 * only one of them within 70.
 *
 * More members never help a partition heavier than one member's target load: it is consumed by
 * one member at a time. Such a group is **futile** to scale out; it needs more partitions, a faster
 * handler or a larger member.
 */
import { balance } from '../core/balance.js';
import type { BalanceMember, TopicPartition, WeightedPartition } from '../core/types.js';

/** The default share of a member's capacity a sized group may use: room for bursts and catch-up. */
export const DEFAULT_TARGET_UTILIZATION = 0.7;

/** What {@link sizeGroup} sizes. */
export interface GroupSizeInput {
  /** Every partition the group consumes, with its measured weight (rate). */
  readonly partitions: ReadonlyArray<WeightedPartition>;
  /** What one member processes at 100% busy, in the weights' units. */
  readonly memberCapacity: number;
  /** Share of `memberCapacity` a member may use; default {@link DEFAULT_TARGET_UTILIZATION}. */
  readonly targetUtilization?: number;
  /** Members each instance (process, pod) runs; default 1. */
  readonly membersPerInstance?: number;
}

/** The group a placement at some size gives. */
export interface SizedPlacement {
  readonly instances: number;
  readonly members: number;
  /** The busiest member's load ÷ `memberCapacity`. */
  readonly busiestUtilization: number;
}

/** What {@link sizeGroup} answers. */
export interface GroupSize {
  /** `targetUtilization` × `memberCapacity`: the most a member of a sized group carries. */
  readonly targetLoad: number;
  /** The fewest members (one an instance) whose placement keeps every member at the target. */
  readonly desiredMembers: number;
  /** The fewest instances of `membersPerInstance` members that do the same. */
  readonly desiredInstances: number;
  /**
   * True when some partition alone is heavier than `targetLoad`: the desired counts then stop
   * where that partition is the busiest member's whole load, and more consumers cannot help.
   */
  readonly futile: boolean;
  /** The partitions heavier than `targetLoad`, heaviest first. */
  readonly futilePartitions: ReadonlyArray<TopicPartition & { readonly weight: number }>;
  /** The placement at `desiredInstances`. */
  readonly atDesired: SizedPlacement;
}

/**
 * The smallest group that holds the measured load at the target utilization (see the file
 * comment). Searches instance counts from the lower bound (total load ÷ what an instance may carry)
 * upwards, doubling, then halving back to the smallest count that fits; at most one member per
 * partition is ever tried.
 *
 * @throws RangeError when `memberCapacity` is not a positive finite number, `targetUtilization`
 * is outside (0, 1] or `membersPerInstance` is not a positive integer.
 */
export function sizeGroup(input: GroupSizeInput): GroupSize {
  const utilization = input.targetUtilization ?? DEFAULT_TARGET_UTILIZATION;
  const perInstance = input.membersPerInstance ?? 1;
  if (!(Number.isFinite(input.memberCapacity) && input.memberCapacity > 0))
    throw new RangeError(`memberCapacity must be a positive number, got ${String(input.memberCapacity)}`);
  if (!(utilization > 0 && utilization <= 1))
    throw new RangeError(`targetUtilization must be in (0, 1], got ${String(utilization)}`);
  if (!(Number.isInteger(perInstance) && perInstance >= 1))
    throw new RangeError(`membersPerInstance must be a positive integer, got ${String(perInstance)}`);

  const targetLoad = utilization * input.memberCapacity;
  // Within rounding of the target is at the target: the same load in other units (events/s at a
  // derived capacity, or busy seconds at 1) must not turn futile on the last bit of a product.
  const overTarget = targetLoad * (1 + 1e-9);
  const weights = input.partitions.map((p) => usable(p.weight));
  const futilePartitions = input.partitions
    .map((p, i) => ({ topic: p.topic, partition: p.partition, weight: weights[i]! }))
    .filter((p) => p.weight > overTarget)
    .sort((a, b) => b.weight - a.weight || a.topic.localeCompare(b.topic) || a.partition - b.partition);
  const heaviest = Math.max(0, ...weights);
  // A futile group is as good as it gets once its heaviest partition is a member's whole load.
  const limit = Math.max(targetLoad, heaviest) * (1 + 1e-9);
  const fits = (placement: SizedPlacement) => placement.busiestUtilization * input.memberCapacity <= limit;

  const total = weights.reduce((a, b) => a + b, 0);
  const smallest = (membersEach: number): SizedPlacement => {
    const most = Math.max(1, Math.ceil(input.partitions.length / membersEach));
    // No member carries more than the limit, so fewer than total ÷ (limit × members each) cannot do.
    const bound = Math.ceil((total / (limit * membersEach)) * (1 - 1e-9));
    let low = Math.min(most, Math.max(1, bound));
    let found = placementAt(input.partitions, low, membersEach, input.memberCapacity);
    if (fits(found)) return found;
    // Double until a count fits (or every member would hold at most one partition).
    let high = low;
    for (;;) {
      high = Math.min(most, high * 2);
      found = placementAt(input.partitions, high, membersEach, input.memberCapacity);
      if (fits(found) || high === most) break;
      low = high;
    }
    // Then the smallest count in (low, high] that fits.
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const tried = placementAt(input.partitions, middle, membersEach, input.memberCapacity);
      if (fits(tried)) {
        high = middle;
        found = tried;
      } else low = middle;
    }
    return found;
  };

  const byMember = smallest(1);
  const atDesired = perInstance === 1 ? byMember : smallest(perInstance);
  return {
    targetLoad,
    desiredMembers: byMember.members,
    desiredInstances: atDesired.instances,
    futile: futilePartitions.length > 0,
    futilePartitions,
    atDesired,
  };
}

/**
 * The placement `balance()` gives `partitions` on `instances` instances of `membersEach` members,
 * every member subscribed to every topic: what a group of that size would carry.
 */
export function placementAt(
  partitions: ReadonlyArray<WeightedPartition>,
  instances: number,
  membersEach: number,
  memberCapacity: number,
): SizedPlacement {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  const members: BalanceMember[] = [];
  for (let i = 0; i < instances; i++) {
    for (let m = 0; m < membersEach; m++) {
      members.push({ memberId: `sized-${String(i)}-${String(m)}`, instanceId: `sized-${String(i)}`, topics });
    }
  }
  const result = balance({
    members,
    partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, weight: usable(p.weight) })),
  });
  const busiest = Math.max(0, ...result.members.map((m) => m.load)) / result.weightScale;
  return { instances, members: members.length, busiestUtilization: busiest / memberCapacity };
}

/** A weight as sizing counts it: unmeasured, negative or not finite counts as nothing. */
function usable(weight: number | null | undefined): number {
  return typeof weight === 'number' && Number.isFinite(weight) && weight > 0 ? weight : 0;
}
