import type { TopicPartition, WeightedPartition } from '../core/types.js';
import { isUsableWeight, weightTable } from '../core/model/weights.js';

/** A weight source's answer for one partition, as `fetchWeights` hands it on. */
interface ReportedWeight {
  readonly topic: string;
  readonly partition: number;
  readonly weight: number;
}

/**
 * Attaches the source's weights to the partitions being assigned; others keep no weight. A
 * partition reported several times gets what `PartitionWeightTable` resolves (its largest usable
 * weight), the rule the trigger applies to the same source's answer.
 *
 * Sources typically answer one entry per partition, in the order they were asked: that case is
 * recognised in one pass and merged without a table, which at 100k partitions is most of the cost.
 */
export function mergeWeights(
  partitions: ReadonlyArray<RackedPartition>,
  weights: ReadonlyArray<ReportedWeight>,
): WeightedPartition[] {
  if (answersInOrder(partitions, weights)) {
    return partitions.map((p, i) => {
      const weight = weights[i]!.weight;
      // What the table resolves for a partition reported once: the weight when usable (-0 as
      // 0), else none.
      return isUsableWeight(weight) ? withWeight(p, weight === 0 ? 0 : weight) : p;
    });
  }
  const table = weightTable(weights);
  return partitions.map((p) => {
    const weight = table.weightOf(p.topic, p.partition);
    return weight === undefined ? p : withWeight(p, weight);
  });
}

// Explicit fields, not a spread: at 100k partitions the spread alone costs ~100 ms and gives the
// objects a different shape from the unweighted ones, which slows the sorts that follow.
function withWeight(p: RackedPartition, weight: number): WeightedPartition {
  return p.racks === undefined
    ? { topic: p.topic, partition: p.partition, weight }
    : { topic: p.topic, partition: p.partition, weight, racks: p.racks };
}

/** A partition as listed for an assignment: with the racks of its replicas when they are known. */
type RackedPartition = TopicPartition & Pick<WeightedPartition, 'racks'>;

/**
 * True when `weights[i]` reports `partitions[i]` for every i and no partition is listed twice, so
 * that each partition has exactly one report, its own. Distinctness is checked the way listings
 * come: each topic in one run of strictly ascending partition numbers (Kafka's own order), every
 * run a different topic. Anything else (a duplicate, another order) is left to the general path.
 */
export function answersInOrder(
  partitions: ReadonlyArray<TopicPartition>,
  weights: ReadonlyArray<{ readonly topic: string; readonly partition: number }>,
): boolean {
  if (weights.length !== partitions.length) return false;
  const runs = new Set<string>();
  let topic: string | undefined;
  let last = 0;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i]!;
    const w = weights[i]!;
    // Object.is: a -0 report of partition 0 is the same partition to the table, but not worth a
    // special case here.
    if (w.topic !== p.topic || !Object.is(w.partition, p.partition)) return false;
    if (p.topic !== topic) {
      if (runs.has(p.topic)) return false;
      runs.add(p.topic);
      topic = p.topic;
    } else if (!(p.partition > last)) {
      return false;
    }
    last = p.partition;
  }
  return true;
}
