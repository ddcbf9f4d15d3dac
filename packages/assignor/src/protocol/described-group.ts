import { AssignerProtocol, type GroupDescription, type MemberDescription } from 'kafkajs';
import type { TopicPartition } from '../core/types.js';
import type { ObservedGroup, ObservedMember } from './observed-group.js';
import { decodeMember as decodeSubscription } from './members.js';

export type { ObservedGroup, ObservedMember } from './observed-group.js';

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
