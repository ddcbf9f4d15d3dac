import { AssignerProtocol, type Cluster, type GroupMember, type GroupMemberAssignment, type Logger } from 'kafkajs';
import { encodeUserData, type TopicPartition } from '@load-aware/assignor';
import type { Scenario } from './scenarios.js';

/**
 * The two calls an assigner makes on KafkaJS's cluster: partition metadata per topic, and (ours
 * only) loading metadata for topics the leader itself does not subscribe to.
 */
export function fakeCluster(scenario: Scenario): Cluster {
  const metadata = Array.from({ length: scenario.partitionsPerTopic }, (_, partitionId) => ({ partitionId }));
  const known = new Set(scenario.topics);
  const cluster = {
    findTopicPartitionMetadata: (topic: string) => {
      if (!known.has(topic)) throw new Error(`Unknown topic: ${topic}`);
      return metadata;
    },
    addMultipleTargetTopics: () => Promise.resolve(),
  };
  // Only these two methods are ever called by an assigner; the rest of Cluster is irrelevant here.
  return cluster as unknown as Cluster;
}

/** A KafkaJS logger that drops everything. */
export function silentKafkaLogger(): Logger {
  const drop = (): void => undefined;
  const logger: Logger = {
    info: drop,
    error: drop,
    warn: drop,
    debug: drop,
    namespace: () => logger,
    setLogLevel: drop,
  };
  return logger;
}

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

/** Decodes a SyncGroup assignment back into partitions per member id. */
export function decodeAssignments(encoded: ReadonlyArray<GroupMemberAssignment>): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>();
  for (const { memberId, memberAssignment } of encoded) {
    const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment);
    const list: TopicPartition[] = [];
    for (const [topic, partitions] of Object.entries(decoded?.assignment ?? {})) {
      for (const partition of partitions) list.push({ topic, partition });
    }
    out.set(memberId, list);
  }
  return out;
}
