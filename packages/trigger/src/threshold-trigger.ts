/**
 * The proactive-rebalance decision (docs/ARCHITECTURE.md, "Trigger") as a pure state machine:
 * observations in, outcomes out. No timers and no I/O; the only impure inputs are the injected clocks
 * (a monotonic one for every interval, the wall clock only for the reported fire time).
 */
import { assignmentFingerprint, instanceCount, planFromCurrent, resolveWeights } from './load.js';
import { resolveTriggerOptions, type ThresholdTriggerOptions } from './options.js';
import type { CooldownGrowth, Evaluation, GroupShape, Observation, TriggerOutcome } from './types.js';

/** The decision state machine; see {@link createThresholdTrigger}. */
export interface ThresholdTrigger {
  /** Judges one observation and advances the hysteresis and cooldown state. */
  evaluate(observation: Observation): Evaluation;
}

/**
 * Creates the threshold trigger. Each `evaluate()` compares the max instance load of the current
 * assignment with that of the assignment `balance()` would produce for the same members,
 * subscriptions and weights, and fires only when the ratio is strictly above `threshold`, on
 * `minViolatedChecks` checks of one unchanged assignment, and outside the cooldown.
 *
 * - Only a `Stable` group is judged; `group_not_stable`, `no_members` and `weights_unknown`
 *   change no counter.
 * - A balanced check decays the streak by one; a changed assignment restarts it.
 * - A fire after which the imbalance is confirmed again doubles the cooldown (up to
 *   `maxCooldownMs`); a balanced check brings it back to `cooldownMs`.
 *
 * @throws `ConfigError` for bad options; `evaluate()` throws `InvalidBalanceInputError` for
 * observations no assignment can satisfy (duplicated member ids).
 *
 * @example
 * ```ts
 * const trigger = createThresholdTrigger({ threshold: 1.1, minViolatedChecks: 2, cooldownMs: 600_000 });
 * const { outcome, ratio } = trigger.evaluate({
 *   state: 'Stable',
 *   members: [
 *     { memberId: 'a-1', instanceId: 'pod-a', topics: ['orders'], assigned: [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }] },
 *     { memberId: 'b-1', instanceId: 'pod-b', topics: ['orders'], assigned: [] },
 *   ],
 *   partitions: [
 *     { topic: 'orders', partition: 0, weight: 50 },
 *     { topic: 'orders', partition: 1, weight: 50 },
 *   ],
 * });
 * // ratio 2 (100 vs 50); outcome 'awaiting_hysteresis' the first time, 'fired' the second.
 * ```
 */
export function createThresholdTrigger(options: ThresholdTriggerOptions = {}): ThresholdTrigger {
  const o = resolveTriggerOptions(options);
  let violatedChecks = 0;
  let lastFingerprint: string | undefined;
  let cooldownMs = o.cooldownMs;
  /** Wall-clock time of the last fire, for reporting only. */
  let lastFiredAt: number | undefined;
  /** Monotonic time of the last fire: the cooldown is measured from this, never from the wall clock. */
  let lastFiredAtMono: number | undefined;
  /** The assignment seen when the last fire happened, while that fire's effect is unjudged. */
  let unjudgedFire: { fingerprint: string } | undefined;
  let imbalanced = false;

  const base = (now: number) => ({
    threshold: o.threshold,
    violatedChecks,
    minViolatedChecks: o.minViolatedChecks,
    cooldownMs,
    cooldownRemainingMs: lastFiredAtMono === undefined ? 0 : Math.max(0, lastFiredAtMono + cooldownMs - now),
    lastFiredAt,
  });
  const unjudged = (outcome: TriggerOutcome, shape: GroupShape | undefined): Evaluation => ({
    outcome,
    ratio: undefined,
    currentMaxLoad: undefined,
    optimalMaxLoad: undefined,
    ...base(o.monotonicNow()),
    cooldownGrowth: undefined,
    balancedAgain: false,
    shape,
    plan: undefined,
  });

  return {
    evaluate(observation) {
      if (observation.state !== 'Stable') return unjudged('group_not_stable', undefined);
      const { members } = observation;
      if (members.length === 0) return unjudged('no_members', undefined);
      const weights = resolveWeights(members, observation.partitions, o.defaultWeight);
      const shape: GroupShape = {
        members: members.length,
        instances: instanceCount(members),
        partitions: weights.partitions.length,
        defaulted: weights.partitions.length - weights.usableCount,
        weighted: weights.usableCount,
      };
      if (weights.usableCount === 0) return unjudged('weights_unknown', shape);

      // Always balance() itself, with the current placement as `previous`: whatever it learns
      // (local search, stickiness) is then exactly what the trigger compares against.
      const { plan, currentMaxLoad } = planFromCurrent(members, weights, o);
      const optimalMaxLoad = plan.maxInstanceLoad;
      // All weights zero gives 0/0: nothing to balance, so balanced.
      const ratio = optimalMaxLoad > 0 ? currentMaxLoad / optimalMaxLoad : 1;
      // A NaN ratio says nothing about balance: never fire on it, and change no counter. Scaled
      // weights cannot overflow any more; this stays as the last guard.
      if (Number.isNaN(ratio)) return unjudged('weights_unknown', shape);
      const judged = { ratio, currentMaxLoad, optimalMaxLoad, shape, plan };

      const fingerprint = assignmentFingerprint(members);
      if (fingerprint !== lastFingerprint) {
        violatedChecks = 0;
        lastFingerprint = fingerprint;
      }
      const now = o.monotonicNow();

      if (ratio <= o.threshold) {
        violatedChecks = Math.max(0, violatedChecks - 1);
        const balancedAgain = imbalanced || unjudgedFire !== undefined;
        imbalanced = false;
        unjudgedFire = undefined;
        cooldownMs = o.cooldownMs;
        return { outcome: 'balanced', ...judged, ...base(now), cooldownGrowth: undefined, balancedAgain };
      }

      imbalanced = true;
      violatedChecks++;
      if (violatedChecks < o.minViolatedChecks) {
        return {
          outcome: 'awaiting_hysteresis',
          ...judged,
          ...base(now),
          cooldownGrowth: undefined,
          balancedAgain: false,
        };
      }

      // A confirmed imbalance after a fire: that fire did not help. Judge it once.
      let cooldownGrowth: CooldownGrowth | undefined;
      if (unjudgedFire !== undefined) {
        const fromMs = cooldownMs;
        cooldownMs = Math.min(o.maxCooldownMs, cooldownMs * 2);
        cooldownGrowth = {
          fromMs,
          toMs: cooldownMs,
          assignmentChangedSinceFire: fingerprint !== unjudgedFire.fingerprint,
        };
        unjudgedFire = undefined;
      }
      if (lastFiredAtMono !== undefined && now - lastFiredAtMono < cooldownMs) {
        return { outcome: 'cooldown_suppressed', ...judged, ...base(now), cooldownGrowth, balancedAgain: false };
      }

      lastFiredAtMono = now;
      lastFiredAt = o.now();
      unjudgedFire = { fingerprint };
      const streak = violatedChecks;
      // The fire consumes the evidence: the next one needs a fresh streak.
      violatedChecks = 0;
      return {
        outcome: 'fired',
        ...judged,
        ...base(now),
        violatedChecks: streak,
        cooldownGrowth,
        balancedAgain: false,
      };
    },
  };
}
