/**
 * What the controller needs to know about any trigger's decision: that it is one (a custom trigger
 * is code the controller cannot type-check at run time), and which threshold evaluations it
 * carries, for the ratio gauges and the threshold's log lines.
 */
import { InvalidDecisionError } from '../contract/errors.js';
import { TRIGGER_OUTCOMES, type CompositeDecision, type Evaluation, type TriggerDecision } from '../contract/types.js';

/**
 * Returns `value` when it is a decision with an outcome from `TRIGGER_OUTCOMES` and a reason;
 * throws `InvalidDecisionError` otherwise, so the check counts as `error` instead of a made-up
 * outcome becoming an unbounded metric label.
 */
export function checkedDecision(value: unknown): TriggerDecision {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidDecisionError(`expected an object with outcome and reason, got ${describe(value)}`);
  }
  const { outcome, reason } = value as { outcome?: unknown; reason?: unknown };
  if (!TRIGGER_OUTCOMES.includes(outcome as TriggerDecision['outcome'])) {
    throw new InvalidDecisionError(`outcome ${describe(outcome)} is not one of ${TRIGGER_OUTCOMES.join(', ')}`);
  }
  if (typeof reason !== 'string') throw new InvalidDecisionError(`reason ${describe(reason)} is not a string`);
  return value as TriggerDecision;
}

/** A bounded, printable description of an unexpected value (it may come from any code). */
function describe(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.slice(0, 40));
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'object':
      return value === null ? 'null' : 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** True for the threshold trigger's decision. */
export function isThresholdEvaluation(d: TriggerDecision): d is Evaluation {
  return d.kind === 'threshold';
}

function isComposite(d: TriggerDecision): d is CompositeDecision {
  return d.kind === 'composite' && Array.isArray((d as { children?: unknown }).children);
}

/** The threshold evaluations in a decision: itself, or a composite's children's, depth first. */
export function thresholdEvaluations(d: TriggerDecision): Evaluation[] {
  if (isThresholdEvaluation(d)) return [d];
  return isComposite(d) ? d.children.flatMap(thresholdEvaluations) : [];
}
