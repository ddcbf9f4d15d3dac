/** Numeric rules shared by the balancer, its summary and the weight sources, so they mean the same everywhere. */

/**
 * Loads within this fraction of each other count as equal: float sums differ in their last bits with the
 * order of addition, and a search would otherwise chase rounding, a summary report a bound above its load.
 */
export const RELATIVE_EPS = 1e-9;

/**
 * The float-noise allowance near `level`: {@link RELATIVE_EPS} of that level, not of the busiest, as rounding
 * scales with the sum itself; scaled to a dominant bin, whole units among the lighter bins would count as noise.
 */
export function noiseAt(level: number): number {
  return RELATIVE_EPS * Math.abs(level);
}

/** The median (mean of the two middle values for an even count), undefined for none. */
export function median(values: ArrayLike<number>): number | undefined {
  if (values.length === 0) return undefined;
  // A typed array sorts numerically without a comparator: much faster on large inputs.
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
