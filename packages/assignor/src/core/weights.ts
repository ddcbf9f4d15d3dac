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
 * keeps its first usable weight (in a canonical order), so duplicates cannot double-count load.
 */
export function resolvePartitions(
  partitions: ReadonlyArray<WeightedPartition>,
  defaultWeight: number,
): ResolvedPartition[] {
  const byKey = new Map<string, ResolvedPartition>();
  // Canonical order first, so which duplicate "wins" is independent of input order.
  const canonical = [...partitions].sort((a, b) => comparePartitions(a, b) || compareRawWeights(a.weight, b.weight));
  for (const p of canonical) {
    const key = partitionKey(p.topic, p.partition);
    const usable = isUsableWeight(p.weight);
    const existing = byKey.get(key);
    if (existing !== undefined && (!existing.defaulted || !usable)) continue;
    byKey.set(key, {
      topic: p.topic,
      partition: p.partition,
      // -0 is usable but must not leak: a partition listed as 0 and as -0 would otherwise report
      // an input-order-dependent sign (e.g. in the median), breaking determinism under Object.is.
      weight: usable ? (p.weight === 0 ? 0 : p.weight) : defaultWeight,
      defaulted: !usable,
    });
  }
  return [...byKey.values()].sort((a, b) => b.weight - a.weight || comparePartitions(a, b));
}

/** A map key for one partition; `\u0000` cannot appear in a Kafka topic name. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${String(partition)}`;
}

/** Orders raw weight values deterministically (usable ones first, larger first). */
function compareRawWeights(a: unknown, b: unknown): number {
  const ua = isUsableWeight(a);
  const ub = isUsableWeight(b);
  if (ua && ub) return b - a;
  return Number(ub) - Number(ua);
}
