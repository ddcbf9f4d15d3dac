import { PartitionAssigners } from 'kafkajs';
import { decodeAssignedPartitions, fakeCluster, memberWithUserData, silentKafkaLogger } from '@load-aware/test-support';
import type { Assignment } from './judge.js';
import type { QualityCase } from './suite.js';

/** KafkaJS 2.2.4's own round-robin assigner on a case, decoded: the baseline users have today. */
export function createKafkaJsRoundRobin(c: QualityCase): () => Promise<Assignment> {
  const sizes: Record<string, number> = {};
  for (const p of c.partitions) sizes[p.topic] = Math.max(sizes[p.topic] ?? 0, p.partition + 1);
  const assigner = PartitionAssigners.roundRobin({
    cluster: fakeCluster(sizes),
    groupId: 'quality',
    logger: silentKafkaLogger(),
  });
  const members = c.members.map((m) => memberWithUserData(m.memberId, m.topics, Buffer.alloc(0)));
  // The leader's own subscription: KafkaJS hands assign() only that, and round-robin uses it for everyone.
  const topics = [...(c.members[0]?.topics ?? [])];
  return async () => decodeAssignedPartitions(await assigner.assign({ members, topics }));
}
