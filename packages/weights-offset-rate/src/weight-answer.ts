import type { PartitionWeight, TopicPartition } from '@load-aware/assignor';
import { median as medianOf, partitionKey } from '@load-aware/assignor/internal';

/** What a partition without a measured weight gets: nothing (the assignor's default) or the median. */
export type UnmeasuredWeight = 'omit' | 'median';

/** An answer to `getWeights()` and how it was made up. */
export interface WeightAnswer {
  readonly weights: PartitionWeight[];
  /** Distinct valid partitions asked for. */
  readonly asked: ReadonlyArray<TopicPartition>;
  /** Partitions answered with their own measured weight. */
  readonly measured: number;
  /** Partitions answered with the median of the measured ones. */
  readonly filled: number;
  /** Distinct valid partitions without a weight of their own (left out, or filled). */
  readonly unmeasured: ReadonlyArray<TopicPartition>;
}

/**
 * Builds the answer for `partitions` from per-partition weights. Each partition stands alone: a
 * malformed entry is skipped and an unmeasured one is left out (or filled), so one bad partition
 * never costs the others their weights. Duplicates are answered once.
 *
 * With `median`, unmeasured partitions get the median of the weights measured *in this call*
 * (the group's own distribution, in its own unit): a fixed 1.0 is unit-dependent and, next to
 * rates in the thousands, makes a partition look free, so it would pile onto one instance.
 * Nothing is filled when nothing was measured.
 */
export function answerWeights(
  partitions: ReadonlyArray<unknown>,
  weightOf: (topic: string, partition: number) => number | undefined,
  unmeasured: UnmeasuredWeight,
): WeightAnswer {
  const seen = new Set<string>();
  const asked: TopicPartition[] = [];
  const weights: PartitionWeight[] = [];
  const missing: TopicPartition[] = [];
  for (const candidate of partitions) {
    if (!isTopicPartition(candidate)) continue;
    const { topic, partition } = candidate;
    const key = partitionKey(topic, partition);
    if (seen.has(key)) continue;
    seen.add(key);
    asked.push({ topic, partition });
    const weight = weightOf(topic, partition);
    if (weight !== undefined && Number.isFinite(weight) && weight >= 0) weights.push({ topic, partition, weight });
    else missing.push({ topic, partition });
  }
  const measured = weights.length;
  const median = unmeasured === 'median' ? medianOf(weights.map((w) => w.weight)) : undefined;
  if (median !== undefined) for (const p of missing) weights.push({ ...p, weight: median });
  return { weights, asked, measured, filled: median === undefined ? 0 : missing.length, unmeasured: missing };
}

function isTopicPartition(value: unknown): value is TopicPartition {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const partition = v['partition'];
  return (
    typeof v['topic'] === 'string' &&
    v['topic'] !== '' &&
    typeof partition === 'number' &&
    Number.isInteger(partition) &&
    partition >= 0
  );
}
