import type { PartitionWeight, TopicPartition } from '@load-aware/assignor';
import { median as medianOf, PartitionMap } from '@load-aware/assignor/internal';

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
  /** Per partition of `asked`, at the same position: its own weight, undefined when unmeasured. */
  readonly own: ReadonlyArray<number | undefined>;
}

/** The partition's weight, or undefined when it has none. */
export type WeightOf = (topic: string, partition: number) => number | undefined;

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
  weightOf: WeightOf,
  unmeasured: UnmeasuredWeight,
): WeightAnswer {
  // A PartitionMap, not string keys: this runs on every partition asked for (10,000 of them in
  // a first call), inside the caller's time box.
  const seen = new PartitionMap<true>();
  const asked: TopicPartition[] = [];
  const own: Array<number | undefined> = [];
  for (const candidate of partitions) {
    if (!isTopicPartition(candidate)) continue;
    const { topic, partition } = candidate;
    if (seen.get(topic, partition) !== undefined) continue;
    seen.set(topic, partition, true);
    asked.push({ topic, partition });
    own.push(usable(weightOf(topic, partition)));
  }
  return assemble(asked, own, unmeasured);
}

/**
 * The same answer once more partitions may have weights: only its unmeasured partitions are
 * asked again, the measured ones keep the weight they were answered with. Returns `answer`
 * itself when none of them has a weight now, so a call that waited for nothing pays nothing.
 */
export function completeAnswer(answer: WeightAnswer, weightOf: WeightOf, unmeasured: UnmeasuredWeight): WeightAnswer {
  let own: Array<number | undefined> | undefined;
  for (let i = 0; i < answer.asked.length; i++) {
    if (answer.own[i] !== undefined) continue;
    const { topic, partition } = answer.asked[i]!;
    const weight = usable(weightOf(topic, partition));
    if (weight === undefined) continue;
    own ??= [...answer.own];
    own[i] = weight;
  }
  return own === undefined ? answer : assemble(answer.asked, own, unmeasured);
}

/** Measured partitions in the order asked, then the filled ones. */
function assemble(
  asked: ReadonlyArray<TopicPartition>,
  own: ReadonlyArray<number | undefined>,
  unmeasured: UnmeasuredWeight,
): WeightAnswer {
  const weights: PartitionWeight[] = [];
  const missing: TopicPartition[] = [];
  for (let i = 0; i < asked.length; i++) {
    const { topic, partition } = asked[i]!;
    const weight = own[i];
    if (weight === undefined) missing.push({ topic, partition });
    else weights.push({ topic, partition, weight });
  }
  const measured = weights.length;
  const median = unmeasured === 'median' ? medianOf(weights.map((w) => w.weight)) : undefined;
  if (median !== undefined) for (const p of missing) weights.push({ ...p, weight: median });
  return {
    weights,
    asked,
    measured,
    filled: median === undefined ? 0 : missing.length,
    unmeasured: missing,
    own,
  };
}

function usable(weight: number | undefined): number | undefined {
  return weight !== undefined && Number.isFinite(weight) && weight >= 0 ? weight : undefined;
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
