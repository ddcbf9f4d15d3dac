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
  type WeightSource,
} from '@load-aware/assignor/portable';
import { GroupNotDescribedError } from './errors.js';
import { userDataOf } from './subscriptions.js';

/** What the target reads of the group: a platformatic `Admin` fits as it is. */
export interface GroupDescriber {
  /** Describes the named groups, as platformatic's `Admin.describeGroups` does. */
  describeGroups(options: { groups: string[] }): Promise<Map<string, Group>>;
}

/** The parts of a platformatic `Consumer` the target follows (a real one fits as it is). */
export interface TriggerConsumer {
  readonly groupId: string;
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

/** A change in the consumer's membership; the same union as the trigger's `MembershipEvent`. */
export type TargetMembershipEvent =
  | { readonly kind: 'join'; readonly groupId: string; readonly memberId: string; readonly isLeader: boolean }
  | { readonly kind: 'heartbeat'; readonly groupId: string; readonly memberId: string }
  | { readonly kind: 'leave'; readonly reason: string };

/**
 * A platformatic consumer of a load-aware group, in the shape `createTriggerController({ target })`
 * of `@load-aware/trigger` takes. Built by `assigner.triggerTarget(consumer, admin)`.
 */
export interface PlatformaticTriggerTarget {
  readonly assigner: {
    readonly weights: WeightSource;
    readonly defaultWeight: number;
    readonly moveTolerance: number;
    readonly maxMovesPerRebalance: number | undefined;
    /** Advances the epoch this process's members of `groupId` advertise. */
    bumpEpoch(groupId: string): number;
    /** Sends JoinGroup for one joined consumer of `groupId` through platformatic's `joinGroup()`. */
    startRebalance(groupId: string): number;
    /** Absent on purpose: static members' progress is not read, so fires are not held for them. */
    readonly staticMembership: false;
  };
  /** Reads the group through the `Admin`, its members decoded as the leader decodes them. */
  describeGroup(): Promise<ObservedGroup>;
  /** Follows the consumer's membership; the returned function stops following. */
  onMembership(listener: (event: TargetMembershipEvent) => void): () => void;
}

/** What {@link createTriggerTarget} is built from: the assigner's side, already bound. */
export interface TriggerTargetDeps {
  readonly consumer: TriggerConsumer;
  readonly describer: GroupDescriber;
  readonly assigner: PlatformaticTriggerTarget['assigner'];
}

/** Builds the target; see {@link PlatformaticTriggerTarget}. */
export function createTriggerTarget(deps: TriggerTargetDeps): PlatformaticTriggerTarget {
  const { consumer, describer } = deps;
  return {
    assigner: deps.assigner,
    async describeGroup() {
      const groupId = consumer.groupId;
      const group = (await describer.describeGroups({ groups: [groupId] })).get(groupId);
      if (group === undefined) throw new GroupNotDescribedError(groupId);
      return observePlatformaticGroup(group);
    },
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
