/**
 * The proactive-rebalance decision (docs/architecture.md, "Trigger") as a pure state machine:
 * observations in, outcomes out. No timers and no I/O; the only impure inputs are the injected clocks
 * (a monotonic one for every interval, the wall clock only for the reported fire time).
 */
import { priceOf, priceText } from '../judge/fire-price.js';
import {
  assignmentFingerprint,
  instanceCount,
  memberImbalance,
  planFromCurrent,
  resolveWeights,
} from '../judge/load.js';
import { escapeLogText, validateOptions } from '@load-aware/assignor/internal';
import {
  judgingSettingsSchema,
  resolveTriggerOptions,
  withAssignerSettings,
  type JudgingSettings,
  type ThresholdTriggerOptions,
} from '../config/options.js';
import { figure, ratioText, seconds } from '../contract/text.js';
import type { Trigger } from '../contract/trigger.js';
import {
  TRIGGER_OUTCOMES,
  type CooldownGrowth,
  type Evaluation,
  type GroupShape,
  type Observation,
  type TriggerLevel,
  type TriggerOutcome,
} from '../contract/types.js';

/** The decision state machine; see {@link createThresholdTrigger}. */
export interface ThresholdTrigger extends Trigger<Evaluation> {
  /** Judges one observation and advances the hysteresis and cooldown state. */
  evaluate(observation: Observation): Evaluation;
  /**
   * Inside a composite: a vetoed fire is undone (the streak stands, so it fires again as soon as
   * the composite lets it; no cooldown starts), and a composite fire this trigger did not vote
   * for counts as its own fire (cooldown, streak consumed, its effect judged like any fire).
   */
  settle(fired: boolean): void;
  /** Every outcome but `not_due`. */
  readonly outcomes: ReadonlyArray<TriggerOutcome>;
}

/** The outcomes the threshold trigger can return: all but the periodic trigger's "not yet". */
const THRESHOLD_OUTCOMES: ReadonlyArray<TriggerOutcome> = TRIGGER_OUTCOMES.filter((o) => o !== 'not_due');

/** What the trigger remembers about fires: what {@link ThresholdTrigger.settle} sets either way. */
interface FireMemory {
  readonly violatedChecks: number;
  readonly lastFiredAtMono: number | undefined;
  readonly lastFiredAt: number | undefined;
  readonly unjudgedFire: { readonly fingerprint: string } | undefined;
}

/**
 * Creates the threshold trigger. Each `evaluate()` compares the max instance load of the current
 * assignment with that of the assignment `balance()` would produce for the same members,
 * subscriptions and weights, and fires only when the ratio is strictly above `threshold`, on
 * `minViolatedChecks` checks of one unchanged assignment, and outside the cooldown.
 *
 * With `memberLevel.enabled` (the default) it also judges members: inside each instance, the
 * busiest member's load now against that of what `balance()` makes of the instance's own members
 * and partitions (see `memberImbalance`); a check is violated when either level is above its
 * threshold. Both levels share one streak and one cooldown, because one rebalance fixes both: a
 * group that is imbalanced at one level on one check and at the other on the next is imbalanced
 * all along, and a fire for either level is a rebalance the cooldown must space out.
 *
 * - Only a `Stable` group is judged; `group_not_stable`, `no_members` and `weights_unknown`
 *   change no counter.
 * - A balanced check decays the streak by one; a changed assignment restarts it, and so does a
 *   changed assignment of a cross-group sibling.
 * - With `observation.siblings` (cross-group) the loads judged are combined ones, and a check while
 *   a sibling is rebalancing or unreadable is `siblings_unavailable`, changing no counter.
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
  /** The memory of the last check without and with a fire, for `settle()`. */
  let settlement: { held: FireMemory; fired: () => FireMemory } | undefined;

  const memory = (): FireMemory => ({ violatedChecks, lastFiredAtMono, lastFiredAt, unjudgedFire });
  const lastFire = (m: FireMemory) => ({ lastFiredAtMono: m.lastFiredAtMono, lastFiredAt: m.lastFiredAt });
  const restore = (m: FireMemory): void => {
    ({ violatedChecks, lastFiredAtMono, lastFiredAt, unjudgedFire } = m);
  };

  const memberThreshold = o.memberLevel.enabled ? o.memberLevel.threshold : undefined;
  const base = (now: number) => ({
    threshold: o.threshold,
    memberThreshold,
    violatedChecks,
    minViolatedChecks: o.minViolatedChecks,
    cooldownMs,
    cooldownRemainingMs: lastFiredAtMono === undefined ? 0 : Math.max(0, lastFiredAtMono + cooldownMs - now),
    lastFiredAt,
  });
  const unjudged = (outcome: TriggerOutcome, shape: GroupShape | undefined, reason: string): Evaluation => ({
    kind: 'threshold',
    outcome,
    reason,
    ratio: undefined,
    currentMaxLoad: undefined,
    optimalMaxLoad: undefined,
    level: undefined,
    memberRatio: undefined,
    memberInstanceId: undefined,
    currentMaxMemberLoad: undefined,
    optimalMaxMemberLoad: undefined,
    ...base(o.monotonicNow()),
    cooldownGrowth: undefined,
    balancedAgain: false,
    shape,
    plan: undefined,
    price: undefined,
  });

  const judge = (observation: Observation): Evaluation => {
    if (observation.state !== 'Stable') {
      return unjudged('group_not_stable', undefined, `the group is ${observation.state}, not Stable`);
    }
    const { members, siblings } = observation;
    if (members.length === 0) return unjudged('no_members', undefined, 'the group has no members');
    if (siblings !== undefined && siblings.unavailable.length > 0) {
      const which = siblings.unavailable.map((u) => `${u.groupId} ${u.reason}`).join('; ');
      return unjudged('siblings_unavailable', undefined, escapeLogText(`the combined load is not known: ${which}`));
    }
    const weights = resolveWeights(members, observation.partitions, o.defaultWeight);
    const shape: GroupShape = {
      members: members.length,
      instances: instanceCount(members),
      partitions: weights.partitions.length,
      defaulted: weights.partitions.length - weights.usableCount,
      weighted: weights.usableCount,
    };
    if (weights.usableCount === 0) return unjudged('weights_unknown', shape, 'no partition has a usable weight');

    // Always balance() itself, with the current placement as `previous`: whatever it learns
    // (local search, stickiness) is then exactly what the trigger compares against.
    const { plan, currentMaxLoad } = planFromCurrent(members, weights, o, siblings?.instanceBaseLoad);
    // Combined with the other groups' load under cross-group; the group's own otherwise (equal then).
    const optimalMaxLoad = plan.maxCombinedLoad;
    // All weights zero gives 0/0: nothing to balance, so balanced.
    const ratio = optimalMaxLoad > 0 ? currentMaxLoad / optimalMaxLoad : 1;
    // A NaN ratio says nothing about balance: never fire on it, and change no counter. Scaled
    // weights cannot overflow any more; this stays as the last guard.
    if (Number.isNaN(ratio)) return unjudged('weights_unknown', shape, 'the load ratio is not a number');
    const member = o.memberLevel.enabled ? memberImbalance(members, weights, o) : undefined;
    const memberRatio = member?.ratio;
    const level: TriggerLevel | undefined =
      ratio > o.threshold
        ? 'instance'
        : memberRatio !== undefined && memberRatio > o.memberLevel.threshold
          ? 'member'
          : undefined;
    const judged = {
      kind: 'threshold' as const,
      ratio,
      currentMaxLoad,
      optimalMaxLoad,
      memberRatio,
      memberInstanceId: member?.instanceId,
      currentMaxMemberLoad: member?.currentMaxLoad,
      optimalMaxMemberLoad: member?.optimalMaxLoad,
      shape,
      plan,
      price: undefined,
    };
    const memberText =
      member?.instanceId === undefined ? '' : ` of the members of instance ${escapeLogText(member.instanceId)}`;
    const above =
      level === 'member'
        ? `member ratio ${ratioText(memberRatio)}${memberText} above member threshold ${ratioText(o.memberLevel.threshold)}`
        : `ratio ${ratioText(ratio)} above threshold ${ratioText(o.threshold)}`;

    // A sibling's new assignment changes what this group is judged against: a new streak, too.
    const fingerprint =
      siblings === undefined
        ? assignmentFingerprint(members)
        : `${assignmentFingerprint(members)}\n--\n${siblings.fingerprint}`;
    if (fingerprint !== lastFingerprint) {
      violatedChecks = 0;
      lastFingerprint = fingerprint;
    }
    const now = o.monotonicNow();

    if (level === undefined) {
      violatedChecks = Math.max(0, violatedChecks - 1);
      const balancedAgain = imbalanced || unjudgedFire !== undefined;
      imbalanced = false;
      unjudgedFire = undefined;
      cooldownMs = o.cooldownMs;
      return {
        outcome: 'balanced',
        reason:
          `ratio ${ratioText(ratio)} within threshold ${ratioText(o.threshold)}` +
          (memberRatio === undefined
            ? ''
            : `, member ratio ${ratioText(memberRatio)} within ${ratioText(o.memberLevel.threshold)}`),
        ...judged,
        level,
        ...base(now),
        cooldownGrowth: undefined,
        balancedAgain,
      };
    }

    imbalanced = true;
    violatedChecks++;
    if (violatedChecks < o.minViolatedChecks) {
      return {
        outcome: 'awaiting_hysteresis',
        reason: `${above} (violated check ${String(violatedChecks)}/${String(o.minViolatedChecks)})`,
        ...judged,
        level,
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
      const b = base(now);
      return {
        outcome: 'cooldown_suppressed',
        reason: `${above}; suppressed by the cooldown for ${seconds(b.cooldownRemainingMs)}`,
        ...judged,
        level,
        ...b,
        cooldownGrowth,
        balancedAgain: false,
      };
    }

    // A member-level fire buys what it takes off the busiest member; an instance-level one, off the
    // busiest instance.
    const excess =
      level === 'member'
        ? (member?.currentMaxLoad ?? 0) - (member?.optimalMaxLoad ?? 0)
        : currentMaxLoad - optimalMaxLoad;
    const price = priceOf(members, plan.totalWeight, excess, cooldownMs);
    const priced = `expected gain ${figure(price.gain)} vs cost ${figure(price.cost)} (${priceText(price)})`;
    if (o.minGainToCost > 0 && price.gain < o.minGainToCost * price.cost) {
      const b = base(now);
      return {
        outcome: 'gain_below_cost',
        reason: `${above}; not worth a rebalance: ${priced}, below ${String(o.minGainToCost)}x`,
        ...judged,
        price,
        level,
        ...b,
        cooldownGrowth,
        balancedAgain: false,
      };
    }

    lastFiredAtMono = now;
    lastFiredAt = o.now();
    unjudgedFire = { fingerprint };
    const streak = violatedChecks;
    // The fire consumes the evidence: the next one needs a fresh streak.
    violatedChecks = 0;
    return {
      outcome: 'fired',
      reason: `${above} on ${String(streak)}/${String(o.minViolatedChecks)} checks; ${priced}`,
      ...judged,
      price,
      level,
      ...base(now),
      violatedChecks: streak,
      cooldownGrowth,
      balancedAgain: false,
    };
  };

  return {
    outcomes: THRESHOLD_OUTCOMES,
    evaluate(observation) {
      const before = memory();
      const evaluation = judge(observation);
      const after = memory();
      if (evaluation.outcome === 'fired') {
        // Held, the fire never happened: the streak stands (its judged previous fire, if any,
        // stays judged) and the last fire is the one before.
        const held = { ...after, violatedChecks: evaluation.violatedChecks, ...lastFire(before) };
        settlement = { held: { ...held, unjudgedFire: undefined }, fired: () => after };
      } else {
        // A fire this check did not make (a composite's): as if it had fired now, on the last
        // assignment seen (this check's when it was judged).
        const fingerprint = lastFingerprint;
        settlement = {
          held: after,
          fired: () => ({
            violatedChecks: 0,
            lastFiredAtMono: o.monotonicNow(),
            lastFiredAt: o.now(),
            unjudgedFire: fingerprint === undefined ? undefined : { fingerprint },
          }),
        };
      }
      return evaluation;
    },
    settle(fired) {
      if (settlement !== undefined) restore(fired ? settlement.fired() : settlement.held);
    },
  };
}

/**
 * {@link createThresholdTrigger} with the target's assigner's `defaultWeight`, `moveTolerance` and
 * `maxMovesPerRebalance` wherever `options` does not set them — the rule the controller applies to
 * `trigger: { threshold, ... }`. Use it for a threshold trigger you put inside a composite or your
 * own trigger: judged with other settings than the assignor places with, its "optimal" would not be
 * the assignment a rebalance produces.
 *
 * @throws `ConfigError` when `target` is not a trigger target (`assigner.triggerTarget(...)`) or
 * an option is bad.
 *
 * @example
 * ```ts
 * const assigner = LoadAwareAssigner({ weights, defaultWeight: 5 });
 * const target = assigner.triggerTarget(consumer);
 * const threshold = createThresholdTriggerFor(target, { threshold: 1.2 }); // judges with defaultWeight 5
 * ```
 */
export function createThresholdTriggerFor(
  target: { readonly assigner: JudgingSettings },
  options: ThresholdTriggerOptions = {},
): ThresholdTrigger {
  const checked = validateOptions(judgingSettingsSchema, target, 'createThresholdTriggerFor target');
  return createThresholdTrigger(withAssignerSettings(checked.assigner, options));
}
