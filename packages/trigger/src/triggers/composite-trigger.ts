/**
 * ALL / ANY over several triggers, so rules combine without writing a trigger: "drift past the
 * threshold, but only in business hours", "drift, or at the latest every 6 hours".
 */
import type { Trigger } from '../contract/trigger.js';
import { resolveCompositeOptions, type CompositeTriggerOptions } from './trigger-options.js';
import {
  TRIGGER_OUTCOMES,
  type CompositeDecision,
  type Observation,
  type TriggerDecision,
  type TriggerOutcome,
} from '../contract/types.js';

/** The composite; see {@link createCompositeTrigger}. */
export interface CompositeTrigger extends Trigger<CompositeDecision> {
  /** Evaluates every child, combines their votes and settles each child with the result. */
  evaluate(observation: Observation): CompositeDecision;
  /** Passes an enclosing composite's verdict on to every child (the last call wins). */
  settle(fired: boolean): void;
  /** Every outcome a child can return. */
  readonly outcomes: ReadonlyArray<TriggerOutcome>;
}

/**
 * Creates a composite trigger: with `mode: 'all'` it fires when every child fires on the same
 * check, with `mode: 'any'` when at least one does.
 *
 * - **Every child is evaluated on every check**, in order, never short-circuited: each one's state
 *   (streak, cooldown, period) advances as if it ran alone.
 * - **The composite's fire is every child's fire; a vetoed fire never happened.** After combining,
 *   each child is settled with the composite's verdict (`settle(fired)`): a child whose `fired` was
 *   vetoed forgets it (no cooldown starts, its streak or due period stands, so it fires again as
 *   soon as the composite allows), and a child that did not vote for a fire that happened counts it
 *   as its own (its cooldown or period restarts, its streak is consumed). Cooldowns and periods
 *   exist to space out real rebalances, so they must follow the rebalances that really happen —
 *   otherwise a threshold child vetoed all night would have doubled its cooldown by morning for
 *   fires that never were. Children without `settle()` keep their own view.
 * - When it holds, the outcome is the one that kept it from firing: for `all`, the first child
 *   that did not fire; for `any`, the first child's (put the main trigger first). The reason lists
 *   every child's reason, and each child's own decision is in `children`.
 *
 * @throws `ConfigError` for a bad mode or a child without `evaluate()`.
 *
 * @example
 * ```ts
 * // Rebalance on drift, and at the latest every 6 hours.
 * const trigger = createCompositeTrigger({
 *   mode: 'any',
 *   triggers: [createThresholdTrigger({ threshold: 1.2 }), createPeriodicTrigger({ intervalMs: 6 * 3600_000 })],
 * });
 * createTriggerController({ target: assigner.triggerTarget(consumer) }, { trigger });
 * ```
 */
export function createCompositeTrigger(options: CompositeTriggerOptions): CompositeTrigger {
  const { mode, triggers } = resolveCompositeOptions(options);
  const outcomes = TRIGGER_OUTCOMES.filter((outcome) =>
    triggers.some((t) => (t.outcomes ?? TRIGGER_OUTCOMES).includes(outcome)),
  );
  const settleAll = (fired: boolean): void => {
    for (const t of triggers) t.settle?.(fired);
  };

  return {
    outcomes,
    evaluate(observation) {
      // map, not some/every: every child must see every check.
      const children: TriggerDecision[] = triggers.map((t) => t.evaluate(observation));
      const votes = children.map((c) => c.outcome === 'fired');
      const fired = mode === 'all' ? votes.every(Boolean) : votes.some(Boolean);
      settleAll(fired);
      return { kind: 'composite', mode, ...verdict(mode, fired, children), children };
    },
    settle: settleAll,
  };
}

/** The composite's outcome and reason from its children's decisions. */
function verdict(
  mode: CompositeTriggerOptions['mode'],
  fired: boolean,
  children: ReadonlyArray<TriggerDecision>,
): Pick<TriggerDecision, 'outcome' | 'reason'> {
  const label = (c: TriggerDecision, i: number): string => `${c.kind ?? `trigger ${String(i + 1)}`}: ${c.reason}`;
  if (fired) {
    const voters = children.map((c, i) => (c.outcome === 'fired' ? label(c, i) : undefined)).filter(Boolean);
    return { outcome: 'fired', reason: `${mode} fired (${voters.join('; ')})` };
  }
  // Every child's reason: whichever one the outcome names, the others say what else held it.
  const blocker = mode === 'all' ? children.findIndex((c) => c.outcome !== 'fired') : 0;
  const outcome = children[blocker]?.outcome ?? 'not_due';
  return { outcome, reason: `${mode} held (${children.map(label).join('; ')})` };
}
