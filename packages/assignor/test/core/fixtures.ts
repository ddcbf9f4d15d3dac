import fc from 'fast-check';
import type { BalanceInput, BalanceMember, TopicPartition, WeightedPartition } from '@load-aware/assignor';
import { buildProblem, type Problem } from '../../src/core/model/problem.js';

/** A member of `instanceId` subscribed to `topics`, optionally declaring its instance's capacity. */
export function member(memberId: string, instanceId: string, topics: string[], capacity?: number): BalanceMember {
  return capacity === undefined ? { memberId, instanceId, topics } : { memberId, instanceId, topics, capacity };
}

/** Partitions 0..n-1 of `topic`, partition i weighing `weights[i]`. */
export function weighted(topic: string, weights: ReadonlyArray<number | null | undefined>): WeightedPartition[] {
  return weights.map((weight, partition) => ({ topic, partition, weight }));
}

/** `count` partitions of `topic` that all weigh `weight`. */
export function uniform(topic: string, count: number, weight: number | undefined): WeightedPartition[] {
  return weighted(
    topic,
    Array.from({ length: count }, () => weight),
  );
}

/** A compact, comparable label for a partition: `topic-partition`. */
export function label(p: TopicPartition): string {
  return `${p.topic}-${String(p.partition)}`;
}

/** Each member's partitions as labels, keyed by member id in the map's order. */
export function labels(assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [memberId, partitions] of assignments) out[memberId] = partitions.map(label);
  return out;
}

/** A map key for one partition, independent of the core's own helper. */
export function keyOf(p: TopicPartition): string {
  return JSON.stringify([p.topic, p.partition]);
}

/**
 * The worked example of the README and the result tests: two instances, one topic everyone reads,
 * one only a1 reads (with an unusable weight), and a topic nobody subscribes to.
 */
export const HAND_COMPUTED_EXAMPLE: BalanceInput = {
  members: [member('b1', 'B', ['orders']), member('a2', 'A', ['orders']), member('a1', 'A', ['orders', 'audit'])],
  partitions: [
    ...weighted('orders', [8, 5, 4, 3]),
    { topic: 'audit', partition: 0, weight: null },
    { topic: 'audit', partition: 1, weight: 2 },
    { topic: 'ghost', partition: 0, weight: 9 },
  ],
};

/** Members of `instancePool` with unique short ids, as the property tests draw them. */
export function uniqueMembersArb(
  instancePool: ReadonlyArray<string>,
): fc.Arbitrary<Array<{ memberId: string; instanceId: string }>> {
  return fc.uniqueArray(
    fc.record({ memberId: fc.string({ minLength: 1, maxLength: 6 }), instanceId: fc.constantFrom(...instancePool) }),
    { minLength: 1, maxLength: 30, selector: (m) => m.memberId },
  );
}

/** A group plus the same members and partitions in another order. */
export function withShuffledCopies<M, P>(group: fc.Arbitrary<[M[], P[]]>): fc.Arbitrary<[M[], P[], M[], P[]]> {
  return group.chain(([members, partitions]) =>
    fc.tuple(
      fc.constant(members),
      fc.constant(partitions),
      fc.shuffledSubarray(members, { minLength: members.length, maxLength: members.length }),
      fc.shuffledSubarray(partitions, { minLength: partitions.length, maxLength: partitions.length }),
    ),
  );
}

/**
 * A one-level problem for the core's stages: items of one topic weighing `weights` (heaviest
 * first, as a problem's items are) on `binCount` bins of capacity 1, every bin eligible.
 */
export function oneTopicProblem(weights: ReadonlyArray<number>, binCount: number): Problem {
  const weight = Float64Array.from(weights);
  const bins = Int32Array.from({ length: binCount }, (_, b) => b);
  return buildProblem({
    capacity: new Float64Array(binCount).fill(1),
    weight,
    tieWeight: 1,
    topic: new Int32Array(weight.length),
    topicCount: 1,
    binsOf: () => bins,
  });
}
