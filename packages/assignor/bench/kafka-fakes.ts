import { AssignerProtocol, type GroupMember } from 'kafkajs';
import { encodeUserData } from '@load-aware/assignor/internal';
import type { Scenario } from '@load-aware/test-support';

/**
 * The JoinGroup members as the leader receives them. With `loadAware`, each carries our userData
 * (instance id, capacity 1, epoch 0) as the load-aware assigner's protocol() would send it.
 */
export function groupMembers(scenario: Scenario, loadAware: boolean): GroupMember[] {
  return scenario.members.map((m) => ({
    memberId: m.memberId,
    memberMetadata: AssignerProtocol.MemberMetadata.encode({
      version: 0,
      topics: [...m.topics],
      userData: loadAware ? encodeUserData({ instanceId: m.instanceId, capacity: 1, epoch: 0 }) : Buffer.alloc(0),
    }),
  }));
}
