/**
 * The error catalogue of `@load-aware/trigger`. Codes are stable and never reused; tests and
 * callers match on `code`, never on the message. Config errors are the assignor's `ConfigError`
 * (`LOAD_AWARE_CONFIG`), so every load-aware package reports bad options alike.
 */
import { LoadAwareError } from '@load-aware/assignor';

/** Codes of every error this package throws or logs. */
export const TriggerErrorCodes = {
  checkTimeout: 'LOAD_AWARE_TRIGGER_CHECK_TIMEOUT',
  groupNotDescribed: 'LOAD_AWARE_TRIGGER_GROUP_NOT_DESCRIBED',
} as const;

/** A code from {@link TriggerErrorCodes}. */
export type TriggerErrorCode = (typeof TriggerErrorCodes)[keyof typeof TriggerErrorCodes];

/** One check (describe the group, weigh, evaluate) did not finish within `checkTimeoutMs`. */
export class CheckTimeoutError extends LoadAwareError {
  constructor(readonly timeoutMs: number) {
    super(TriggerErrorCodes.checkTimeout, `Trigger check did not finish within checkTimeoutMs=${String(timeoutMs)}`);
  }
}

/** DescribeGroups answered without the consumer's group (or with an error code for it). */
export class GroupNotDescribedError extends LoadAwareError {
  constructor(readonly detail: string) {
    super(TriggerErrorCodes.groupNotDescribed, `DescribeGroups did not describe the consumer's group: ${detail}`);
  }
}
