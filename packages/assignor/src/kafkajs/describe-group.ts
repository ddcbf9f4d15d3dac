import type { Cluster, GroupDescription } from 'kafkajs';
import type { DescribeGroup } from '../inputs/sibling-groups.js';
import { observeGroup } from '../protocol/described-group.js';

/**
 * DescribeGroups through the consumer's own connections (its TLS and SASL apply). `findCoordinator`
 * must be the cluster's own lookup, taken before the own-assignment observer wraps it: that wrapper
 * watches the consumer's own group, and an error answered for another group is not its business.
 */
export function describeThrough(findCoordinator: Cluster['findGroupCoordinator']): DescribeGroup {
  return async (groupId) => {
    const broker = await findCoordinator({ groupId });
    // KafkaJS rejects when the answer carries an error code (e.g. GROUP_AUTHORIZATION_FAILED).
    const answer = (await broker.describeGroups({ groupIds: [groupId] })) as { groups?: GroupDescription[] };
    const group = answer.groups?.find((g) => g.groupId === groupId);
    if (group === undefined) throw new Error(`no entry for group ${groupId} in the DescribeGroups answer`);
    return observeGroup(group);
  };
}
