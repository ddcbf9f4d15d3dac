/**
 * The latency-SLA benchmark's traffic: skewed per-partition produce rates of two shapes, in units
 * of one member's capacity so the group sizes they need follow from the shape alone. Rank k
 * (1-based, heaviest first) gets a share of the heaviest partition's rate:
 *
 * - `zipf`: 1 / k^s, the shape of the demo's traffic (traffic.ts);
 * - `lognormal`: the log-normal's (1 − (k − ½)/P) quantile, evenly spaced quantiles rather than
 *   random draws, so the shape has no sampling luck, only the placement does.
 *
 * Which partition holds which rank is a permutation drawn from a seed; the traffic shift rotates
 * that ranking by `shiftRanks` places (the same mix on other partitions), as the demo's hotspot
 * move does. Pure: no clock, no I/O.
 */
import { seededRandom } from '../traffic.js';

/** The two rate shapes. */
export type Shape = 'zipf' | 'lognormal';

/** Every shape, in the order the benchmark runs them. */
export const SHAPES: readonly Shape[] = ['zipf', 'lognormal'];

/** What shapes the traffic. */
export interface WorkloadOptions {
  shape: Shape;
  partitions: number;
  /** Messages/s one member processes at 100% busy: the unit the rates are scaled in. */
  memberRate: number;
  /** The heaviest partition's rate as a share of `memberRate`. */
  heaviestShare: number;
  /** Zipf exponent s (`zipf` only). */
  zipfExponent: number;
  /** σ of the log-normal (`lognormal` only). */
  sigma: number;
  /** Seed of the rank → partition permutation. */
  seed: number;
  /** Ranks the hotspot moves by at the traffic shift. */
  shiftRanks: number;
}

/** Per-partition rates (messages/s, index = partition) before and after the shift. */
export interface Workload {
  readonly shape: Shape;
  readonly before: readonly number[];
  readonly after: readonly number[];
  /** Sum of the rates (the same before and after). */
  readonly total: number;
  readonly memberRate: number;
  /** ⌈total ÷ memberRate⌉: no group smaller than this keeps up, whatever its assignment. */
  readonly lowerBound: number;
}

/** Builds both rankings of `options`' traffic. */
export function createWorkload(options: WorkloadOptions): Workload {
  const { shape, partitions, memberRate, heaviestShare, seed, shiftRanks } = options;
  if (!(Number.isInteger(partitions) && partitions >= 1)) throw new RangeError(`partitions ${String(partitions)}`);
  if (!(memberRate > 0 && heaviestShare > 0)) throw new RangeError('memberRate and heaviestShare must be > 0');
  const shares = rankShares(shape, partitions, options);
  const scale = (heaviestShare * memberRate) / shares[0]!;
  const byRank = permutation(partitions, seed);
  const place = (shift: number): number[] => {
    const rates = new Array<number>(partitions).fill(0);
    shares.forEach((share, rank) => {
      rates[byRank[(rank + shift) % partitions]!] = share * scale;
    });
    return rates;
  };
  const before = place(0);
  const total = before.reduce((a, b) => a + b, 0);
  return {
    shape,
    before,
    after: place(((shiftRanks % partitions) + partitions) % partitions),
    total,
    memberRate,
    // The slack keeps a total of exactly k members from rounding up to k + 1.
    lowerBound: Math.ceil((total / memberRate) * (1 - 1e-12)),
  };
}

/** Relative rates by rank, heaviest first (rank 1 is 1 for zipf). */
export function rankShares(
  shape: Shape,
  partitions: number,
  options: Pick<WorkloadOptions, 'zipfExponent' | 'sigma'>,
): number[] {
  return Array.from({ length: partitions }, (_, k) =>
    shape === 'zipf'
      ? 1 / Math.pow(k + 1, options.zipfExponent)
      : Math.exp(options.sigma * inverseNormal(1 - (k + 0.5) / partitions)),
  );
}

/** rank → partition, a Fisher–Yates shuffle driven by `seed` (the demo's, traffic.ts). */
export function permutation(size: number, seed: number): number[] {
  const random = seededRandom(seed);
  const order = Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
const A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
const LOW = 0.02425;

/** Horner's rule over `coefficients`, highest power first. */
function poly(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((sum, c) => sum * x + c, 0);
}

/** Φ⁻¹(p): the standard normal's p quantile, for 0 < p < 1. */
export function inverseNormal(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1), got ${String(p)}`);
  if (p < LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(C, q) / (poly(D, q) * q + 1);
  }
  if (p > 1 - LOW) return -inverseNormal(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(A, r) * q) / (poly(B, r) * r + 1);
}
