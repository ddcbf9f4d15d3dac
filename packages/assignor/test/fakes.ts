import { AssignerProtocol, type GroupMember } from 'kafkajs';
import { encodeUserData } from '@load-aware/assignor/internal';

/** A group member that also reports the partitions it owns (userData version 2). */
export function ownerMember(
  memberId: string,
  topics: string[],
  instanceId: string,
  owned: { generation: number; partitions: string[] },
): GroupMember {
  const partitions = owned.partitions.map((key) => {
    const at = key.lastIndexOf(':');
    return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
  });
  const userData = encodeUserData({
    instanceId,
    capacity: 1,
    epoch: 0,
    owned: { generation: owned.generation, partitions },
  });
  return { memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData }) };
}
