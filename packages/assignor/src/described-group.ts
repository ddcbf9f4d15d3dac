import type { RebalancePause } from './user-data.js';
import { AssignerProtocol, type GroupDescription, type MemberDescription } from 'kafkajs';
import type { TopicPartition } from './core/types.js';
import { decodeMember as decodeSubscription } from './members.js';

/**
 * A described group member as the trigger, the CLI and a cross-group leader see it: who it is,
 * what it subscribes to, what it holds now.
 */
export interface ObservedMember {
  readonly memberId: string;
  /** The member's instance (from its load-aware userData; its own id when it has none). */
  readonly instanceId: string;
  readonly topics: ReadonlyArray<string>;
  /** Partitions the member currently holds. */
  readonly assigned: ReadonlyArray<TopicPartition>;
  /** Its instance's capacity from userData. Default 1. */
  readonly capacity?: number | undefined;
  /** What its last rebalance cost it (userData version 4), when it reports it. */
  readonly lastPause?: RebalancePause | undefined;
  /** Its rack (userData version 5), when it reports one. */
  readonly rack?: string | undefined;
}

/** A described group, decoded. */
export interface ObservedGroup {
  readonly groupId: string;
  readonly state: string;
  /** The protocol the group chose (`LoadAwareAssigner` when every member offers it). */
  readonly protocol: string;
  readonly members: ReadonlyArray<ObservedMember>;
  /** Members whose metadata carries load-aware userData: the candidates for coordinator. */
  readonly loadAwareMemberIds: ReadonlyArray<string>;
}

/**
 * Decodes DescribeGroups' answer: each member's subscription and instance (from the metadata it
 * sent with JoinGroup) and what it holds now (its assignment). The broker returns those bytes only
 * while the group is Stable; in other states members come back empty, which the trigger never
 * judges anyway. Never throws on a member's bytes: unreadable ones just yield no topics.
 */
export function observeGroup(group: GroupDescription): ObservedGroup {
  const members: ObservedMember[] = [];
  const loadAware: string[] = [];
  for (const m of group.members) {
    const { member, isLoadAware } = decodeMember(m);
    members.push(member);
    if (isLoadAware) loadAware.push(m.memberId);
  }
  return {
    groupId: group.groupId,
    state: group.state,
    protocol: group.protocol,
    members,
    loadAwareMemberIds: loadAware,
  };
}

/**
 * One described member: its subscription and instance decoded exactly as the leader decodes them
 * (an instance of its own without usable load-aware userData), plus what it holds now.
 */
function decodeMember(m: MemberDescription): { member: ObservedMember; isLoadAware: boolean } {
  // Another client's or a corrupted subscription yields no topics: the member still holds what it holds.
  const subscription = decodeSubscription({ memberId: m.memberId, memberMetadata: m.memberMetadata });
  return {
    member: {
      memberId: m.memberId,
      instanceId: subscription.instanceId,
      topics: subscription.topics ?? [],
      assigned: decodeAssignment(m.memberAssignment),
      capacity: subscription.capacity,
      lastPause: subscription.lastPause,
      ...(subscription.rack === undefined ? {} : { rack: subscription.rack }),
    },
    isLoadAware: subscription.problem === undefined,
  };
}

function decodeAssignment(bytes: Buffer): TopicPartition[] {
  if (bytes.length === 0) return [];
  try {
    const decoded = AssignerProtocol.MemberAssignment.decode(bytes);
    const out: TopicPartition[] = [];
    for (const [topic, partitions] of Object.entries(decoded?.assignment ?? {})) {
      for (const partition of partitions) {
        if (Number.isInteger(partition)) out.push({ topic, partition });
      }
    }
    return out;
  } catch {
    return [];
  }
}
