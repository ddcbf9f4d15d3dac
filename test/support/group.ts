import { AssignerProtocol, type Admin } from 'kafkajs';
import { decodeUserData } from '@load-aware/assignor/internal';

/** A member of a described group, with what its metadata and assignment say. */
export interface ObservedMember {
  memberId: string;
  clientId: string;
  topics: string[];
  /** Instance id from load-aware userData, undefined when there is none. */
  instanceId: string | undefined;
  assigned: string[];
}

/** A described group: its state, protocol and members. */
export interface ObservedGroup {
  state: string;
  protocol: string;
  members: ObservedMember[];
}

/** Describes a group through the admin API and decodes each member's metadata and assignment. */
export async function describeGroup(admin: Admin, groupId: string): Promise<ObservedGroup> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  if (group === undefined) throw new Error(`group ${groupId} not described`);
  return {
    state: group.state,
    protocol: group.protocol,
    members: group.members.map((m) => {
      const metadata = m.memberMetadata.length > 0 ? AssignerProtocol.MemberMetadata.decode(m.memberMetadata) : null;
      const assignment =
        m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
      const decoded = decodeUserData(metadata?.userData);
      return {
        memberId: m.memberId,
        clientId: m.clientId,
        topics: metadata?.topics ?? [],
        instanceId: decoded.ok ? decoded.value.instanceId : undefined,
        assigned: Object.entries(assignment?.assignment ?? {})
          .flatMap(([topic, partitions]) => partitions.map((p) => `${topic}:${String(p)}`))
          .sort(),
      };
    }),
  };
}

/**
 * Polls until the group is Stable with `memberCount` members that together hold
 * `partitionCount` partitions, and the same for two polls in a row (no rebalance in flight).
 */
export async function waitForStableGroup(
  admin: Admin,
  groupId: string,
  memberCount: number,
  partitionCount: number,
  timeoutMs = 60_000,
): Promise<ObservedGroup> {
  const deadline = Date.now() + timeoutMs;
  let previous = '';
  let last: ObservedGroup | undefined;
  while (Date.now() < deadline) {
    last = await describeGroup(admin, groupId);
    const held = last.members.reduce((n, m) => n + m.assigned.length, 0);
    const fingerprint = JSON.stringify(last.members.map((m) => [m.memberId, m.assigned]));
    if (last.state === 'Stable' && last.members.length === memberCount && held === partitionCount) {
      if (fingerprint === previous) return last;
      previous = fingerprint;
    } else {
      previous = '';
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `group ${groupId} not stable with ${String(memberCount)} members in time; last seen ${JSON.stringify(last)}`,
  );
}
