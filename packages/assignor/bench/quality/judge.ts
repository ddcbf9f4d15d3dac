import type { TopicPartition } from '@load-aware/assignor';
import type { QualityCase } from './suite.js';

/** Partitions per member, as every contender's result is decoded. */
export type Assignment = ReadonlyMap<string, ReadonlyArray<TopicPartition>>;

/** How one assignment of a case scores, judged independently of the code that produced it. */
export interface Score {
  /** Largest instance load per unit of capacity. */
  readonly maxLoad: number;
  /** Partitions given to non-subscribers, given twice, or not at all (KafkaJS's round-robin ignores subscriptions). */
  readonly invalid: number;
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${String(partition)}`;
}

/** Sums `weights` (default: the case's own) per instance and checks every partition is placed once on a subscriber. */
export function score(c: QualityCase, assignment: Assignment, weights?: ReadonlyMap<string, number>): Score {
  const weightOf = weights ?? new Map(c.partitions.map((p) => [key(p.topic, p.partition), p.weight]));
  const memberById = new Map(c.members.map((m) => [m.memberId, m]));
  const load = new Map<string, number>();
  const seen = new Set<string>();
  let invalid = 0;
  for (const [memberId, partitions] of assignment) {
    const member = memberById.get(memberId);
    if (member === undefined) throw new Error(`Assignment names an unknown member: ${memberId}`);
    let sum = load.get(member.instanceId) ?? 0;
    for (const p of partitions) {
      const k = key(p.topic, p.partition);
      if (seen.has(k) || !member.topics.includes(p.topic)) invalid++;
      seen.add(k);
      sum += weightOf.get(k) ?? 0;
    }
    load.set(member.instanceId, sum);
  }
  invalid += c.partitions.length - seen.size;
  const capacity = new Map(c.members.map((m) => [m.instanceId, m.capacity ?? 1]));
  let maxLoad = 0;
  for (const [instance, sum] of load) maxLoad = Math.max(maxLoad, sum / capacity.get(instance)!);
  return { maxLoad, invalid };
}

/** Weights of a case as a lookup, optionally scaled per partition (for noise). */
export function weightMap(c: QualityCase, scale?: (index: number) => number): Map<string, number> {
  return new Map(c.partitions.map((p, i) => [key(p.topic, p.partition), p.weight * (scale?.(i) ?? 1)]));
}

/** Partitions whose member differs between two assignments, among those `before` placed. */
export function moved(before: Assignment, after: Assignment): number {
  const owner = new Map<string, string>();
  for (const [memberId, partitions] of after)
    for (const p of partitions) owner.set(key(p.topic, p.partition), memberId);
  let count = 0;
  for (const [memberId, partitions] of before) {
    for (const p of partitions) if (owner.get(key(p.topic, p.partition)) !== memberId) count++;
  }
  return count;
}
