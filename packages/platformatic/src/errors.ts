/**
 * Errors of `@load-aware/platformatic` beyond the shared `ConfigError`. Codes come from the one
 * catalogue in `@load-aware/assignor` and are never reused: the trigger target's describe failure
 * is the trigger's own `LOAD_AWARE_TRIGGER_GROUP_NOT_DESCRIBED`, so a check fails with the same code
 * whichever client described the group.
 */
import { ERROR_CODES, LoadAwareError } from '@load-aware/assignor/portable';

/** DescribeGroups (through platformatic's `Admin`) answered without the consumer's group. */
export class GroupNotDescribedError extends LoadAwareError {
  constructor(readonly groupId: string) {
    super(
      ERROR_CODES.trigger.groupNotDescribed,
      `DescribeGroups did not describe the consumer's group: no entry for ${JSON.stringify(groupId)}`,
    );
  }
}
