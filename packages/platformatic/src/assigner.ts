import type { GroupPartitionsAssigner, GroupProtocolsMetadataCallback } from '@platformatic/kafka';
import {
  bindLogger,
  ConfigError,
  createAssignmentMemory,
  createAssignorMetrics,
  encodeAssignmentNote,
  encodeUserData,
  processToken,
  readSiblingGroups,
  SiblingCache,
  siblingPartitions,
  type SiblingReading,
  type TopicPartition,
} from '@load-aware/assignor/portable';
import { readProgress, readTopicPartitions } from './admin-reads.js';
import { assignSync, type SyncAssignContext, type TopicsMetadata } from './assign.js';
import type { Transfer } from './cooperative.js';
import { createMembership, type AttachableConsumer, type Membership } from './membership.js';
import { createPlatformaticMetrics } from './metrics.js';
import { resolvePlatformaticOptions, type PlatformaticAssignerOptions } from './options.js';
import { protocolsFor, type ProtocolEntry } from './protocol.js';
import type { MemberSubscription } from './subscriptions.js';
import { createWeightSnapshot } from './weight-snapshot.js';
import { guardConsume, type ConsumingConsumer } from './consume-guard.js';
import type { TriggerTarget } from '@load-aware/assignor/portable';
import {
  createTriggerTarget,
  describeThrough,
  type GroupDescriber,
  type TriggerAdmin,
  type TriggerConsumer,
} from './trigger-target.js';

/** How many member ids and keys the "warn once" memory holds before it starts over. */
const WARNED_LIMIT = 10_000;

/** The group options one consumer is created with: spread them into `new Consumer({ ... })`. */
export interface LoadAwareGroupOptions {
  readonly protocols: ProtocolEntry[];
  readonly protocolsMetadata: GroupProtocolsMetadataCallback;
  readonly partitionAssigner: GroupPartitionsAssigner;
}

/** The load-aware assigner for @platformatic/kafka consumers of one process. */
export interface PlatformaticLoadAwareAssigner {
  /** The instance id every consumer using this assigner advertises. */
  readonly instanceId: string;
  /** `'eager'` or `'cooperative'`, as configured. */
  readonly mode: 'eager' | 'cooperative';
  /**
   * The group options of one consumer: its protocols, the `protocolsMetadata` step that refreshes
   * the weights and writes the load-aware record, and the synchronous `partitionAssigner`. Call it
   * once per consumer and pass the consumer to {@link attach} right after creating it.
   */
  groupOptions(): LoadAwareGroupOptions;
  /**
   * Ties a consumer created with {@link groupOptions} to this assigner, so that its JoinGroups
   * report its group, epoch and owned partitions. Returns the consumer. Throws a `ConfigError`
   * when the consumer was not created with options from this assigner's `groupOptions()`, or
   * when they already serve another consumer.
   *
   * It also guards the consumer's `consume()`: a partition that changes owner must resume from the
   * group's committed offset, so a call without `mode` gets `mode: 'committed'` and
   * `fallbackMode: 'earliest'`, and any other mode is refused with an `UnsafeConsumeModeError`.
   * Streams with manual commits (`autocommit: false`) stop handing out messages of partitions the
   * consumer no longer owns.
   *
   * `admin` (a platformatic `Admin` of the same cluster) is what a `crossGroup` leader reads the
   * sibling groups with; a `triggerTarget(consumer, admin)` of the same group serves as well.
   */
  attach<C extends AttachableConsumer>(consumer: C, options?: { admin?: GroupDescriber }): C;
  /** The rebalance epoch this process's members of `groupId` advertise. */
  epochOf(groupId: string): number;
  /**
   * Forces a rebalance of `groupId`: advances the epoch (so the record changes) and makes one
   * joined consumer of that group rejoin through platformatic's own `joinGroup()`; the broker
   * then rebalances the whole group, whichever member leads. Returns how many consumers were
   * asked (0 when none of this process is in the group, and the epoch is left as it was).
   */
  requestRebalance(groupId: string): number;
  /**
   * One attached consumer as `@load-aware/trigger`'s controller takes it:
   * `createTriggerController({ target: assigner.triggerTarget(consumer, admin) }, options)`. The
   * group is described through `admin` (a platformatic `Admin` of the same cluster: the consumer
   * has no DescribeGroups of its own); a fire advances the epoch and rejoins through
   * {@link requestRebalance}'s path. Through the same `admin` the controller reads fresh partition
   * lists (partitions no member holds), the group's committed and end offsets (the group's lag,
   * with the trigger's `lag` option; and fires held while a static member is away, when the
   * consumer has a `groupInstanceId`) and, with `crossGroup`, the sibling groups. Throws a `ConfigError` when `consumer` was not attached.
   */
  triggerTarget(consumer: AttachableConsumer & TriggerConsumer, admin: TriggerAdmin): TriggerTarget;
}

/**
 * Creates the load-aware assigner for @platformatic/kafka consumers: the same placement, userData
 * record, options, metrics and logs as `LoadAwareAssigner` for KafkaJS, so members of both
 * clients form one load-aware group. One per process, shared by its consumers.
 *
 * Like the KafkaJS assigner it has no lifecycle of its own: it refreshes weights in the
 * background while any attached consumer is open, stops when the last one closes, and starts
 * again when a consumer joins.
 *
 * Options are validated here, once: a bad key throws a `ConfigError` naming it.
 *
 * @example
 * ```ts
 * import { Consumer } from '@platformatic/kafka';
 * import { LoadAwareAssigner } from '@load-aware/platformatic';
 *
 * const assigner = LoadAwareAssigner({ weights: mySource });
 * const consumer = assigner.attach(
 *   new Consumer({ groupId: 'orders', clientId: 'orders-1', bootstrapBrokers: ['localhost:9092'], autocommit: false, ...assigner.groupOptions() }),
 * );
 * const stream = await consumer.consume({ topics: ['orders'] }); // attach() sets mode: 'committed'
 * for await (const message of stream) {
 *   await handle(message);
 *   await message.commit();
 * }
 * // on shutdown: await consumer.close(); the assigner stops refreshing once its last consumer closes
 * ```
 */
export function LoadAwareAssigner(options: PlatformaticAssignerOptions = {}): PlatformaticLoadAwareAssigner {
  const resolved = resolvePlatformaticOptions(options);
  const placement = resolved.placement;
  const metrics = createAssignorMetrics(placement.registry);
  const platformaticMetrics = createPlatformaticMetrics(placement.registry);
  // Shared by every consumer of this assigner, so leadership moving between them keeps it.
  const memory = createAssignmentMemory();
  const snapshot = createWeightSnapshot({
    source: placement.weights,
    timeoutMs: placement.weightsTimeoutMs,
    refreshMs: resolved.weightsRefreshMs,
    maxAgeMs: resolved.maxWeightsAgeMs,
    logger: bindLogger(placement.logger, { component: 'assignor' }),
    // The assigner lives with its consumers, as the KafkaJS one does: no close() to forget.
    serving: () => attached.some((ref) => ref.deref()?.consumer()?.isActive() === true),
  });
  // Cross-group: the Admin each group's siblings are described through, the last Stable reading of
  // each sibling, and what this process read at each group's latest join (for a leader to place with).
  const crossGroup = placement.crossGroup;
  const admins = new Map<string, GroupDescriber>();
  const siblingCache = new SiblingCache();
  const joinSiblings = new Map<string, SiblingReading[]>();
  const readSiblings = (groupId: string, timeoutMs: number): Promise<SiblingReading[]> | undefined => {
    const admin = admins.get(groupId);
    if (crossGroup === undefined || admin === undefined) return undefined;
    return readSiblingGroups(describeThrough(admin), groupId, crossGroup, siblingCache, timeoutMs);
  };
  const epochs = new Map<string, number>();
  const epochOf = (groupId: string): number => epochs.get(groupId) ?? 0;
  const promises = new Map<string, Transfer[]>();
  const warned = new Set<string>();
  const warnOnce = (key: string): boolean => {
    if (warned.has(key)) return false;
    if (warned.size >= WARNED_LIMIT) warned.clear();
    warned.add(key);
    return true;
  };
  // By the protocolsMetadata function each membership's options carry: how attach() finds it.
  const byCallback = new WeakMap<object, Membership>();
  // Weak: a dropped consumer must not be kept alive by its assigner.
  const attached: Array<WeakRef<Membership>> = [];
  const unattachedLogger = bindLogger(placement.logger, { component: 'assignor' });
  const joinedConsumer = (groupId: string): AttachableConsumer | undefined =>
    attached
      .map((ref) => ref.deref()?.consumer())
      .find((c) => c !== undefined && c.groupId === groupId && c.memberId !== null && c.isActive());
  const bumpEpoch = (groupId: string): number => {
    const next = (epochOf(groupId) + 1) % 0x1_0000_0000;
    epochs.set(groupId, next);
    return next;
  };
  // One JoinGroup with changed metadata rebalances the group; the others follow the broker.
  // Platformatic's public joinGroup() is the path its own heartbeat takes on REBALANCE_IN_PROGRESS.
  const startRebalance = (groupId: string): number => {
    const consumer = joinedConsumer(groupId);
    if (consumer === undefined) return 0;
    consumer.joinGroup().catch((err: unknown) => {
      bindLogger(placement.logger, { component: 'assignor', groupId }).warn(
        { err },
        'rejoin for a forced rebalance failed; the consumer retries on its own',
      );
    });
    return 1;
  };

  const siblingsAtJoin = async (groupId: string): Promise<SiblingReading[] | undefined> => {
    joinSiblings.delete(groupId);
    if (crossGroup === undefined) return undefined;
    const read = readSiblings(groupId, placement.weightsTimeoutMs);
    if (read === undefined) {
      if (warnOnce(`cross-group-admin\u0000${groupId}`)) {
        bindLogger(placement.logger, { component: 'assignor', groupId }).warn(
          {},
          'cross-group: no Admin to describe the sibling groups with (pass attach(consumer, { admin }) or ' +
            'triggerTarget(consumer, admin)); this group is balanced without their load',
        );
      }
      return undefined;
    }
    const siblings = await read;
    joinSiblings.set(groupId, siblings);
    return siblings;
  };

  const joinMetadata = async (membership: Membership, topics: ReadonlyArray<string>, metadata: TopicsMetadata) => {
    const consumer = membership.consumer();
    if (consumer === undefined) {
      if (warnOnce('unattached')) {
        unattachedLogger.warn(
          {},
          'a consumer joins with load-aware group options but was never passed to assigner.attach(consumer): it reports ' +
            'no owned partitions and no epoch, so stickiness across leader changes and requestRebalance() do not reach it',
        );
      }
    } else {
      // Before the JoinGroup that may make this member leader: its assignment reads these weights,
      // and with crossGroup the siblings (and their partitions' weights) it places on top of.
      const own = partitionsOf(topics, metadata);
      const siblings = await siblingsAtJoin(consumer.groupId);
      await snapshot.refresh(consumer.groupId, siblings ? [...own, ...siblingPartitions(siblings)] : own, 'join');
    }
    const groupId = consumer?.groupId;
    return encodeUserData({
      instanceId: placement.instanceId,
      capacity: placement.capacity,
      epoch: groupId === undefined ? 0 : epochOf(groupId),
      owned: membership.owned(),
      processToken,
      ...(placement.rack === undefined ? {} : { rack: placement.rack }),
    });
  };

  const assign = (
    membership: Membership,
    subscriptions: ReadonlyMap<string, MemberSubscription>,
    topics: ReadonlySet<string>,
    metadata: TopicsMetadata,
  ) => {
    const groupId = membership.consumer()?.groupId ?? '';
    const ctx: SyncAssignContext = {
      groupId,
      options: placement,
      // Bound per call: the group is only known once the consumer is attached.
      logger: bindLogger(placement.logger, { component: 'assignor', groupId }),
      metrics,
      warnOnce,
      memory,
      own: membership,
      snapshot,
      platformaticMetrics,
      cooperativeOffered: resolved.mode === 'cooperative',
      siblings: joinSiblings.get(groupId),
      noteCause: (cause) => {
        membership.noteForMembers(encodeAssignmentNote(cause));
      },
      promises: {
        recall: () => promises.get(groupId) ?? [],
        keep: (transfers) => {
          if (transfers.length === 0) promises.delete(groupId);
          else promises.set(groupId, transfers);
        },
      },
    };
    return assignSync(ctx, subscriptions, topics, metadata);
  };

  return {
    instanceId: placement.instanceId,
    mode: resolved.mode,
    groupOptions() {
      const membership = createMembership();
      const protocolsMetadata: GroupProtocolsMetadataCallback = (_protocols, topics, metadata) =>
        joinMetadata(membership, topics, metadata);
      byCallback.set(protocolsMetadata, membership);
      return {
        protocols: protocolsFor(resolved.mode),
        protocolsMetadata,
        partitionAssigner: (_current, members, topics, metadata) => assign(membership, members, topics, metadata),
      };
    },
    attach(consumer, attachOptions) {
      const found = findMembership(consumer, byCallback);
      const membership = found?.membership;
      if (found === undefined || membership === undefined) {
        throw new ConfigError(
          "attach(consumer): the consumer was not created with this assigner's groupOptions() " +
            '(spread assigner.groupOptions() into new Consumer({ ... })), or this @platformatic/kafka keeps ' +
            'its options elsewhere than 2.12.x does (a symbol-keyed object holding protocolsMetadata); ' +
            'load-aware supports @platformatic/kafka ~2.12.1',
        );
      }
      const current = membership.consumer();
      if (current !== undefined && current !== consumer) {
        throw new ConfigError(
          'attach(consumer): these groupOptions() already serve another consumer; call groupOptions() once per consumer',
        );
      }
      if (attachOptions?.admin !== undefined) admins.set(consumer.groupId, attachOptions.admin);
      if (current === undefined) {
        membership.attach(consumer, found.options);
        attached.push(new WeakRef(membership));
        consumer.on('client:close', () => {
          snapshot.stopIfIdle();
        });
        if (typeof (consumer as Partial<ConsumingConsumer>).consume === 'function') {
          guardConsume(consumer as unknown as ConsumingConsumer, found.options, placement.logger);
        }
      }
      return consumer;
    },
    epochOf,
    requestRebalance(groupId) {
      if (joinedConsumer(groupId) === undefined) return 0;
      bumpEpoch(groupId);
      return startRebalance(groupId);
    },
    triggerTarget(consumer, admin) {
      if (!attached.some((ref) => ref.deref()?.consumer() === consumer)) {
        throw new ConfigError(
          'triggerTarget(consumer, admin): the consumer is not attached to this assigner (call assigner.attach(consumer) first)',
        );
      }
      const groupId = consumer.groupId;
      if (!admins.has(groupId)) admins.set(groupId, admin);
      // Static when the consumer joins with a groupInstanceId: only then can a member be away
      // while the group still lists it.
      const isStatic = typeof consumer.groupInstanceId === 'string' && consumer.groupInstanceId !== '';
      const { metadata, listConsumerGroupOffsets, listOffsets } = admin;
      return createTriggerTarget({
        consumer,
        describer: admin,
        assigner: {
          weights: placement.weights,
          defaultWeight: placement.defaultWeight,
          moveTolerance: placement.moveTolerance,
          maxMovesPerRebalance: placement.maxMovesPerRebalance,
          bumpEpoch,
          startRebalance,
          staticMembership: isStatic,
          ...(metadata !== undefined && {
            readTopicPartitions: (_groupId, topics, timeoutMs) =>
              readTopicPartitions({ metadata: metadata.bind(admin) }, topics, timeoutMs),
          }),
          // Every group's progress, static or not: the lag check (the trigger's `lag` option) reads
          // it at each check; the hold for away static members reads it only when `isStatic`.
          ...(listConsumerGroupOffsets !== undefined &&
            listOffsets !== undefined && {
              readProgress: (group, partitions, timeoutMs) =>
                readProgress(
                  {
                    listConsumerGroupOffsets: listConsumerGroupOffsets.bind(admin),
                    listOffsets: listOffsets.bind(admin),
                  },
                  group,
                  partitions,
                  timeoutMs,
                ),
            }),
          ...(crossGroup !== undefined && { crossGroup, readSiblings }),
        },
      });
    },
  };
}

/**
 * The membership whose options `consumer` was created with, and that options object. Platformatic
 * keeps a client's options under a symbol of its own; looking for our own callback among the
 * consumer's symbol-keyed objects finds them without depending on that symbol's name. The object
 * is where platformatic reads `assignmentUserData` when the leader encodes the assignments.
 */
function findMembership(
  consumer: object,
  byCallback: WeakMap<object, Membership>,
): { membership: Membership; options: { assignmentUserData?: unknown; autocommit?: unknown } } | undefined {
  for (const key of Object.getOwnPropertySymbols(consumer)) {
    const value = (consumer as Record<symbol, unknown>)[key];
    if (typeof value !== 'object' || value === null) continue;
    const callback = (value as { protocolsMetadata?: unknown }).protocolsMetadata;
    if (typeof callback === 'function') {
      const membership = byCallback.get(callback);
      if (membership !== undefined) return { membership, options: value };
    }
  }
  return undefined;
}

/** Every partition of `topics` in the metadata platformatic loaded before the join. */
function partitionsOf(topics: ReadonlyArray<string>, metadata: TopicsMetadata): TopicPartition[] {
  return topics.flatMap((topic) =>
    Array.from({ length: metadata.topics.get(topic)?.partitionsCount ?? 0 }, (_, partition) => ({ topic, partition })),
  );
}
