/**
 * The "fast preset" of load-aware that the demo and the scenarios shared with its integration
 * tests run: short windows so a change shows within a minute. It lives here, in the tests'
 * support, because both the demo (examples/demo) and the tests' instance processes use it.
 */

/** Load-aware settings of a demo or scenario run. */
export interface FastPreset {
  /** Offset-rate window: weights are events/s over this many ms. */
  rateIntervalMs: number;
  /** How often the sampler reads end offsets. */
  sampleIntervalMs: number;
  /** How often the trigger's coordinator checks the group. */
  checkIntervalMs: number;
  threshold: number;
  minViolatedChecks: number;
  cooldownMs: number;
  maxCooldownMs: number;
}

/**
 * A 6 s rate window and a trigger that acts within seconds. The violated checks span the whole
 * rate window ((3 - 1) × 3 s ≥ 6 s), so when the trigger fires the leader weighs with rates
 * measured entirely after the change; with a window longer than that, the rebalance lands on
 * half-old weights, misses, and the cooldown doubles.
 */
export const FAST_PRESET: FastPreset = Object.freeze({
  rateIntervalMs: 6000,
  sampleIntervalMs: 1000,
  checkIntervalMs: 3000,
  threshold: 1.1,
  minViolatedChecks: 3,
  cooldownMs: 15_000,
  maxCooldownMs: 60_000,
});
