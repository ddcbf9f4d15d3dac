import { AssignerProtocol, type Cluster, type GroupMember, type GroupMemberAssignment } from 'kafkajs';
import type { BalanceMember, TopicPartition } from '../core/types.js';
import { decodeMember } from '../protocol/members.js';
import type { OwnAssignment } from '../kafkajs/own-assignment.js';
import { listPartitions, type LateMetadataHandling } from '../kafkajs/partition-catalog.js';
import { fetchWeights } from '../inputs/weight-source.js';
import { encodeAssignmentNote, type RebalanceCause } from '../protocol/rebalance-cause.js';
import type { DecodedMember } from '../protocol/members.js';
import {
  fallbackAssignments,
  placeMembers,
  prepareMembers,
  rememberAssignment,
  subscribedTopics,
  warnFallback,
  type PlacementContext,
} from './place-group.js';
import { siblingLoadsLogged } from './sibling-loads.js';
import {
  readSiblingGroups,
  siblingPartitions,
  type CrossGroupSettings,
  type DescribeGroup,
  type SiblingCache,
  type SiblingReading,
} from '../inputs/sibling-groups.js';

/** Everything one consumer's assigner needs to compute assignments as group leader. */
export interface AssignContext extends PlacementContext {
  readonly cluster: Cluster;
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
    members = prepareMembers(ctx, decoded, group.topics);
    const topics = subscribedTopics(members);
    // Read alongside the metadata, within the same budget: it adds no wait of its own.
    const siblingsRead = readSiblings(ctx);
    partitions = await listPartitions(
      ctx.cluster,
      topics,
      group.topics,
      ctx.options.weightsTimeoutMs,
      logger,
      ctx.lateMetadata,
      ctx.options.replicaRacks,
    );
    const siblings = await siblingsRead;
    const extra = siblings === undefined ? [] : siblingPartitions(siblings);
    // One call weighs both: the siblings' load is judged by the same source, at the same moment.
    const weighed = extra.length === 0 ? partitions : [...partitions, ...extra];
    const weights = await fetchWeights(ctx.options.weights, weighed, ctx.options.weightsTimeoutMs);
    const instanceBaseLoad = siblings && siblingLoadsLogged(ctx, siblings, weights);
    const { result, combinedSkewRatio, cause } = placeMembers(ctx, {
      decoded,
      members,
      partitions,
      weights,
      instanceBaseLoad,
      elapsedMs,
    });
    rememberAssignment(ctx, result.assignments, members, decoded, partitions);
    if (siblings !== undefined) ctx.metrics.crossGroup(ctx.groupId, combinedSkewRatio, siblings);
    return encodeAssignments(result.assignments, cause);
  } catch (err) {
    warnFallback(ctx, err);
    const memberIds = group.members.map((m) => m.memberId);
    const { assignments, cause } = fallbackAssignments(ctx, members, partitions, memberIds, elapsedMs, decoded);
    return encodeAssignments(assignments, cause);
  }
}

/** Starts reading the sibling groups, when cross-group balancing is on. Never rejects. */
function readSiblings(ctx: AssignContext): Promise<SiblingReading[]> | undefined {
  const cross = ctx.crossGroup;
  if (cross === undefined) return undefined;
  return readSiblingGroups(cross.describe, ctx.groupId, cross.settings, cross.cache, ctx.options.weightsTimeoutMs);
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
