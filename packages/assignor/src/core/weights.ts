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
 * What one partition's weight is when a source reports it several times: its largest usable
 * weight, a rule with no order in it, so duplicates can neither double-count load nor make the
 * result depend on listing order. Entries without a usable weight only make the partition known.
 * The leader (before `balance()`), `balance()` itself and the trigger all resolve weights through
 * this table, so they always judge the same numbers.
 */
export class PartitionWeightTable {
  // Nested maps rather than string keys: this runs on every partition of the group. -1 stands for
  // "known, no usable weight".
  private readonly byTopic = new Map<string, Map<number, number>>();
  private usable = 0;

  /** Records one report of a partition's weight; any value is accepted, unusable ones count as none. */
  add(topic: string, partition: number, weight: unknown): void {
    let byPartition = this.byTopic.get(topic);
    if (byPartition === undefined) this.byTopic.set(topic, (byPartition = new Map<number, number>()));
    // -0 is usable but must not leak: a partition listed as 0 and as -0 would report an
    // input-order-dependent sign.
    const value = isUsableWeight(weight) ? (weight === 0 ? 0 : weight) : -1;
    const key = partition === 0 ? 0 : partition;
    const existing = byPartition.get(key);
    if (existing !== undefined && existing >= value) return;
    if (value >= 0 && (existing === undefined || existing < 0)) this.usable++;
    byPartition.set(key, value);
  }

  /** The partition's resolved weight; undefined when it was never reported with a usable one. */
  weightOf(topic: string, partition: number): number | undefined {
    const value = this.byTopic.get(topic)?.get(partition === 0 ? 0 : partition);
    return value === undefined || value < 0 ? undefined : value;
  }

  /** How many distinct partitions have a usable weight. */
  get usableCount(): number {
    return this.usable;
  }

  /** Calls `visit` once per reported partition with its resolved weight (undefined when none). */
  forEach(visit: (topic: string, partition: number, weight: number | undefined) => void): void {
    for (const [topic, byPartition] of this.byTopic) {
      for (const [partition, value] of byPartition) visit(topic, partition, value < 0 ? undefined : value);
    }
  }
}

/** A {@link PartitionWeightTable} of `entries`; an entry without `weight` only makes its partition known. */
export function weightTable(
  entries: Iterable<{ readonly topic: string; readonly partition: number; readonly weight?: unknown }>,
): PartitionWeightTable {
  const table = new PartitionWeightTable();
  for (const e of entries) table.add(e.topic, e.partition, e.weight);
  return table;
}

/**
 * Resolves every partition's effective weight (see {@link PartitionWeightTable}; a partition with
 * no usable weight gets `defaultWeight`) and orders them heaviest first, ties by topic then
 * partition, so the placement never depends on the caller's input order.
 */
export function resolvePartitions(
  partitions: ReadonlyArray<WeightedPartition>,
  defaultWeight: number,
): ResolvedPartition[] {
  const resolved: ResolvedPartition[] = [];
  weightTable(partitions).forEach((topic, partition, weight) => {
    resolved.push({ topic, partition, weight: weight ?? defaultWeight, defaulted: weight === undefined });
  });
  return resolved.sort((a, b) => b.weight - a.weight || comparePartitions(a, b));
}
