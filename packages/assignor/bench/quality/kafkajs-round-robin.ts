import { AssignerProtocol, PartitionAssigners, type Cluster, type Logger } from 'kafkajs';
import type { TopicPartition } from '@load-aware/assignor';
import type { Assignment } from './judge.js';
import type { QualityCase } from './suite.js';

/** KafkaJS 2.2.4's own round-robin assigner on a case, decoded: the baseline users have today. */
export function createKafkaJsRoundRobin(c: QualityCase): () => Promise<Assignment> {
  const sizes = new Map<string, number>();
  for (const p of c.partitions) sizes.set(p.topic, Math.max(sizes.get(p.topic) ?? 0, p.partition + 1));
  const cluster = {
    findTopicPartitionMetadata: (topic: string) =>
      Array.from({ length: sizes.get(topic) ?? 0 }, (_, partitionId) => ({ partitionId })),
  } as unknown as Cluster;
  const drop = (): void => undefined;
  const logger: Logger = {
    info: drop,
    error: drop,
    warn: drop,
    debug: drop,
    namespace: () => logger,
    setLogLevel: drop,
  };
  const assigner = PartitionAssigners.roundRobin({ cluster, groupId: 'quality', logger });
  const members = c.members.map((m) => ({
    memberId: m.memberId,
    memberMetadata: AssignerProtocol.MemberMetadata.encode({
      version: 0,
      topics: [...m.topics],
      userData: Buffer.alloc(0),
    }),
  }));
  // The leader's own subscription: KafkaJS hands assign() only that, and round-robin uses it for everyone.
  const topics = [...(c.members[0]?.topics ?? [])];
  return async () => {
    const out = new Map<string, TopicPartition[]>();
    for (const { memberId, memberAssignment } of await assigner.assign({ members, topics })) {
      const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment);
      const list: TopicPartition[] = [];
      for (const [topic, partitions] of Object.entries(decoded?.assignment ?? {})) {
        for (const partition of partitions) list.push({ topic, partition });
      }
      out.set(memberId, list);
    }
    return out;
  };
}
