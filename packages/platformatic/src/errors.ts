/**
 * Errors of `@load-aware/platformatic` beyond the shared `ConfigError`. Codes come from the one
 * catalogue in `@load-aware/assignor` and are never reused: the trigger target's describe failure
 * is the trigger's own `LOAD_AWARE_TRIGGER_GROUP_NOT_DESCRIBED`, so a check fails with the same code
 * whichever client described the group.
 */
import { ERROR_CODES, LoadAwareError } from '@load-aware/assignor/portable';

/** DescribeGroups answered without the consumer's group: one class for both adapters, the assignor's. */
export { GroupNotDescribedError } from '@load-aware/assignor/portable';

/**
 * An attached consumer's `consume()` asked for a mode other than `committed`. A stream in mode
 * `latest`, `earliest` or `manual` starts a partition it is handed from a position it recorded
 * earlier, so a partition that changes owner is repeated or skipped.
 */
export class UnsafeConsumeModeError extends LoadAwareError {
  constructor(readonly mode: string) {
    super(
      ERROR_CODES.platformatic.unsafeConsumeMode,
      `consume({ mode: '${mode}' }) is refused in a load-aware group: a stream in that mode starts a partition it is ` +
        "handed from a position it recorded earlier, not from the group's committed offset, so partitions that change " +
        "owner are repeated or skipped. Leave mode out (the assigner sets mode: 'committed', fallbackMode: 'earliest') " +
        "or set mode: 'committed'",
    );
  }
}
