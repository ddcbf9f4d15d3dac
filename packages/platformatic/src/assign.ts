import {
  fallbackAssignments,
  placeMembers,
  prepareMembers,
  rememberAssignment,
  subscribedTopics,
  warnFallback,
  currentOwners,
  escapeLogText,
  keyOfPartition,
  partitionRacks,
  siblingLoadsLogged,
  siblingPartitions,
  type SharedRackLists,
  type SiblingReading,
  type BalanceMember,
  type DecodedMember,
  type RebalanceCause,
  type PlacementContext,
  type TopicPartition,
} from '@load-aware/assignor/portable';
import { cooperativeRound, withPromises, type Transfer } from './cooperative.js';
import type { PlatformaticMetrics } from './metrics.js';
import { decodeGroup, type ForeignMember, type MemberSubscription } from './subscriptions.js';
import type { WeightSnapshot } from './weight-snapshot.js';

/** The cluster metadata platformatic hands the assigner: what it needs of it. */
export interface TopicsMetadata {
  readonly topics: ReadonlyMap<
    string,
    {
      readonly partitionsCount: number;
      /** Each partition's leader and replicas, by partition number (platformatic lists them so). */
      readonly partitions?: ReadonlyArray<{ readonly leader: number; readonly replicas?: ReadonlyArray<number> }>;
    }
  >;
  /** The brokers and their `broker.rack`, by node id. */
  readonly brokers?: ReadonlyMap<number, { readonly rack?: string | null | undefined }>;
}

/** One member's assignment in platformatic's shape (`GroupPartitionsAssignments`). */
export interface PlatformaticAssignment {
  memberId: string;
  assignments: Map<string, { topic: string; partitions: number[] }>;
}

/** Everything one consumer's assigner needs as group leader. */
export interface SyncAssignContext extends PlacementContext {
  readonly snapshot: WeightSnapshot;
  readonly platformaticMetrics: PlatformaticMetrics;
  /** True when this assigner offers `cooperative-sticky`. */
  readonly cooperativeOffered: boolean;
  /** Last round's cooperative promises for this group, and where to keep this round's. */
  readonly promises: { recall(): Transfer[]; keep(transfers: Transfer[]): void };
  /**
   * Hands the rebalance's cause to the members: platformatic sends one assignment userData to
   * every member, and the cause is the same for all of them.
   */
  readonly noteCause: (cause: RebalanceCause) => void;
  /**
   * Cross-group: the sibling groups as this member read them at its join, right before the
   * JoinGroup that made it leader (a synchronous assigner cannot describe them now); their
   * partitions' weights are in the snapshot. Undefined when cross-group is off or unread.
   */
  readonly siblings?: ReadonlyArray<SiblingReading> | undefined;
}

/**
 * The leader's `partitionAssigner`: platformatic calls it synchronously, so everything it reads
 * is already in memory — the members' subscriptions, the cluster metadata platformatic just
 * loaded for every subscribed topic, and the weight snapshot refreshed before this JoinGroup.
 * Then the same placement as the KafkaJS assigner (`placeMembers`), and under `cooperative-sticky`
 * the two-round contract. Never throws (a throw would fail platformatic's SyncGroup): any
 * failure falls back to round-robin over each member's own subscription.
 */
export function assignSync(
  ctx: SyncAssignContext,
  subscriptions: ReadonlyMap<string, MemberSubscription>,
  leaderTopics: ReadonlySet<string>,
  metadata: TopicsMetadata,
): PlatformaticAssignment[] {
  const started = performance.now();
  const elapsedMs = (): number => Math.round((performance.now() - started) * 1000) / 1000;
  const memberIds = [...subscriptions.keys()];
  let members: BalanceMember[] = [];
  let partitions: TopicPartition[] = [];
  let cooperative = false;
  let owners: ReturnType<typeof currentOwners> | undefined;
  let decoded: DecodedMember[] = [];
  let assignments: Map<string, TopicPartition[]>;
  let cause: RebalanceCause;
  try {
    const group = decodeGroup(subscriptions, ctx.cooperativeOffered);
    decoded = group.members;
    cooperative = group.cooperative;
    warnAboutForeignMembers(ctx, group.foreign, cooperative);
    members = prepareMembers(ctx, group.members, [...leaderTopics]);
    partitions = listPartitions(ctx, subscribedTopics(members), metadata);
    owners = currentOwners(group.members, ctx.memory.recall(ctx.groupId));
    if (cooperative) owners = withPromises(owners, ctx.promises.recall(), members);
    const siblings = ctx.siblings;
    const extra = siblings === undefined ? [] : siblingPartitions(siblings);
    // One reading weighs both, so the siblings' load is judged by the same snapshot.
    const reading = ctx.snapshot.read(extra.length === 0 ? partitions : [...partitions, ...extra]);
    logWeights(ctx, reading, partitions);
    const placement = placeMembers(ctx, {
      decoded: group.members,
      members,
      partitions,
      weights: reading.weights,
      instanceBaseLoad: siblings && siblingLoadsLogged(ctx, siblings, reading.weights),
      owners,
      elapsedMs,
    });
    if (siblings !== undefined) ctx.metrics.crossGroup(ctx.groupId, placement.combinedSkewRatio, siblings);
    assignments = placement.result.assignments;
    cause = placement.cause;
  } catch (err) {
    warnFallback(ctx, err);
    ({ assignments, cause } = fallbackAssignments(ctx, members, partitions, memberIds, elapsedMs, decoded));
  }
  // The fallback keeps the contract too: under cooperative-sticky, a round-robin that moved a
  // partition directly would have it held by two members at once.
  if (cooperative && owners !== undefined) assignments = handOutCooperatively(ctx, assignments, owners.previous);
  else ctx.promises.keep([]);
  rememberAssignment(ctx, assignments, members, decoded, partitions);
  ctx.noteCause(cause);
  return toPlatformatic(assignments, memberIds);
}

function handOutCooperatively(
  ctx: SyncAssignContext,
  target: Map<string, TopicPartition[]>,
  owners: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): Map<string, TopicPartition[]> {
  const { handed, withheld } = cooperativeRound(target, owners);
  ctx.promises.keep(withheld);
  ctx.platformaticMetrics.withheld(ctx.groupId, withheld.length);
  if (withheld.length > 0) {
    const sample = withheld.slice(0, 10).map((t) => `${t.topic}:${String(t.partition)} ${t.from} -> ${t.to}`);
    ctx.logger.info(
      { withheld: withheld.length, transfers: sample },
      escapeLogText(
        `cooperative: ${String(withheld.length)} partitions revoked from their owners this round, ` +
          `assigned to their new owners in the follow-up round (${sample.join(', ')}${withheld.length > 10 ? ', ...' : ''})`,
      ),
    );
  }
  return handed;
}

/**
 * The partitions of `topics` from the metadata platformatic loaded for them, each with the racks
 * of its replicas (the `replicaRacks` option says which count) when the brokers report racks.
 */
function listPartitions(
  ctx: SyncAssignContext,
  topics: ReadonlyArray<string>,
  metadata: TopicsMetadata,
): Array<TopicPartition & { readonly racks?: ReadonlyArray<string> }> {
  const out: Array<TopicPartition & { readonly racks?: ReadonlyArray<string> }> = [];
  const brokerRacks = new Map<number, string>();
  const sharedRacks: SharedRackLists = new Map();
  for (const [nodeId, broker] of metadata.brokers ?? []) {
    if (typeof broker.rack === 'string' && broker.rack !== '') brokerRacks.set(nodeId, broker.rack);
  }
  for (const topic of topics) {
    const listed = metadata.topics.get(topic);
    const count = listed?.partitionsCount;
    if (count === undefined) {
      // Platformatic fails the sync before calling the assigner when a topic is missing; this is
      // only reached by a future version that does not.
      ctx.logger.warn(
        { topic },
        escapeLogText(`no partition metadata for topic ${topic}; its partitions are not assigned this time`),
      );
      continue;
    }
    for (let partition = 0; partition < count; partition++) {
      const replicas = listed?.partitions?.[partition];
      const racks =
        replicas === undefined
          ? undefined
          : partitionRacks(replicas, brokerRacks, ctx.options.replicaRacks, sharedRacks);
      out.push(racks === undefined ? { topic, partition } : { topic, partition, racks });
    }
  }
  return out;
}

/** Says which weights the assignment reads: a synchronous assigner cannot ask the source itself. */
function logWeights(
  ctx: SyncAssignContext,
  reading: ReturnType<WeightSnapshot['read']>,
  own: ReadonlyArray<TopicPartition>,
): void {
  ctx.platformaticMetrics.weightsAge(ctx.groupId, reading.ageMs / 1000);
  // The group's own partitions only: the reading also weighs the cross-group siblings'.
  const keys = new Set(own.map(keyOfPartition));
  const weighed = reading.weights.filter((w) => keys.has(keyOfPartition(w))).length;
  const partitions = own.length;
  ctx.logger.info(
    { weightsAgeMs: reading.ageMs, weightsRefreshedBy: reading.cause, weighed, partitions },
    `weights: snapshot from ${(reading.ageMs / 1000).toFixed(1)} s ago (refreshed at ${reading.cause === 'join' ? 'a join' : 'the background refresh'}), ` +
      `${String(weighed)} of ${String(partitions)} partitions weighed`,
  );
}

function warnAboutForeignMembers(
  ctx: SyncAssignContext,
  foreign: ReadonlyArray<ForeignMember>,
  cooperative: boolean,
): void {
  ctx.platformaticMetrics.foreign(ctx.groupId, foreign);
  for (const m of foreign) {
    if (!ctx.warnOnce(`foreign\u0000${m.kind}\u0000${m.memberId}`)) continue;
    const text =
      m.kind === 'plain_cooperative_sticky'
        ? `member ${m.memberId} shares this cooperative group without load-aware: whichever member leads assigns, ` +
          'so its count-based assignments undo this placement; run load-aware on every member'
        : `member ${m.memberId} offers only the eager LoadAwareAssigner protocol (KafkaJS, or platformatic in eager mode), ` +
          `so the group runs eagerly${cooperative ? '' : ' this generation'}; cooperative mode needs every member in it`;
    ctx.logger.warn({ memberId: m.memberId, kind: m.kind }, escapeLogText(text));
  }
}

/** Platformatic's shape, every member listed (an empty map is "nothing for you"). */
function toPlatformatic(
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  memberIds: ReadonlyArray<string>,
): PlatformaticAssignment[] {
  return memberIds.map((memberId) => {
    const byTopic = new Map<string, { topic: string; partitions: number[] }>();
    for (const { topic, partition } of assignments.get(memberId) ?? []) {
      const entry = byTopic.get(topic);
      if (entry === undefined) byTopic.set(topic, { topic, partitions: [partition] });
      else entry.partitions.push(partition);
    }
    return { memberId, assignments: byTopic };
  });
}
