import type { BalanceMember, TopicPartition, WeightedPartition } from '@load-aware/assignor';

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
