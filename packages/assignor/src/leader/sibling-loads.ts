import { escapeLogText } from '../base/log-text.js';
import { siblingBaseLoads, type SiblingReading } from '../inputs/sibling-groups.js';
import type { PlacementContext } from './place-group.js';

/**
 * The siblings' load per instance, weighed with the rule the group's own partitions get (unusable
 * or missing weights count as the default), and a line for each sibling that did not count as read
 * now: a stale reading at INFO, a group left out at WARN (its load is then missing from the
 * balance, which a user must be able to see). Loads no client library: the KafkaJS and the
 * platformatic leader both weigh their siblings here, so they log and balance alike.
 */
export function siblingLoadsLogged(
  ctx: Pick<PlacementContext, 'logger' | 'options'>,
  siblings: ReadonlyArray<SiblingReading>,
  weights: ReadonlyArray<{ topic: string; partition: number; weight: number }>,
): Map<string, number> {
  for (const s of siblings) {
    const fields = { siblingGroupId: s.groupId, status: s.status, state: s.state, reason: s.reason };
    if (s.status === 'stale') {
      const age = Math.round(s.ageMs / 1000);
      ctx.logger.info(
        { ...fields, ageMs: s.ageMs },
        escapeLogText(
          `cross-group: group ${s.groupId} ${String(s.reason)}; its Stable reading from ${String(age)} s ago counts`,
        ),
      );
    } else if (s.status === 'left_out') {
      ctx.logger.warn(
        fields,
        escapeLogText(
          `cross-group: group ${s.groupId} ${String(s.reason)} and has no recent Stable reading; balancing without its load`,
        ),
      );
    }
  }
  return siblingBaseLoads(siblings, weights, ctx.options.defaultWeight);
}
