/**
 * The contract every trigger meets — the shipped threshold, periodic and composite triggers and
 * any object a user writes — so the controller (and a composite) can run any of them alike.
 */
import { z } from 'zod';
import type { Observation, TriggerDecision, TriggerOutcome } from './types.js';

/**
 * A decision state machine the controller runs once per check of the coordinator.
 *
 * - `evaluate()` is synchronous and must not throw for an ordinary group: fetch whatever it needs
 *   (lag, a calendar) in the background and read the latest value here. It leaves the trigger in
 *   the state of its own decision carried out: a trigger that says `fired` counts that fire
 *   (cooldown, period) right away, because the controller always acts on it.
 * - Triggers that need time take an injectable clock in their options, as the shipped ones do; the
 *   controller passes none.
 *
 * @example
 * ```ts
 * // Fire while any member holds no partition at all (a toy rule; see examples/custom-trigger.ts).
 * const idleMember: Trigger = {
 *   outcomes: ['fired', 'balanced', 'group_not_stable'],
 *   evaluate: ({ state, members }) =>
 *     state !== 'Stable'
 *       ? { outcome: 'group_not_stable', reason: `group is ${state}` }
 *       : members.some((m) => m.assigned.length === 0)
 *         ? { outcome: 'fired', reason: 'a member holds no partition' }
 *         : { outcome: 'balanced', reason: 'every member holds a partition' },
 * };
 * createTriggerController({ target: assigner.triggerTarget(consumer) }, { trigger: idleMember });
 * ```
 */
export interface Trigger<D extends TriggerDecision = TriggerDecision> {
  /** Judges one observation of the group and advances the trigger's state. */
  evaluate(observation: Observation): D;
  /**
   * Optional. Called by a composite right after `evaluate()` with whether the composite fired, so
   * the trigger's memory of fires matches the group's real rebalances: a `fired` the composite
   * vetoed is undone, and a composite fire the trigger did not vote for counts as its own. Called
   * again by an enclosing composite, the last call wins. Never called by the controller, which
   * acts on every `fired` it sees.
   */
  settle?(fired: boolean): void;
  /**
   * Optional. Every outcome `evaluate()` can return; the controller starts a zero series of
   * `load_aware_trigger_evaluations_total` for each, so rates work from the first check. Default:
   * every outcome in `TRIGGER_OUTCOMES`.
   */
  readonly outcomes?: ReadonlyArray<TriggerOutcome>;
}

/** True for an object with an `evaluate` method: what the controller and composites accept. */
export function isTrigger(value: unknown): value is Trigger {
  return looksLikeTrigger(value) && typeof (value as { evaluate?: unknown }).evaluate === 'function';
}

/** True when `value` is meant as a trigger object: it has an `evaluate` key, maybe a bad one. */
export function looksLikeTrigger(value: unknown): value is object {
  return typeof value === 'object' && value !== null && 'evaluate' in value;
}

/** The zod check of one trigger object; the message says what is missing. */
export const triggerObjectSchema = z.custom<Trigger>().check((ctx) => {
  if (isTrigger(ctx.value)) return;
  const hasKey = looksLikeTrigger(ctx.value);
  ctx.issues.push({
    code: 'custom',
    input: ctx.value,
    ...(hasKey ? { path: ['evaluate'] } : {}),
    message: hasKey
      ? 'expected a function evaluate(observation) returning a decision'
      : 'expected a Trigger: an object with evaluate(observation)',
  });
});
