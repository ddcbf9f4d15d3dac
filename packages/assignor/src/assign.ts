import { AssignerProtocol, type Cluster, type GroupMember, type GroupMemberAssignment } from 'kafkajs';
import { balance } from './core/balance.js';
import { roundRobin } from './core/round-robin.js';
import type { BalanceMember, BalanceOptions, TopicPartition } from './core/types.js';
import type { AssignmentMemory } from './assignment-memory.js';
import { logAssignment, logFallback } from './assignment-log.js';
import { currentOwners } from './current-owners.js';
import { decodeMember, type DecodedMember } from './members.js';
import type { Logger } from './logger.js';
import type { AssignorMetrics } from './metrics.js';
import type { ResolvedLoadAwareAssignerOptions } from './options.js';
import type { OwnAssignment } from './own-assignment.js';
import { listPartitions, type LateMetadataHandling } from './partition-catalog.js';
import { fetchWeights } from './weight-source.js';
import { mergeWeights } from './merge-weights.js';
import { CAPACITY_SPREAD, MAX_CAPACITY, MIN_CAPACITY, resolveCapacities } from './core/capacity.js';
import { errorCodeOf, errorMessageOf } from './error-fields.js';
import { classifyRebalance, encodeAssignmentNote, type RebalanceCause } from './rebalance-cause.js';
import { latestGroupPause } from './rebalance-report.js';
import type { RememberedAssignment } from './assignment-memory.js';
import { escapeLogText } from './log-text.js';
import {
  readSiblingGroups,
  siblingBaseLoads,
  siblingPartitions,
  type CrossGroupSettings,
  type DescribeGroup,
  type SiblingCache,
  type SiblingReading,
} from './sibling-groups.js';

/** Everything one consumer's assigner needs to compute assignments as group leader. */
export interface AssignContext {
  readonly cluster: Cluster;
  readonly groupId: string;
  readonly options: ResolvedLoadAwareAssignerOptions;
  /** `options.logger` with this consumer's `component` and `groupId` bound to every line. */
  readonly logger: Logger;
  readonly metrics: AssignorMetrics;
  /** Remembers which members were already warned about, so each is warned once. */
  readonly warnOnce: (memberId: string) => boolean;
  /** The last assignment this process computed per group: owners for members that report none. */
  readonly memory: AssignmentMemory;
  /** The leader consumer's own membership: the generation this assignment is computed for. */
  readonly own?: OwnAssignment | undefined;
  /** Metadata that answers after the budget: remembered, and a rebalance asked for. */
  readonly lateMetadata?: LateMetadataHandling | undefined;
  /** Cross-group balancing: how to read the sibling groups; undefined when it is off. */
  readonly crossGroup?: CrossGroupContext | undefined;
}

/** What the leader needs to read the other groups of its cross-group set. */
export interface CrossGroupContext {
  readonly settings: CrossGroupSettings;
  readonly describe: DescribeGroup;
  readonly cache: SiblingCache;
}

/**
 * The leader's `assign()`: decode every member, list the union of their topics' partitions, ask
 * the weight source (time-boxed), balance, encode. Never throws (a throw would crash the consumer
 * and stall the group): any failure in weighing or balancing falls back to round-robin over each
 * member's own subscription, and even a failure of that yields empty assignments.
 *
 * Sticky: members report the partitions they own in their userData, so any leader, also one
 * that took over a second ago, knows the current owners; the assignment this process computed
 * last fills in for members that report nothing (see `currentOwners`). Members that left and
 * partitions that vanished are dropped in `balance()`, and whatever is handed out, fallback
 * included, is remembered.
 */
export async function assignGroup(
  ctx: AssignContext,
  group: { members: GroupMember[]; topics: string[] },
): Promise<GroupMemberAssignment[]> {
  const started = performance.now();
  const { logger } = ctx;
  const elapsedMs = (): number => Math.round((performance.now() - started) * 1000) / 1000;
  let members: BalanceMember[] = [];
  let partitions: TopicPartition[] = [];
  let decoded: DecodedMember[] = [];
  try {
    decoded = group.members.map(decodeMember);
    warnAboutUnreadableMembers(ctx, decoded);
    warnAboutSharedInstanceIds(ctx, decoded);
    members = decoded.map((m) => toBalanceMember(m, group.topics));
    warnAboutBoundedCapacities(ctx, members);
    const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
    // Read alongside the metadata, within the same budget: it adds no wait of its own.
    const siblingsRead = readSiblings(ctx);
    partitions = await listPartitions(
      ctx.cluster,
      topics,
      group.topics,
      ctx.options.weightsTimeoutMs,
      logger,
      ctx.lateMetadata,
    );
    const siblings = await siblingsRead;
    const extra = siblings === undefined ? [] : siblingPartitions(siblings);
    // One call weighs both: the siblings' load is judged by the same source, at the same moment.
    const weighed = extra.length === 0 ? partitions : [...partitions, ...extra];
    const weights = await fetchWeights(ctx.options.weights, weighed, ctx.options.weightsTimeoutMs);
    const instanceBaseLoad = siblings && baseLoads(ctx, siblings, weights);
    const remembered = ctx.memory.recall(ctx.groupId);
    const cause = rebalanceCause(remembered, decoded, partitions);
    const owners = currentOwners(decoded, remembered);
    const result = balance(
      {
        members,
        partitions: weights.length > 0 ? mergeWeights(partitions, weights) : partitions,
        previous: owners.previous,
        previousInstances: owners.previousInstances,
        instanceBaseLoad,
      },
      balanceOptions(ctx),
    );
    remember(ctx, result.assignments, members, decoded, partitions);
    const durationMs = elapsedMs();
    const { skewRatio, combinedSkewRatio } = logAssignment(
      logger,
      result,
      ctx.options.defaultWeight,
      durationMs,
      owners,
    );
    logRebalance(ctx, cause, decoded);
    ctx.metrics.assignment(ctx.groupId, 'load_aware', durationMs / 1000);
    ctx.metrics.quality(ctx.groupId, result.defaultedCount, skewRatio);
    if (siblings !== undefined) ctx.metrics.crossGroup(ctx.groupId, combinedSkewRatio, siblings);
    ctx.metrics.placement(ctx.groupId, result.optimalityRatio, result.movedCount);
    return encodeAssignments(result.assignments, cause);
  } catch (err) {
    logger.warn(
      { err, code: errorCodeOf(err) },
      // A weight source's message may quote what a remote server answered.
      escapeLogText(
        `load-aware assignment failed (${errorMessageOf(err)}); falling back to round-robin over each member's subscription`,
      ),
    );
    return fallback(ctx, group, members, partitions, elapsedMs, decoded);
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
function logRebalance(ctx: AssignContext, cause: RebalanceCause, decoded: ReadonlyArray<DecodedMember>): void {
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

/** Starts reading the sibling groups, when cross-group balancing is on. Never rejects. */
function readSiblings(ctx: AssignContext): Promise<SiblingReading[]> | undefined {
  const cross = ctx.crossGroup;
  if (cross === undefined) return undefined;
  return readSiblingGroups(cross.describe, ctx.groupId, cross.settings, cross.cache, ctx.options.weightsTimeoutMs);
}

/**
 * The siblings' load per instance, weighed with the rule the group's own partitions get (unusable
 * or missing weights count as the default), and a line for each sibling that did not count as read
 * now: a stale reading at INFO, a group left out at WARN (its load is then missing from the
 * balance, which a user must be able to see).
 */
function baseLoads(
  ctx: AssignContext,
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

function fallback(
  ctx: AssignContext,
  group: { members: GroupMember[]; topics: string[] },
  members: BalanceMember[],
  partitions: TopicPartition[],
  elapsedMs: () => number,
  decoded: ReadonlyArray<DecodedMember>,
): GroupMemberAssignment[] {
  try {
    const assignments = roundRobin(members, partitions);
    const cause = rebalanceCause(ctx.memory.recall(ctx.groupId), decoded, partitions);
    remember(ctx, assignments, members, decoded, partitions);
    logFallback(ctx.logger, assignments, new Map(members.map((m) => [m.memberId, m.instanceId])), elapsedMs());
    logRebalance(ctx, cause, decoded);
    ctx.metrics.assignment(ctx.groupId, 'fallback', elapsedMs() / 1000);
    return encodeAssignments(assignments, cause);
  } catch (err) {
    ctx.logger.error({ err }, 'round-robin fallback failed; every member gets an empty assignment');
    ctx.memory.forget(ctx.groupId);
    ctx.metrics.assignment(ctx.groupId, 'fallback', elapsedMs() / 1000);
    return encodeAssignments(new Map(group.members.map((m) => [m.memberId, []])), 'unknown');
  }
}

function balanceOptions(ctx: AssignContext): BalanceOptions {
  const { defaultWeight, moveTolerance, maxMovesPerRebalance } = ctx.options;
  return maxMovesPerRebalance === undefined
    ? { defaultWeight, moveTolerance }
    : { defaultWeight, moveTolerance, maxMovesPerRebalance };
}

/** Keeps what is handed out as the group's next `previous`, with each member's instance. */
function remember(
  ctx: AssignContext,
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

/**
 * A member whose subscription could not be read at all is assumed to subscribe to the leader's
 * topics: that is what KafkaJS's own round-robin assumes for every member.
 */
function toBalanceMember(member: DecodedMember, leaderTopics: ReadonlyArray<string>): BalanceMember {
  return {
    memberId: member.memberId,
    instanceId: member.instanceId,
    topics: member.topics ?? leaderTopics,
    capacity: member.capacity,
  };
}

function warnAboutUnreadableMembers(ctx: AssignContext, members: ReadonlyArray<DecodedMember>): void {
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
function warnAboutSharedInstanceIds(ctx: AssignContext, members: ReadonlyArray<DecodedMember>): void {
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
 * in core/capacity.ts) and this says so, naming the instance and its members, on every
 * assignment it happens: a silently ignored setting would look like a balancing bug.
 */
function warnAboutBoundedCapacities(ctx: AssignContext, members: ReadonlyArray<BalanceMember>): void {
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

function encodeAssignments(
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  cause: RebalanceCause,
): GroupMemberAssignment[] {
  const out: GroupMemberAssignment[] = [];
  const userData = encodeAssignmentNote(cause);
  for (const [memberId, partitions] of assignments) {
    // No prototype: a legal topic named "constructor" or "toString" must not hit an inherited key.
    const assignment = Object.create(null) as Record<string, number[]>;
    for (const { topic, partition } of partitions) (assignment[topic] ??= []).push(partition);
    out.push({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData }),
    });
  }
  return out;
}
