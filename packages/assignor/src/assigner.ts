import { AssignerProtocol, type Consumer, type PartitionAssigner } from 'kafkajs';
import { ConfigError } from './errors/errors.js';
import type { TriggerTarget } from './trigger-target.js';
import { kafkajsTriggerTarget } from './consumer-target.js';
import { assignGroup } from './leader/assign.js';
import { ASSIGNER_NAME } from './protocol/protocol-name.js';
import { createAssignmentMemory } from './leader/assignment-memory.js';
import { processToken } from './protocol/instance-id.js';
import { bindLogger } from './base/logger.js';
import { createAssignorMetrics } from './config/metrics.js';
import { resolveOptions, type LoadAwareAssignerOptions } from './config/options.js';
import type { OwnAssignment } from './kafkajs/own-assignment.js';
import type { StaticMember } from './kafkajs/static-membership.js';
import type { PartitionProgress, ReadProgress } from './kafkajs/group-progress.js';
import { withTimeout } from './base/timeout.js';
import { WeakGroupLists } from './weak-group-lists.js';
import type { TopicPartition } from './core/types.js';
import { createRejoinSwitchboard } from './kafkajs/rejoin.js';
import { LateTopicMetadata } from './inputs/late-metadata.js';
import type { ReadTopicPartitions, TopicPartitionsReading } from './kafkajs/topic-partitions.js';
import { decodeUserData, encodeUserData } from './protocol/user-data.js';
import type { WeightSource } from './inputs/weight-source.js';
import {
  readSiblingGroups,
  SiblingCache,
  type CrossGroupSettings,
  type DescribeGroup,
  type SiblingReading,
} from './inputs/sibling-groups.js';
import {
  CLUSTER_INTERNALS,
  MODULE_INTERNALS,
  createSeamReporter,
  missingClusterInternals,
  type KafkaJsFeature,
} from './kafkajs/internals.js';
import { missingModuleInternals } from './kafkajs/wire.js';

import { interceptConsumerCluster, type InterceptedConsumer } from './kafkajs/intercept.js';
import { backgroundJoinThrough } from './kafkajs/background-join.js';

export { ASSIGNER_NAME };

/** Where a consumer's assigner object keeps its background-join closure alive. */
const BACKGROUND_JOIN = Symbol('load-aware.backgroundJoin');

/** How many member ids the "warn once" memory holds before it starts over. */
const WARNED_MEMBERS_LIMIT = 10_000;

/**
 * A KafkaJS `PartitionAssigner` that places by weight, with the few verbs a user needs: its
 * identity, one way to request a rebalance, and the target the trigger controller watches.
 */
export interface LoadAwarePartitionAssigner extends PartitionAssigner {
  /** The instance id every consumer using this assigner advertises. */
  readonly instanceId: string;
  /** The rebalance epoch currently advertised in userData by this process's members of `groupId`. */
  epochOf(groupId: string): number;
  /**
   * Rebalances `groupId` now: advances the epoch this process's members advertise (changed
   * metadata makes the broker rebalance the whole group, whichever member leads) and sends a
   * JoinGroup with it on behalf of one joined consumer, which keeps processing until its next
   * heartbeat learns of the rebalance. Returns how many consumers were involved; 0 when none of
   * this process is in the group, and then the epoch is left as it was.
   */
  requestRebalance(groupId: string): number;
  /**
   * One consumer of this assigner as `@load-aware/trigger`'s controller takes it:
   * `createTriggerController({ target: assigner.triggerTarget(consumer) }, options)`. The group is
   * read through the consumer's own connection (`consumer.describeGroup()`), membership follows its
   * instrumentation events, and a fire starts the rebalance as {@link requestRebalance} does.
   */
  triggerTarget(consumer: Consumer): TriggerTarget;
  /**
   * The group instance ids this process's consumers of `groupId` join with, in the order the
   * consumers were created (empty without static membership).
   */
  groupInstanceIds(groupId: string): string[];
  /**
   * With static membership: from now on, `disconnect()` of this process's consumers sends
   * LeaveGroup, so their groups rebalance at once instead of waiting `sessionTimeout` for them.
   * Call it before `disconnect()` when the process goes away for good (a scale-down); a deploy
   * that restarts the process should not. `leave = false` restores the default.
   */
  leaveOnDisconnect(leave?: boolean): void;
}

/**
 * What an assigner holds beyond its public verbs: the settings the trigger judges with and the
 * readers and rebalance steps its target is built from. Reached with {@link assignerInternals}
 * (sibling packages, tests, benchmarks); not part of the public API.
 */
export interface LoadAwareAssignerInternals extends LoadAwarePartitionAssigner {
  /**
   * Advances the epoch of one group. The next JoinGroup of a consumer of `groupId` using this
   * assigner carries changed metadata, which makes the broker rebalance that group (used by the
   * trigger). Other groups sharing the assigner keep their metadata, so they do not rebalance.
   */
  bumpEpoch(groupId: string): number;
  /** The `rack` option: this process's rack, undefined when none is configured. */
  readonly rack: string | undefined;
  /**
   * The racks holding a replica of each of `partitions` (which replicas count: the `replicaRacks`
   * option), read from the metadata this process's consumer of `groupId` already holds, so that
   * the trigger places with the racks the leader places with. Undefined entries: no rack known.
   * Undefined when no consumer of `groupId` uses this assigner.
   */
  replicaRacksOf(
    groupId: string,
    partitions: ReadonlyArray<TopicPartition>,
  ): Array<ReadonlyArray<string> | undefined> | undefined;
  /** The weight source assignments use, so that the trigger judges with the very same weights. */
  readonly weights: WeightSource;
  /** The weight given to partitions without a usable weight (counted as defaulted). */
  readonly defaultWeight: number;
  /** The stickiness tolerance `balance()` runs with, so the trigger judges with the same one. */
  readonly moveTolerance: number;
  /** The churn bound `balance()` runs with (undefined: unbounded). */
  readonly maxMovesPerRebalance: number | undefined;
  /**
   * Makes every joined consumer of `groupId` that uses this assigner re-send JoinGroup once, from
   * its fetch loop (within about `maxWaitTimeInMs`). After {@link bumpEpoch} that JoinGroup
   * carries changed metadata, so the broker rebalances the whole group, whether or not this
   * member is the leader. Returns how many consumers were asked (0 when none is in a group).
   */
  requestRejoin(groupId: string): number;
  /** The `crossGroup` option as validated (groups sorted); undefined when cross-group is off. */
  readonly crossGroup: CrossGroupSettings | undefined;
  /**
   * Reads the other groups of the cross-group set exactly as the leader of `groupId` does, through
   * the connections of this process's consumer of `groupId` (used by the trigger, so that it
   * judges what the leader balances). Never rejects. Undefined when cross-group is off or no
   * consumer of `groupId` uses this assigner.
   */
  readSiblings(groupId: string, timeoutMs: number): Promise<SiblingReading[]> | undefined;
  /** True when this assigner's consumers join as static members (the `staticMembership` option). */
  readonly staticMembership: boolean;

  /**
   * Reads the committed and end offsets of `partitions` for `groupId` through the connections of
   * this process's consumer of that group (used by the trigger to see static members that are
   * away). Rejects after `timeoutMs`; undefined when no consumer of `groupId` uses this assigner.
   */
  readProgress(
    groupId: string,
    partitions: ReadonlyArray<TopicPartition>,
    timeoutMs: number,
  ): Promise<PartitionProgress[]> | undefined;
  /**
   * Records what a rebalance cost one consumer of this assigner (`measureRebalancePauses` calls
   * it): labelled with the cause the leader sent, exported as `load_aware_rebalance_pause_seconds`,
   * and sent with the consumer's next JoinGroup so the leader and the trigger see the group's cost.
   */
  recordPause(groupId: string, memberId: string, seconds: number): void;
  /**
   * Starts a group-wide rebalance of `groupId` without stopping this member first (after
   * {@link bumpEpoch}): a JoinGroup with the new metadata is sent on behalf of one joined consumer
   * of this process, while that consumer keeps processing until its next heartbeat tells it of
   * the rebalance, as every other member learns of it. With {@link requestRejoin} instead the
   * firing member stops at once and waits at the join barrier for everyone's next heartbeat, the
   * longest pause of the group. Falls back to `requestRejoin` when no consumer has joined yet.
   * Returns how many consumers were involved (0 when none is in the group).
   */
  startRebalance(groupId: string): number;
  /**
   * Reads the partition lists of `topics` fresh from the broker, through the connections of this
   * process's consumer of `groupId` and without touching its metadata cache (used by the trigger
   * to see partitions no member holds, e.g. partitions added since the last rebalance: KafkaJS's
   * own metadata is up to `metadataMaxAge` old). Never creates a topic. Topics the broker does not
   * list come back in `unlisted`; rejects after `timeoutMs` or when no broker answers. Undefined
   * when no consumer of `groupId` uses this assigner.
   */
  readTopicPartitions(
    groupId: string,
    topics: ReadonlyArray<string>,
    timeoutMs: number,
  ): Promise<TopicPartitionsReading> | undefined;
}

/** Where an assigner keeps its {@link LoadAwareAssignerInternals}. */
const INTERNALS = Symbol('load-aware.assignerInternals');

/** The workings of an assigner made by {@link LoadAwareAssigner}; throws for anything else. */
export function assignerInternals(assigner: LoadAwarePartitionAssigner): LoadAwareAssignerInternals {
  const internals = (assigner as unknown as Record<symbol, unknown>)[INTERNALS];
  if (internals === undefined) throw new ConfigError('expected an assigner made by LoadAwareAssigner(...)');
  return internals as LoadAwareAssignerInternals;
}

/**
 * Creates the load-aware partition assigner for KafkaJS. Register it first in
 * `partitionAssigners` and keep KafkaJS's round-robin after it, so the group still forms while
 * some members run an older version.
 *
 * Options are validated here, once: a bad key throws a `ConfigError` naming it.
 *
 * @example
 * ```ts
 * import { Kafka, PartitionAssigners } from 'kafkajs';
 * import { LoadAwareAssigner } from '@load-aware/assignor';
 *
 * const consumer = new Kafka({ brokers: ['localhost:9092'] }).consumer({
 *   groupId: 'orders',
 *   partitionAssigners: [LoadAwareAssigner({ weights: mySource }), PartitionAssigners.roundRobin],
 * });
 * ```
 */
export function LoadAwareAssigner(options: LoadAwareAssignerOptions = {}): LoadAwarePartitionAssigner {
  const resolved = resolveOptions(options);
  const metrics = createAssignorMetrics(resolved.registry);
  // Shared by every consumer of this assigner, so leadership moving between them keeps it.
  const memory = createAssignmentMemory();
  // Per group: a proactive rebalance of one group must not change what another group's
  // members of this process send, or that group would rebalance too.
  const epochs = new Map<string, number>();
  const epochOf = (groupId: string): number => epochs.get(groupId) ?? 0;
  const warned = new Set<string>();
  const warnOnce = (memberId: string): boolean => {
    if (warned.has(memberId)) return false;
    // Member ids change on every restart; start over rather than grow without bound.
    if (warned.size >= WARNED_MEMBERS_LIMIT) warned.clear();
    warned.add(memberId);
    return true;
  };

  const rejoins = createRejoinSwitchboard();
  let leaving = resolved.leaveOnDisconnect;
  const staticMembers = new WeakGroupLists<StaticMember>();
  const groupInstanceIds = (groupId: string): string[] =>
    staticMembers.live(groupId).map((member) => member.groupInstanceId);
  const bumpEpoch = (groupId: string): number => {
    const next = (epochOf(groupId) + 1) % 0x1_0000_0000;
    epochs.set(groupId, next);
    return next;
  };
  // Shared by the consumers of this assigner: whichever leads next may use what another learnt.
  const lateTopics = new LateTopicMetadata();
  // Sibling readings and the way to take them, per group this assigner serves: the trigger reads
  // through the same consumer connections, and a Stable reading stands in while a sibling rebalances.
  const siblingCache = new SiblingCache();
  const describers = new Map<string, DescribeGroup>();
  const progressReaders = new Map<string, ReadProgress>();
  const topicReaders = new Map<string, ReadTopicPartitions>();
  const rackReaders = new Map<string, InterceptedConsumer['replicaRacks']>();
  // The consumers' own-assignment views, to find the one a measured pause belongs to.
  const ownViews = new WeakGroupLists<OwnAssignment>();
  // Per group, each consumer's way to send a JoinGroup on its own behalf.
  const backgroundJoins = new WeakGroupLists<() => boolean>();
  const startRebalance = (groupId: string): number => {
    for (const join of backgroundJoins.live(groupId)) if (join()) return 1;
    return rejoins.request(groupId);
  };
  const recordPause = (groupId: string, memberId: string, seconds: number): void => {
    const own = ownViews.live(groupId).find((v) => v.memberId() === memberId);
    const rebalance = own?.lastRebalance();
    const cause = rebalance?.cause ?? 'unknown';
    metrics.pause(groupId, cause, seconds);
    if (own !== undefined && rebalance !== undefined) {
      own.notePause({ generation: rebalance.generation, pauseMs: seconds * 1000, cause });
    }
    bindLogger(resolved.logger, { component: 'assignor', groupId }).debug(
      { memberId, cause, generation: rebalance?.generation, pauseSeconds: seconds },
      `rebalance paused this member ${seconds.toFixed(3)} s (${cause})`,
    );
  };
  // What a member says about itself besides its subscription: all but the epoch fixed for the assigner's life.
  const identity = (epoch: number): MemberIdentity => ({
    instanceId: resolved.instanceId,
    capacity: resolved.capacity,
    epoch,
    ...(resolved.rack === undefined ? {} : { rack: resolved.rack }),
  });
  const crossGroupOf = (groupId: string, describe: DescribeGroup | undefined) =>
    resolved.crossGroup === undefined || describe === undefined
      ? undefined
      : { settings: resolved.crossGroup, describe, cache: siblingCache, groupId };

  // Features the options turn on: without their KafkaJS internals the consumer is not created.
  const optedIn = new Map<KafkaJsFeature, string>();
  if (resolved.staticMembership) optedIn.set('staticMembership', 'staticMembership');
  if (resolved.rack !== undefined) optedIn.set('racks', 'rack');
  if (resolved.crossGroup !== undefined) optedIn.set('crossGroup', 'crossGroup');
  const seam = createSeamReporter(() => bindLogger(resolved.logger, { component: 'assignor' }), metrics, optedIn);
  seam.report(MODULE_INTERNALS, missingModuleInternals());

  const factory: PartitionAssigner = ({ cluster, groupId }) => {
    seam.report(CLUSTER_INTERNALS, missingClusterInternals(cluster));
    // Bound once per consumer, so every line of its assignments names the group without repeating it.
    const logger = bindLogger(resolved.logger, { component: 'assignor', groupId });
    const consumer = interceptConsumerCluster(cluster, {
      groupId,
      rejoins,
      replicaRacks: resolved.replicaRacks,
      ...(resolved.staticMembership && {
        staticMembership: {
          instanceId: resolved.instanceId,
          groupId,
          leaveOnDisconnect: () => leaving,
          fenced: (err) => {
            metrics.fenced(groupId);
            logger.error(
              { groupInstanceId: err.groupInstanceId, instanceId: resolved.instanceId, code: err.code },
              `${err.message}; it will not rejoin. Give every process its own instanceId`,
            );
          },
        },
      }),
    });
    const { own, rejoin, staticMember, describe } = consumer;
    if (describe !== undefined) describers.set(groupId, describe);
    if (consumer.readProgress !== undefined) progressReaders.set(groupId, consumer.readProgress);
    if (consumer.readTopicPartitions !== undefined) topicReaders.set(groupId, consumer.readTopicPartitions);
    rackReaders.set(groupId, consumer.replicaRacks);
    if (staticMember !== undefined) staticMembers.add(groupId, staticMember);
    ownViews.add(groupId, own);
    const crossGroup = crossGroupOf(groupId, describe);
    const metadata = stableMetadata(own);
    const lateMetadata = {
      cache: lateTopics,
      // Like the trigger: a new epoch makes the rejoin a real rebalance whoever leads.
      arrived: () => {
        bumpEpoch(groupId);
        rejoins.request(groupId);
      },
    };
    let lastTopics: string[] | undefined;
    const joinInBackground = backgroundJoinThrough(cluster, {
      groupId,
      own,
      staticMember,
      protocolName: ASSIGNER_NAME,
      metadataNow: () => lastTopics && metadata(lastTopics, identity(epochOf(groupId))),
      rejoinInstead: () => {
        rejoins.request(groupId);
      },
      connectionMissing: () => {
        seam.report(['Connection'], ['Connection']);
      },
      logger,
    });
    backgroundJoins.add(groupId, joinInBackground);
    return {
      name: ASSIGNER_NAME,
      version: 0,
      // Held here, by the consumer's assigner list, so the weak entry above lives as long as it does.
      [BACKGROUND_JOIN]: joinInBackground,
      protocol({ topics }) {
        rejoin.joining();
        lastTopics = topics;
        const record = identity(epochOf(groupId));
        return { name: ASSIGNER_NAME, metadata: metadata(topics, record) };
      },
      assign: (group) =>
        assignGroup(
          { cluster, groupId, options: resolved, logger, metrics, warnOnce, memory, own, lateMetadata, crossGroup },
          group,
        ),
    };
  };

  const internals = Object.defineProperties(factory, {
    instanceId: { value: resolved.instanceId, enumerable: true },
    rack: { value: resolved.rack, enumerable: true },
    replicaRacksOf: {
      value: (groupId: string, partitions: ReadonlyArray<TopicPartition>) => rackReaders.get(groupId)?.(partitions),
    },
    epochOf: { value: epochOf },
    bumpEpoch: { value: bumpEpoch },
    weights: { value: resolved.weights, enumerable: true },
    defaultWeight: { value: resolved.defaultWeight, enumerable: true },
    moveTolerance: { value: resolved.moveTolerance, enumerable: true },
    maxMovesPerRebalance: { value: resolved.maxMovesPerRebalance, enumerable: true },
    requestRejoin: { value: (groupId: string): number => rejoins.request(groupId) },
    crossGroup: { value: resolved.crossGroup, enumerable: true },
    staticMembership: { value: resolved.staticMembership, enumerable: true },
    groupInstanceIds: { value: groupInstanceIds },
    leaveOnDisconnect: {
      value: (leave = true): void => {
        leaving = leave;
      },
    },
    recordPause: { value: recordPause },
    startRebalance: { value: startRebalance },
    readProgress: {
      value: (groupId: string, partitions: ReadonlyArray<TopicPartition>, timeoutMs: number) => {
        const read = progressReaders.get(groupId);
        return (
          read &&
          withTimeout(read(partitions), timeoutMs, () => new Error(`progress not read within ${String(timeoutMs)} ms`))
        );
      },
    },
    readTopicPartitions: {
      value: (groupId: string, topics: ReadonlyArray<string>, timeoutMs: number) => {
        const read = topicReaders.get(groupId);
        return (
          read &&
          withTimeout(
            read(topics),
            timeoutMs,
            () => new Error(`topic metadata not read within ${String(timeoutMs)} ms`),
          )
        );
      },
    },
    readSiblings: {
      value: (groupId: string, timeoutMs: number): Promise<SiblingReading[]> | undefined => {
        const cross = crossGroupOf(groupId, describers.get(groupId));
        return cross && readSiblingGroups(cross.describe, groupId, cross.settings, cross.cache, timeoutMs);
      },
    },
    requestRebalance: {
      value: (groupId: string): number => {
        const before = epochOf(groupId);
        bumpEpoch(groupId);
        const involved = startRebalance(groupId);
        // Nobody to carry the new epoch: a later join must not rebalance for a request long gone.
        if (involved === 0) epochs.set(groupId, before);
        return involved;
      },
    },
    triggerTarget: { value: (consumer: Consumer): TriggerTarget => kafkajsTriggerTarget(consumer, internals) },
    [INTERNALS]: { get: () => internals },
  }) as LoadAwareAssignerInternals;
  return internals;
}

/**
 * One consumer's JoinGroup metadata: its subscription, instance, capacity, epoch and the
 * partitions it owns. A follower that rejoins a Stable group with metadata different from what
 * the coordinator holds makes the broker rebalance the whole group, and KafkaJS rejoins a Stable
 * group on its own when the group coordinator moves. So while no rebalance is known to be under
 * way, a rejoin sends again exactly what the last successful JoinGroup sent, provided the
 * subscription and epoch are unchanged (an epoch bump is meant to rebalance). The leader then
 * reads owners one generation old for this member, which the generation rule of owned claims
 * resolves.
 */
function stableMetadata(own: OwnAssignment): (topics: string[], record: MemberIdentity) => Buffer {
  return (topics, record) => {
    const quiet = own.quietRejoinProtocols()?.find((p) => p.name === ASSIGNER_NAME)?.metadata;
    if (quiet !== undefined && sameIdentity(quiet, topics, record)) return quiet;
    const userData = encodeUserData({ ...record, owned: own.owned(), processToken, lastPause: own.lastPause() });
    return AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData });
  };
}

/** The fields of a member's userData that only configuration and epoch bumps change. */
interface MemberIdentity {
  readonly instanceId: string;
  readonly capacity: number;
  readonly epoch: number;
  readonly rack?: string;
}

/** True when `metadata` carries these topics and this instance, capacity, epoch and rack. */
function sameIdentity(metadata: Buffer, topics: ReadonlyArray<string>, record: MemberIdentity): boolean {
  try {
    const decoded = AssignerProtocol.MemberMetadata.decode(metadata);
    if (decoded === null || decoded.topics.join('\u0000') !== topics.join('\u0000')) return false;
    const data = decodeUserData(decoded.userData);
    return (
      data.ok &&
      data.value.instanceId === record.instanceId &&
      data.value.capacity === record.capacity &&
      data.value.epoch === record.epoch &&
      data.value.rack === record.rack
    );
  } catch {
    return false;
  }
}
