import { AssignerProtocol, type GroupDescription, type MemberDescription } from 'kafkajs';
import { decodeUserData, type TopicPartition } from '@load-aware/assignor';
import type { ObservedMember } from './load.js';

/**
 * Instance id given to a member without usable load-aware userData: an instance of its own, as
 * the assignor treats it (same prefix, so logs of both read alike).
 */
const OWN_INSTANCE_PREFIX = 'member:';

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

function decodeMember(m: MemberDescription): { member: ObservedMember; isLoadAware: boolean } {
  let topics: string[] = [];
  let userData: Buffer | undefined;
  try {
    const metadata = m.memberMetadata.length > 0 ? AssignerProtocol.MemberMetadata.decode(m.memberMetadata) : null;
    if (metadata !== null && Array.isArray(metadata.topics)) topics = metadata.topics.filter(isString);
    if (metadata !== null && Buffer.isBuffer(metadata.userData)) userData = metadata.userData;
  } catch {
    // Another client's or a corrupted subscription: the member still holds what it holds.
  }
  const decoded = decodeUserData(userData);
  return {
    member: {
      memberId: m.memberId,
      instanceId: decoded.ok ? decoded.value.instanceId : `${OWN_INSTANCE_PREFIX}${m.memberId}`,
      topics,
      assigned: decodeAssignment(m.memberAssignment),
      capacity: decoded.ok ? decoded.value.capacity : 1,
    },
    isLoadAware: decoded.ok,
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

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
