/**
 * The error catalogue of `@load-aware/trigger`. Codes are stable and never reused; tests and
 * callers match on `code`, never on the message. Config errors are the assignor's `ConfigError`
 * (`LOAD_AWARE_CONFIG`), so every load-aware package reports bad options alike.
 */
import { ERROR_CODES, LoadAwareError } from '@load-aware/assignor';

/**
 * Codes of every error this package throws or logs: this package's group of the assignor's
 * `ERROR_CODES`, where every load-aware code is listed once.
 */
export const TriggerErrorCodes = ERROR_CODES.trigger;

/** A code from {@link TriggerErrorCodes}. */
export type TriggerErrorCode = (typeof TriggerErrorCodes)[keyof typeof TriggerErrorCodes];

/** One check (describe the group, weigh, evaluate) did not finish within `checkTimeoutMs`. */
export class CheckTimeoutError extends LoadAwareError {
  constructor(readonly timeoutMs: number) {
    super(TriggerErrorCodes.checkTimeout, `Trigger check did not finish within checkTimeoutMs=${String(timeoutMs)}`);
  }
}

/** DescribeGroups answered without the consumer's group: one class for both adapters, the assignor's. */
export { GroupNotDescribedError } from '@load-aware/assignor';

/** A trigger's `evaluate()` returned no decision, or one whose outcome is not in `TRIGGER_OUTCOMES`. */
export class InvalidDecisionError extends LoadAwareError {
  constructor(readonly detail: string) {
    super(TriggerErrorCodes.invalidDecision, `The trigger returned an invalid decision: ${detail}`);
  }
}
