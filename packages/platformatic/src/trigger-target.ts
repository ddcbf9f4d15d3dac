/**
 * One platformatic consumer as `@load-aware/trigger`'s controller sees it, without this package
 * depending on the trigger (nor the trigger on platformatic): a plain object of the shape the
 * controller's `TriggerTarget` names. The group is described through a platformatic `Admin`
 * (the consumer has no DescribeGroups of its own), members are decoded exactly as the leader
 * decodes them, membership comes from the consumer's own events, and the rebalance is started
 * through the consumer's public `joinGroup()`.
 */
import type { Group } from '@platformatic/kafka';
import {
  memberFromRecord,
  type ObservedGroup,
  type ObservedMember,
  type TopicPartition,
  type TriggerAssigner,
  type TriggerTarget,
} from '@load-aware/assignor/portable';
import type { MetadataReader, ProgressReader } from './admin-reads.js';
import { GroupNotDescribedError } from './errors.js';
import { userDataOf } from './subscriptions.js';

/** What the target reads of the group: a platformatic `Admin` fits as it is. */
export interface GroupDescriber {
  /** Describes the named groups, as platformatic's `Admin.describeGroups` does. */
  describeGroups(options: { groups: string[] }): Promise<Map<string, Group>>;
}

/**
 * What the target reads the group with: a platformatic `Admin` fits as it is. Only
 * `describeGroups` is required; with `metadata` the controller also looks for partitions no
 * member holds, and with `listConsumerGroupOffsets` and `listOffsets` it measures the group's lag
 * (the trigger's `lag` option) and holds fires while a static member is away.
 */
export interface TriggerAdmin extends GroupDescriber {
  /** Fresh partition counts (`Admin.metadata`): turns on the check for partitions no member holds. */
  readonly metadata?: MetadataReader['metadata'];
  /** The group's committed offsets (`Admin.listConsumerGroupOffsets`): with `listOffsets`, the group's lag and static members' progress. */
  readonly listConsumerGroupOffsets?: ProgressReader['listConsumerGroupOffsets'];
  /** End offsets (`Admin.listOffsets`): with `listConsumerGroupOffsets`, the group's lag and static members' progress. */
  readonly listOffsets?: ProgressReader['listOffsets'];
}

/** The parts of a platformatic `Consumer` the target follows (a real one fits as it is). */
export interface TriggerConsumer {
  readonly groupId: string;
  /** The consumer's `groupInstanceId` (static membership, KIP-345); null or absent when dynamic. */
  readonly groupInstanceId?: string | null | undefined;
  /** The consumer joined the group: its member id, and whether it leads. */
  on(event: 'consumer:group:join', listener: (payload: GroupJoinPayload) => void): unknown;
  /** A heartbeat ended: the member id the consumer holds now. */
  on(event: 'consumer:heartbeat:end', listener: (payload: HeartbeatPayload) => void): unknown;
  /** The consumer left the group or closed. */
  on(event: 'consumer:group:leave' | 'client:close', listener: () => void): unknown;
  /** Stops following joins. */
  removeListener(event: 'consumer:group:join', listener: (payload: GroupJoinPayload) => void): unknown;
  /** Stops following heartbeats. */
  removeListener(event: 'consumer:heartbeat:end', listener: (payload: HeartbeatPayload) => void): unknown;
  /** Stops following leaves and closes. */
  removeListener(event: 'consumer:group:leave' | 'client:close', listener: () => void): unknown;
}

/** What platformatic's `consumer:group:join` event carries that the target reads. */
export interface GroupJoinPayload {
  readonly groupId: string;
  readonly memberId: string;
  readonly isLeader?: boolean | undefined;
}

/** What platformatic's `consumer:heartbeat:end` event carries that the target reads. */
export interface HeartbeatPayload {
  readonly groupId: string;
  readonly memberId: string | null;
}

/** What {@link createTriggerTarget} is built from: the assigner's side, already bound. */
export interface TriggerTargetDeps {
  readonly consumer: TriggerConsumer;
  readonly describer: GroupDescriber;
  readonly assigner: TriggerAssigner;
  /** Measures this consumer's rebalance pauses; absent: the trigger assumes its fire price. */
  readonly measurePauses?: (() => () => void) | undefined;
}

/**
 * Builds the trigger target of one platformatic consumer: the one `TriggerTarget` shape both
 * adapters build; the assigner side (with whichever readers the `Admin` allows) comes bound.
 */
export function createTriggerTarget(deps: TriggerTargetDeps): TriggerTarget {
  const { consumer, describer } = deps;
  const describe = describeThrough(describer);
  return {
    assigner: deps.assigner,
    describeGroup: () => describe(consumer.groupId),
    onMembership(listener) {
      const onJoin = (p: GroupJoinPayload): void => {
        listener({ kind: 'join', groupId: p.groupId, memberId: p.memberId, isLeader: p.isLeader === true });
      };
      const onHeartbeat = (p: HeartbeatPayload): void => {
        if (p.memberId !== null) listener({ kind: 'heartbeat', groupId: p.groupId, memberId: p.memberId });
      };
      const onLeave = (): void => {
        listener({ kind: 'leave', reason: 'consumer left the group' });
      };
      const onClose = (): void => {
        listener({ kind: 'leave', reason: 'consumer closed' });
      };
      consumer.on('consumer:group:join', onJoin);
      consumer.on('consumer:heartbeat:end', onHeartbeat);
      consumer.on('consumer:group:leave', onLeave);
      consumer.on('client:close', onClose);
      return () => {
        consumer.removeListener('consumer:group:join', onJoin);
        consumer.removeListener('consumer:heartbeat:end', onHeartbeat);
        consumer.removeListener('consumer:group:leave', onLeave);
        consumer.removeListener('client:close', onClose);
      };
    },
    ...(deps.measurePauses === undefined ? {} : { measurePauses: deps.measurePauses }),
  };
}

/**
 * DescribeGroups of one group through `describer`, decoded by the leader's rule: what the trigger
 * reads of its own group and what a cross-group reading reads of each sibling. A group the answer
 * leaves out fails with `LOAD_AWARE_TRIGGER_GROUP_NOT_DESCRIBED`.
 */
export function describeThrough(describer: GroupDescriber): (groupId: string) => Promise<ObservedGroup> {
  return async (groupId) => {
    const group = (await describer.describeGroups({ groups: [groupId] })).get(groupId);
    if (group === undefined) throw new GroupNotDescribedError(groupId);
    return observePlatformaticGroup(group);
  };
}

/**
 * A group as platformatic's `Admin.describeGroups()` decoded it, in the trigger's shape: each
 * member's instance from its load-aware record (by the leader's own rule, so a member without one
 * is an instance of its own and no coordinator candidate), its topics and what it holds now.
 */
export function observePlatformaticGroup(group: Group): ObservedGroup {
  const members: ObservedMember[] = [];
  const loadAware: string[] = [];
  for (const m of group.members.values()) {
    const decoded = memberFromRecord(m.id, m.metadata?.topics, userDataOf(m.metadata?.metadata));
    const assigned: TopicPartition[] = [];
    for (const { topic, partitions } of m.assignments?.values() ?? []) {
      for (const partition of partitions) assigned.push({ topic, partition });
    }
    members.push({
      memberId: m.id,
      instanceId: decoded.instanceId,
      topics: decoded.topics ?? [],
      assigned,
      capacity: decoded.capacity,
      lastPause: decoded.lastPause,
    });
    if (decoded.problem === undefined) loadAware.push(m.id);
  }
  return { groupId: group.id, state: group.state, protocol: group.protocol, members, loadAwareMemberIds: loadAware };
}
