/**
 * The bounded-lag rule of a sustainable-throughput probe (pure: numbers in, verdict out).
 *
 * A rate is sustainable when the consumers keep up with it: over the observation window, after
 * the group has settled, lag does not trend upward. Precisely, with every series fitted by least
 * squares (lag in messages against time in seconds):
 *
 * 1. growth ≤ `maxGrowthFraction` × rate, where growth is the sum of the positive slopes of the
 *    members' lags (each member's lag summed over the partitions it holds at the window's end).
 *    Per member, not the group total: a member that falls behind must not be hidden by the
 *    others still working off the start-up backlog (their slopes are negative, the total's can
 *    be too). With 1 %, a verdict of "bounded" means no member falls behind by more than one
 *    second of the offered traffic every 100 s;
 * 2. final lag ≤ `maxFinalLagSeconds` × rate: the group's total lag at the window's end (mean of
 *    the last samples, as lag saws up and down with every fetched batch) is under that many
 *    seconds of traffic. A safety net against a group that never got going (a rebalance storm,
 *    members stuck) while its slopes look flat;
 * 3. at least `minSamples` samples in the window.
 */

/** The thresholds of the rule. */
export interface LagRule {
  /** Largest allowed growth (msg/s of lag per s), as a fraction of the offered rate. */
  maxGrowthFraction: number;
  /** Largest allowed total lag at the window's end, in seconds of offered traffic. */
  maxFinalLagSeconds: number;
  /** Fewest samples a verdict is given on. */
  minSamples: number;
}

/** The rule the benchmark uses. */
export const LAG_RULE: Readonly<LagRule> = Object.freeze({
  maxGrowthFraction: 0.01,
  maxFinalLagSeconds: 10,
  minSamples: 8,
});

/** Samples averaged for the final lag. */
const FINAL_SAMPLES = 5;

/** Why a window was judged as it was; only `bounded` is sustainable. */
export type LagReason = 'bounded' | 'growing' | 'final-lag' | 'too-few-samples';

/** The verdict and the numbers it was made from. */
export interface LagVerdict {
  bounded: boolean;
  reason: LagReason;
  /** Least-squares slope of the total lag, msg/s (informational: the rule uses `growth`). */
  totalSlope: number;
  /** Sum of the positive per-member slopes, msg/s. */
  growth: number;
  growthLimit: number;
  finalLag: number;
  finalLagLimit: number;
  /** Slope of each member's lag, msg/s. */
  slopes: Record<string, number>;
  samples: number;
}

/** Least-squares slope of `y` against `t`; 0 for fewer than two distinct times. */
export function leastSquaresSlope(t: readonly number[], y: readonly number[]): number {
  const n = Math.min(t.length, y.length);
  if (n < 2) return 0;
  let meanT = 0;
  let meanY = 0;
  for (let i = 0; i < n; i++) {
    meanT += t[i]!;
    meanY += y[i]!;
  }
  meanT /= n;
  meanY /= n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    const dt = t[i]! - meanT;
    sxy += dt * (y[i]! - meanY);
    sxx += dt * dt;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

/**
 * Judges one observation window. `t` holds the sample times (s); `lags` one series per member
 * (or per any disjoint group of partitions), aligned with `t`; `rate` the offered msg/s.
 */
export function judgeLag(
  t: readonly number[],
  lags: Readonly<Record<string, readonly number[]>>,
  rate: number,
  rule: Readonly<LagRule> = LAG_RULE,
): LagVerdict {
  const total = t.map((_, i) => Object.values(lags).reduce((sum, series) => sum + (series[i] ?? 0), 0));
  const slopes: Record<string, number> = {};
  let growth = 0;
  for (const [member, series] of Object.entries(lags)) {
    const slope = leastSquaresSlope(t, series);
    slopes[member] = slope;
    growth += Math.max(0, slope);
  }
  const tail = total.slice(-FINAL_SAMPLES);
  const verdict: LagVerdict = {
    bounded: false,
    reason: 'too-few-samples',
    totalSlope: leastSquaresSlope(t, total),
    growth,
    growthLimit: rule.maxGrowthFraction * rate,
    finalLag: tail.length === 0 ? 0 : tail.reduce((a, b) => a + b, 0) / tail.length,
    finalLagLimit: rule.maxFinalLagSeconds * rate,
    slopes,
    samples: t.length,
  };
  if (t.length < rule.minSamples) return verdict;
  if (verdict.growth > verdict.growthLimit) return { ...verdict, reason: 'growing' };
  if (verdict.finalLag > verdict.finalLagLimit) return { ...verdict, reason: 'final-lag' };
  return { ...verdict, bounded: true, reason: 'bounded' };
}
