import { PartitionMap } from '../structures/partition-map.js';

/** True when `weight` can be used as is: a finite, non-negative number. */
export function isUsableWeight(weight: unknown): weight is number {
  return typeof weight === 'number' && Number.isFinite(weight) && weight >= 0;
}

/**
 * A partition reported several times weighs its largest usable weight: an order-free rule, so duplicates
 * neither double-count nor depend on listing order. Entries without a usable weight only make it known. The
 * leader, `balance()` and the trigger all resolve weights here, so they judge the same numbers.
 */
export class PartitionWeightTable {
  // A PartitionMap, not string keys: this runs on every partition. -1 is "known, no usable weight".
  private readonly values = new PartitionMap<number>();
  private usable = 0;

  /** Records one report of a partition's weight; any value is accepted, unusable ones count as none. */
  add(topic: string, partition: number, weight: unknown): void {
    // -0 must not leak: a partition listed as 0 and -0 would report an input-order-dependent sign.
    const value = isUsableWeight(weight) ? (weight === 0 ? 0 : weight) : -1;
    const existing = this.values.get(topic, partition);
    if (existing !== undefined && existing >= value) return;
    if (value >= 0 && (existing === undefined || existing < 0)) this.usable++;
    this.values.set(topic, partition, value);
  }

  /** The partition's resolved weight; undefined when it was never reported with a usable one. */
  weightOf(topic: string, partition: number): number | undefined {
    const value = this.values.get(topic, partition);
    return value === undefined || value < 0 ? undefined : value;
  }

  /** How many distinct partitions have a usable weight. */
  get usableCount(): number {
    return this.usable;
  }

  /** Calls `visit` once per reported partition with its resolved weight (undefined when none). */
  forEach(visit: (topic: string, partition: number, weight: number | undefined) => void): void {
    this.values.forEach((topic, partition, value) => {
      visit(topic, partition, value < 0 ? undefined : value);
    });
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
 * Largest sum of weights the balancer works with: two finite weights near `Number.MAX_VALUE` add up to
 * Infinity, and Infinity / Infinity is NaN, which no comparison of loads survives. The margin below MAX_VALUE
 * (~1.8e308) leaves room for loads per unit of the smallest capacity (1e-3) times the largest (1e6).
 */
export const MAX_WEIGHT_SUM = 1e290;

/**
 * The power of two every weight is multiplied by so no sum of `count` weights of at most `heaviest` exceeds
 * {@link MAX_WEIGHT_SUM}; 1 for realistic weights. A power of two scales exactly, keeping ratios (only weights
 * below ~1e-290 of the heaviest can round to zero).
 */
export function weightScale(heaviest: number, count: number): number {
  let scale = 1;
  if (!(heaviest > 0) || heaviest <= MAX_WEIGHT_SUM / count) return scale;
  // Jump close with the logarithm, then step: log2 is not exact at the edges.
  scale = 2 ** -Math.max(0, Math.floor(Math.log2(heaviest) + Math.log2(count) - Math.log2(MAX_WEIGHT_SUM)));
  while (heaviest * scale > MAX_WEIGHT_SUM / count) scale /= 2;
  return scale;
}

/** How many partitions weigh more than zero: in model order (heaviest first), the idle ones start here. */
export function weightedCount(weight: Float64Array): number {
  let split = weight.length;
  while (split > 0 && !(weight[split - 1]! > 0)) split--;
  return split;
}
