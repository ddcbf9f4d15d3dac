import type { WeightedPartition } from './types.js';
import { comparePartitions } from './order.js';

/** A partition with its effective weight resolved, ready for placement. */
export interface ResolvedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly weight: number;
  readonly defaulted: boolean;
}

/** True when `weight` can be used as is: a finite, non-negative number. */
export function isUsableWeight(weight: unknown): weight is number {
  return typeof weight === 'number' && Number.isFinite(weight) && weight >= 0;
}

/**
 * Resolves every partition's effective weight and orders them heaviest first, ties by topic then
 * partition, so the placement never depends on the caller's input order. A partition listed twice
 * keeps its largest usable weight (a rule with no order in it), so duplicates cannot double-count
 * load; it is defaulted only when no entry has a usable weight.
 */
export function resolvePartitions(
  partitions: ReadonlyArray<WeightedPartition>,
  defaultWeight: number,
): ResolvedPartition[] {
  // Nested maps rather than string keys: this runs on every partition of the group.
  const byTopic = new Map<string, Map<number, number>>();
  for (const p of partitions) {
    let byPartition = byTopic.get(p.topic);
    if (byPartition === undefined) byTopic.set(p.topic, (byPartition = new Map<number, number>()));
    // -1 stands for "no usable weight"; -0 is usable but must not leak (it would make a partition
    // listed as 0 and as -0 report an input-order-dependent sign).
    const weight = isUsableWeight(p.weight) ? (p.weight === 0 ? 0 : p.weight) : -1;
    const existing = byPartition.get(p.partition);
    if (existing === undefined || weight > existing) byPartition.set(p.partition, weight);
  }
  const resolved: ResolvedPartition[] = [];
  for (const [topic, byPartition] of byTopic) {
    for (const [partition, weight] of byPartition) {
      resolved.push({
        topic,
        partition: partition === 0 ? 0 : partition,
        weight: weight >= 0 ? weight : defaultWeight,
        defaulted: weight < 0,
      });
    }
  }
  return resolved.sort((a, b) => b.weight - a.weight || comparePartitions(a, b));
}

/** A map key for one partition; `\u0000` cannot appear in a Kafka topic name. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${String(partition)}`;
}
