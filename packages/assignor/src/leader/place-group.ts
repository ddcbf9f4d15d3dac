import { balance } from '../core/balance.js';
import { roundRobin } from '../core/place/round-robin.js';
import type { BalanceMember, BalanceOptions, BalanceResult, TopicPartition, WeightedPartition } from '../core/types.js';
import type { AssignmentMemory, RememberedAssignment } from './assignment-memory.js';
import { classifyRebalance, type RebalanceCause } from '../protocol/rebalance-cause.js';
import { latestGroupPause } from './rebalance-report.js';
import { logAssignment, logFallback } from './assignment-log.js';
import { currentOwners, type CurrentOwners } from './current-owners.js';
import type { DecodedMember } from '../protocol/member-record.js';
import type { Logger } from '../base/logger.js';
import type { AssignorMetrics } from '../config/metrics.js';
import type { ResolvedLoadAwareAssignerOptions } from '../config/options.js';
import { mergeWeights } from '../inputs/merge-weights.js';
import { CAPACITY_SPREAD, MAX_CAPACITY, MIN_CAPACITY, resolveCapacities } from '../core/model/capacity.js';
import { errorCodeOf, errorMessageOf } from '../errors/error-fields.js';
import { escapeLogText } from '../base/log-text.js';

/**
 * The client-neutral half of an assignment: from decoded members, the partitions to assign and
 * their weights to the placement, its log lines, metrics and the leader's memory. The KafkaJS
 * adapter (`assign.ts`) and the @platformatic/kafka adapter both call it, so the two place,
 * warn, log and count alike. Loads no client library.
 */

/** What placing a group needs, whatever the client. */
export interface PlacementContext {
  readonly groupId: string;
  readonly options: ResolvedLoadAwareAssignerOptions;
  /** `options.logger` with this consumer's `component` and `groupId` bound to every line. */
  readonly logger: Logger;
  readonly metrics: AssignorMetrics;
  /** Remembers which members were already warned about, so each is warned once. */
  readonly warnOnce: (key: string) => boolean;
  /** The last assignment this process computed per group: owners for members that report none. */
  readonly memory: AssignmentMemory;
  /** The leader consumer's own membership: the generation this assignment is computed for. */
  readonly own?:
    | {
        /** The generation of the leader's latest JoinGroup answer, undefined before the first. */
        generation(): number | undefined;
      }
    | undefined;
}

/** What {@link placeMembers} placed and how. */
export interface Placement {
  readonly result: BalanceResult;
  /** The current owners `balance()` was sticky to. */
  readonly owners: CurrentOwners;
  /** Max instance load ÷ ideal, and the same with the siblings' base loads (cross-group). */
  readonly skewRatio: number;
  readonly combinedSkewRatio: number;
  /** Why the group rebalanced, as this leader tells it (sent to the members where the client can). */
  readonly cause: RebalanceCause;
}

/**
 * The members as `balance()` takes them, after the warnings every leader gives about them: no
 * usable userData, one instance id from several processes, capacities bounded. A member whose
 * subscription could not be read is assumed to subscribe to the leader's topics (what KafkaJS's
 * own round-robin assumes for every member).
 */
export function prepareMembers(
  ctx: PlacementContext,
  decoded: ReadonlyArray<DecodedMember>,
  leaderTopics: ReadonlyArray<string>,
): BalanceMember[] {
  warnAboutUnreadableMembers(ctx, decoded);
  warnAboutSharedInstanceIds(ctx, decoded);
  const members = decoded.map((m) => ({
    memberId: m.memberId,
    instanceId: m.instanceId,
    topics: m.topics ?? leaderTopics,
    capacity: m.capacity,
    ...(m.rack === undefined ? {} : { rack: m.rack }),
  }));
  warnAboutBoundedCapacities(ctx, members);
  return members;
}

/** Every topic some member subscribes to, sorted. */
export function subscribedTopics(members: ReadonlyArray<BalanceMember>): string[] {
  return [...new Set(members.flatMap((m) => m.topics))].sort();
}

/**
 * Places `partitions` on `members` with `balance()`, sticky to the current owners (the members'
 * reports, then this process's memory, unless `owners` is given), then logs the explanation and
 * records the metrics. Does not remember the result: the caller does, with what it hands out
 * ({@link rememberAssignment}). Throws what `balance()` throws; callers fall back.
 */
export function placeMembers(
  ctx: PlacementContext,
  input: {
    readonly decoded: ReadonlyArray<DecodedMember>;
    readonly members: ReadonlyArray<BalanceMember>;
    readonly partitions: ReadonlyArray<TopicPartition>;
    readonly weights: ReadonlyArray<{ topic: string; partition: number; weight: number }>;
    readonly instanceBaseLoad?: Map<string, number> | undefined;
    readonly owners?: CurrentOwners | undefined;
    /** Milliseconds since the assignment started, weights included. */
    readonly elapsedMs: () => number;
  },
): Placement {
  const remembered = ctx.memory.recall(ctx.groupId);
  const cause = rebalanceCause(remembered, input.decoded, input.partitions);
  const owners = input.owners ?? currentOwners(input.decoded, remembered);
  const partitions: ReadonlyArray<WeightedPartition> =
    input.weights.length > 0 ? mergeWeights(input.partitions, input.weights) : input.partitions;
  const result = balance(
    {
      members: input.members,
      partitions,
      previous: owners.previous,
      previousInstances: owners.previousInstances,
      instanceBaseLoad: input.instanceBaseLoad,
    },
    balanceOptions(ctx.options),
  );
  const durationMs = input.elapsedMs();
  const { skewRatio, combinedSkewRatio, racks } = logAssignment(
    ctx.logger,
    result,
    ctx.options.defaultWeight,
    durationMs,
    owners,
  );
  logRebalance(ctx, cause, input.decoded);
  ctx.metrics.assignment(ctx.groupId, 'load_aware', durationMs / 1000);
  ctx.metrics.quality(ctx.groupId, result.defaultedCount, skewRatio);
  ctx.metrics.placement(ctx.groupId, result.optimalityRatio, result.movedCount);
  if (racks !== undefined) ctx.metrics.racks(ctx.groupId, racks.share, racks.lowerBound);
  return { result, owners, skewRatio, combinedSkewRatio, cause };
}

/** The WARN before a fallback, with the cause; a weight source's message may quote a remote server. */
export function warnFallback(ctx: PlacementContext, err: unknown): void {
  ctx.logger.warn(
    { err, code: errorCodeOf(err) },
    escapeLogText(
      `load-aware assignment failed (${errorMessageOf(err)}); falling back to round-robin over each member's subscription`,
    ),
  );
}

/**
 * The safety net: round-robin over each member's own subscription, remembered, logged and
 * counted, with the rebalance's cause. Never throws: should even that fail, every member in
 * `memberIds` gets nothing (cause `unknown`).
 */
export function fallbackAssignments(
  ctx: PlacementContext,
  members: ReadonlyArray<BalanceMember>,
  partitions: ReadonlyArray<TopicPartition>,
  memberIds: ReadonlyArray<string>,
  elapsedMs: () => number,
  decoded: ReadonlyArray<DecodedMember>,
): { readonly assignments: Map<string, TopicPartition[]>; readonly cause: RebalanceCause } {
  try {
    const assignments = roundRobin(members, partitions);
    const cause = rebalanceCause(ctx.memory.recall(ctx.groupId), decoded, partitions);
    rememberAssignment(ctx, assignments, members, decoded, partitions);
    logFallback(ctx.logger, assignments, new Map(members.map((m) => [m.memberId, m.instanceId])), elapsedMs());
    logRebalance(ctx, cause, decoded);
    ctx.metrics.assignment(ctx.groupId, 'fallback', elapsedMs() / 1000);
    return { assignments, cause };
  } catch (err) {
    ctx.logger.error({ err }, 'round-robin fallback failed; every member gets an empty assignment');
    ctx.memory.forget(ctx.groupId);
    ctx.metrics.assignment(ctx.groupId, 'fallback', elapsedMs() / 1000);
    return { assignments: new Map(memberIds.map((id) => [id, []])), cause: 'unknown' };
  }
}

/**
 * Keeps what is handed out as the group's next `previous`, with each member's instance, and the
 * members' epochs and the partition counts the next leader classifies the next rebalance against.
 */
export function rememberAssignment(
  ctx: PlacementContext,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  members: ReadonlyArray<BalanceMember>,
  decoded: ReadonlyArray<DecodedMember>,
  partitions: ReadonlyArray<TopicPartition>,
): void {
  ctx.memory.remember(ctx.groupId, {
    assignments,
    instanceOf: new Map(members.map((m) => [m.memberId, m.instanceId])),
    generation: ctx.own?.generation(),
    epochs: new Map(decoded.map((m) => [m.memberId, m.epoch])),
    partitionCounts: partitionCounts(partitions),
  });
}

function balanceOptions(options: ResolvedLoadAwareAssignerOptions): BalanceOptions {
  const { defaultWeight, moveTolerance, orphanAim, maxMovesPerRebalance } = options;
  return maxMovesPerRebalance === undefined
    ? { defaultWeight, moveTolerance, orphanAim }
    : { defaultWeight, moveTolerance, orphanAim, maxMovesPerRebalance };
}

function warnAboutUnreadableMembers(ctx: PlacementContext, members: ReadonlyArray<DecodedMember>): void {
  for (const m of members) {
    if (m.problem !== undefined && ctx.warnOnce(m.memberId)) {
      ctx.logger.warn(
        { memberId: m.memberId, reason: m.problem },
        `member has no usable load-aware userData (${m.problem}); treating it as an instance of its own`,
      );
    }
  }
}

/**
 * Warns when members of one instance id come from different processes (different process tokens):
 * most likely one instance id configured for several pods, which are then balanced as one
 * instance. Placement is left as it is; this only makes the mistake visible. Once per instance id
 * and set of processes, so a lasting mistake is reported once, not at every generation.
 */
function warnAboutSharedInstanceIds(ctx: PlacementContext, members: ReadonlyArray<DecodedMember>): void {
  const byInstance = new Map<string, DecodedMember[]>();
  for (const m of members) {
    if (m.processToken === undefined) continue;
    const list = byInstance.get(m.instanceId);
    if (list === undefined) byInstance.set(m.instanceId, [m]);
    else list.push(m);
  }
  for (const [instanceId, list] of byInstance) {
    const tokens = [...new Set(list.map((m) => m.processToken))].sort();
    if (tokens.length < 2 || !ctx.warnOnce(`instance\u0000${instanceId}\u0000${tokens.join(',')}`)) continue;
    const memberIds = list.map((m) => m.memberId).sort();
    ctx.logger.warn(
      { instanceId, memberIds, processes: tokens.length },
      escapeLogText(
        `instance id ${instanceId} arrives from ${String(tokens.length)} different processes (members ` +
          `${memberIds.join(', ')}): several processes share one instance id and are balanced as one ` +
          'instance; give each process its own instanceId',
      ),
    );
  }
}

/**
 * Capacities come from userData any member can fill in; `balance()` bounds them (the shared rule
 * in core/model/capacity.ts) and this says so, naming the instance and its members, on every
 * assignment it happens: a silently ignored setting would look like a balancing bug.
 */
function warnAboutBoundedCapacities(ctx: PlacementContext, members: ReadonlyArray<BalanceMember>): void {
  for (const { instanceId, reported, used } of resolveCapacities(members).adjusted) {
    const memberIds = members.filter((m) => m.instanceId === instanceId).map((m) => m.memberId);
    ctx.logger.warn(
      { instanceId, memberIds, reportedCapacity: reported, capacity: used },
      escapeLogText(
        `instance ${instanceId} reported capacity ${String(reported)}; using ${String(used)}: capacities are bounded ` +
          `to ${String(MIN_CAPACITY)}–${String(MAX_CAPACITY)} and to within ${String(CAPACITY_SPREAD)}x of the group's median`,
      ),
    );
  }
}

/**
 * Why the group rebalanced, against what this leader remembers of the previous generation; sent
 * to every member in its assignment so each can label what the rebalance cost it.
 */
function rebalanceCause(
  remembered: RememberedAssignment | undefined,
  decoded: ReadonlyArray<DecodedMember>,
  partitions: ReadonlyArray<TopicPartition>,
): RebalanceCause {
  const previous =
    remembered?.epochs === undefined || remembered.partitionCounts === undefined
      ? undefined
      : {
          memberIds: new Set(remembered.assignments.keys()),
          epochs: remembered.epochs,
          partitionCounts: remembered.partitionCounts,
        };
  return classifyRebalance(previous, {
    members: decoded,
    partitionCounts: partitionCounts(partitions),
    ownersReported: decoded.some((m) => m.owned !== undefined),
  });
}

function partitionCounts(partitions: ReadonlyArray<TopicPartition>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of partitions) counts.set(p.topic, (counts.get(p.topic) ?? 0) + 1);
  return counts;
}

/**
 * One INFO line per assignment: why the group rebalances now, and what the latest rebalance the
 * members reported cost the group (each member sends its own pause with its next JoinGroup).
 */
function logRebalance(ctx: PlacementContext, cause: RebalanceCause, decoded: ReadonlyArray<DecodedMember>): void {
  const last = latestGroupPause(decoded);
  if (last !== undefined) ctx.metrics.groupPause(ctx.groupId, last.pausedMemberSeconds);
  const fields = {
    cause,
    ...(last === undefined
      ? {}
      : {
          lastGeneration: last.generation,
          lastCause: last.cause,
          lastPausedMemberSeconds: last.pausedMemberSeconds,
          lastLongestPauseSeconds: last.longestSeconds,
        }),
  };
  const cost =
    last === undefined
      ? 'no pause reported yet'
      : `the last one (generation ${String(last.generation)}, ${last.cause}) paused ${last.pausedMemberSeconds.toFixed(2)} ` +
        `member-seconds over ${String(last.members)} members, longest ${last.longestSeconds.toFixed(2)} s on ` +
        `instance ${last.longestInstanceId}`;
  ctx.logger.info(fields, escapeLogText(`rebalance cause: ${cause}; ${cost}`));
}
