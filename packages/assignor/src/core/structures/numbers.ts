/**
 * Numeric rules shared by the balancer, its summary and the weight sources, so that "equal
 * enough" and "the middle value" mean the same everywhere.
 */

/**
 * Loads within this fraction of each other count as equal. Sums of floating-point weights differ
 * in their last bits with the order they were added in; without a tolerance, a search would chase
 * improvements that are only rounding, and a summary would report a lower bound a hair above the
 * load it bounds.
 */
export const RELATIVE_EPS = 1e-9;

/**
 * The float-noise allowance for comparing levels near `level`: {@link RELATIVE_EPS} of that level,
 * not of the busiest one. Rounding in a sum scales with the sum itself; scaling the allowance with
 * the largest load in the group instead made whole units of load among the lighter bins count as
 * noise next to one dominant bin (a partition 1e10 times heavier), so nothing was moved to them.
 */
export function noiseAt(level: number): number {
  return RELATIVE_EPS * Math.abs(level);
}

/** The median (mean of the two middle values for an even count), undefined for none. */
export function median(values: ArrayLike<number>): number | undefined {
  if (values.length === 0) return undefined;
  // A typed array sorts numerically without a comparator, several times faster on 100k values.
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
