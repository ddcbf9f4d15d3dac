/**
 * The coordinator's look for subscribed partitions that no member holds, and the rebalance it
 * forces for them. KafkaJS's leader assigns only the partitions its metadata lists, and that
 * metadata is refreshed every `metadataMaxAge` (5 min by default), so partitions added to a topic
 * wait up to that long for a consumer. The coordinator reads the subscribed topics fresh at every
 * check and, when the broker lists partitions no member holds, makes the group rebalance: the
 * leader refreshes its metadata right before it assigns, so that rebalance includes them.
 */
import { ASSIGNER_NAME, type Logger } from '@load-aware/assignor';
import { escapeLogText, type ObservedGroup, type TopicPartition } from '@load-aware/assignor/internal';
import type { TriggerMetrics } from './metrics.js';
import type { TriggerAssigner } from '../contract/target.js';
import { seconds } from '../contract/text.js';
import {
  createUnheldGuard,
  partitionsText,
  subscribedTopics,
  unheldPartitions,
  type UnheldVerdict,
} from '../judge/unheld-partitions.js';

/** What {@link createUnheldCheck} works with. */
export interface UnheldCheckDeps {
  readonly assigner: TriggerAssigner;
  readonly metrics: TriggerMetrics;
  /** Dry run: log and count, never rebalance. */
  readonly advise: boolean;
  /** The first wait before forcing again for partitions a forced rebalance left unheld. */
  readonly retryMs: number;
  readonly maxRetryMs: number;
  /** Grows with every rebalance this member took part in (its joins). */
  readonly rebalances: () => number;
}

/** One check of the coordinator, as far as unheld partitions are concerned. */
export interface UnheldCheckContext {
  /** The Stable group as described at this check. */
  readonly group: ObservedGroup;
  readonly memberId: string;
  readonly isLeader: boolean;
  /** The controller's logger, bound to the group. */
  readonly logger: Logger;
  /** What is left of the check's budget, in ms. */
  readonly budgetMs: () => number;
  /** False once the check was abandoned: nothing may be acted on then. */
  readonly live: () => boolean;
}

/** The coordinator's look for unheld partitions; see {@link createUnheldCheck}. */
export interface UnheldCheck {
  /**
   * Reads the subscribed topics' partitions and acts on those no member holds. True when this
   * check forced a rebalance (in advise mode: would have); the caller then skips the trigger.
   * Rejects when the metadata cannot be read within the check's budget.
   */
  check(ctx: UnheldCheckContext): Promise<boolean>;
}

/**
 * Creates the look for unheld partitions of one controller. Partitions seen unheld for the first
 * time force a rebalance at once (counted in `rebalances_initiated_total`, logged with the
 * partitions named); if a forced rebalance leaves them unheld, the next force waits (see
 * `createUnheldGuard`) and a WARN names the likely causes, so the group never rebalances at
 * every check for partitions its leader cannot assign.
 */
export function createUnheldCheck(deps: UnheldCheckDeps): UnheldCheck {
  const guard = createUnheldGuard({
    retryMs: deps.retryMs,
    maxRetryMs: Math.max(deps.retryMs, deps.maxRetryMs),
    monotonicNow: () => performance.now(),
  });
  const { assigner, metrics } = deps;

  const act = (ctx: UnheldCheckContext, unheld: ReadonlyArray<TopicPartition>, verdict: UnheldVerdict): boolean => {
    const { group, logger } = ctx;
    const named = escapeLogText(partitionsText(unheld));
    const what = `${String(unheld.length)} subscribed partition(s) held by no member: ${named}`;
    const fields = { memberId: ctx.memberId, isLeader: ctx.isLeader, unheldCount: unheld.length, unheld: named };
    switch (verdict.kind) {
      case 'held':
        if (verdict.afterAttempts > 0) {
          logger.info(
            { memberId: ctx.memberId, forcedRebalances: verdict.afterAttempts },
            `every subscribed partition is held again, after ${String(verdict.afterAttempts)} forced rebalance(s)`,
          );
        }
        return false;
      case 'wait':
        if (verdict.failed) {
          logger.warn(
            { ...fields, attempt: verdict.attempt, retryInMs: verdict.retryInMs },
            `${what} even after the forced rebalance; next attempt in ${seconds(verdict.retryInMs)}. ` +
              likelyCauses(group),
          );
        } else {
          logger.debug(
            { ...fields, attempt: verdict.attempt, retryInMs: verdict.retryInMs },
            `${what}; waiting for the forced rebalance (next attempt in ${seconds(verdict.retryInMs)})`,
          );
        }
        return false;
      case 'force':
        break;
    }
    const attempt = { ...fields, attempt: verdict.attempt };
    if (deps.advise) {
      metrics.rebalance(group.groupId, true);
      logger.info(attempt, `advise mode: would force a group rebalance: ${what}`);
      return true;
    }
    const epoch = assigner.bumpEpoch(group.groupId);
    // Started as a fire is (in the background, this member processing on), so it costs the same.
    const asked = assigner.startRebalance(group.groupId);
    metrics.rebalance(group.groupId, false);
    const rejoin = `epoch bumped to ${String(epoch)} and a JoinGroup sent for this member, so the whole group rebalances`;
    if (verdict.attempt === 1) {
      logger.info({ ...attempt, epoch, consumersAsked: asked }, `rebalance forced: ${what}; ${rejoin}`);
    } else {
      logger.warn(
        { ...attempt, epoch, consumersAsked: asked, nextRetryMs: verdict.nextRetryMs },
        `rebalance forced again (attempt ${String(verdict.attempt)}): ${what}; ${rejoin}; ` +
          `next attempt no sooner than ${seconds(verdict.nextRetryMs)}`,
      );
    }
    if (asked === 0) {
      logger.warn(
        fields,
        'no consumer of this assigner is in the group to rejoin; the new epoch applies at its next join',
      );
    }
    return true;
  };

  return {
    async check(ctx) {
      // A target that cannot read metadata for the trigger (an older assigner): nothing to judge.
      if (typeof assigner.readTopicPartitions !== 'function') return false;
      const reading = assigner.readTopicPartitions(
        ctx.group.groupId,
        subscribedTopics(ctx.group.members),
        ctx.budgetMs(),
      );
      if (reading === undefined) return false;
      const { listed, unlisted } = await reading;
      if (!ctx.live()) return false;
      if (unlisted.length > 0) {
        ctx.logger.debug(
          { memberId: ctx.memberId, unlisted },
          escapeLogText(
            `subscribed topics the broker did not list: ${unlisted.map((u) => u.topic).join(', ')}; ` +
              'their partitions are not checked',
          ),
        );
      }
      const unheld = unheldPartitions(ctx.group.members, listed);
      metrics.unheld(ctx.group.groupId, unheld.length);
      return act(ctx, unheld, guard.observe(unheld, deps.rebalances()));
    },
  };
}

/** Why a rebalance can leave listed partitions unassigned, in one sentence. */
function likelyCauses(group: ObservedGroup): string {
  const protocol =
    group.protocol === ASSIGNER_NAME
      ? ''
      : `the group runs protocol ${escapeLogText(group.protocol)}, whose leader assigns only its own subscription; `;
  return (
    `Likely causes: ${protocol}the leader cannot read those topics' metadata (see its WARN: ACLs, timeouts); ` +
    "the leader's broker does not list the partitions yet"
  );
}
