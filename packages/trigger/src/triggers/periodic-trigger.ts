/**
 * A trigger that rebalances on a schedule rather than on measured drift: fresh placement every
 * `intervalMs` whatever the weights say. Pure state machine like the threshold trigger; the only
 * impure inputs are the injected clocks.
 */
import { seconds } from '../contract/text.js';
import type { Trigger } from '../contract/trigger.js';
import { resolvePeriodicOptions, type PeriodicTriggerOptions } from './trigger-options.js';
import type { Observation, PeriodicDecision, TriggerOutcome } from '../contract/types.js';

/** The periodic state machine; see {@link createPeriodicTrigger}. */
export interface PeriodicTrigger extends Trigger<PeriodicDecision> {
  /** Fires once the period has elapsed and the group is Stable; otherwise says why not. */
  evaluate(observation: Observation): PeriodicDecision;
  /**
   * Inside a composite: a vetoed fire is undone (still due, so it fires at the next check the
   * composite allows); a composite fire it did not vote for restarts the period, as its own would.
   */
  settle(fired: boolean): void;
  /** `fired`, `not_due`, `group_not_stable`, `no_members`. */
  readonly outcomes: ReadonlyArray<TriggerOutcome>;
}

const PERIODIC_OUTCOMES: ReadonlyArray<TriggerOutcome> = ['fired', 'not_due', 'group_not_stable', 'no_members'];

/** What the trigger remembers about fires: what {@link PeriodicTrigger.settle} sets either way. */
interface FireMemory {
  readonly dueAtMono: number;
  readonly lastFiredAt: number | undefined;
}

/**
 * Creates the periodic trigger: it fires on the first check at least `intervalMs` after its
 * creation, then at least `intervalMs` after each fire.
 *
 * - The period starts at creation, not at a fire on the first check: a consumer that just started
 *   has just been placed by a rebalance of its own.
 * - Only a `Stable` group fires. A period that elapses while the group rebalances stays due, and
 *   the trigger fires at the next Stable check; the next period is measured from that fire, so a
 *   late fire never causes a second one right after it.
 * - Intervals run on a monotonic clock (`monotonicNow`), like the threshold trigger's cooldown.
 *
 * @throws `ConfigError` for bad options.
 *
 * @example
 * ```ts
 * // Re-place the group every 6 hours, whatever the load looks like.
 * const trigger = createPeriodicTrigger({ intervalMs: 6 * 3600_000 });
 * createTriggerController({ target: assigner.triggerTarget(consumer) }, { trigger });
 * ```
 */
export function createPeriodicTrigger(options: PeriodicTriggerOptions): PeriodicTrigger {
  const o = resolvePeriodicOptions(options);
  let dueAtMono = o.monotonicNow() + o.intervalMs;
  let lastFiredAt: number | undefined;
  let settlement: { held: FireMemory; fired: () => FireMemory } | undefined;

  const decision = (outcome: TriggerOutcome, reason: string, now: number): PeriodicDecision => ({
    kind: 'periodic',
    outcome,
    reason,
    intervalMs: o.intervalMs,
    dueInMs: Math.max(0, dueAtMono - now),
    lastFiredAt,
  });
  const judge = (observation: Observation, now: number): PeriodicDecision => {
    const due = now >= dueAtMono;
    if (observation.state !== 'Stable') {
      const why = `the group is ${observation.state}, not Stable`;
      return decision('group_not_stable', due ? `${why}; the period has elapsed, waiting for Stable` : why, now);
    }
    if (observation.members.length === 0) return decision('no_members', 'the group has no members', now);
    if (!due) return decision('not_due', `next periodic fire in ${seconds(dueAtMono - now)}`, now);
    dueAtMono = now + o.intervalMs;
    lastFiredAt = o.now();
    return decision('fired', `the period of ${seconds(o.intervalMs)} has elapsed`, now);
  };

  return {
    outcomes: PERIODIC_OUTCOMES,
    evaluate(observation) {
      const held: FireMemory = { dueAtMono, lastFiredAt };
      const now = o.monotonicNow();
      const result = judge(observation, now);
      const fired: FireMemory | undefined = result.outcome === 'fired' ? { dueAtMono, lastFiredAt } : undefined;
      settlement = {
        held,
        fired: () => fired ?? { dueAtMono: now + o.intervalMs, lastFiredAt: o.now() },
      };
      return result;
    },
    settle(fired) {
      if (settlement === undefined) return;
      ({ dueAtMono, lastFiredAt } = fired ? settlement.fired() : settlement.held);
    },
  };
}
