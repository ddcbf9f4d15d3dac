import {
  AssignerProtocol,
  type BrokerMetadata,
  type Cluster,
  type GroupMember,
  type GroupMemberAssignment,
  type Logger as KafkaJsLogger,
  type PartitionMetadata,
} from 'kafkajs';
import type { TopicPartition } from '@load-aware/assignor';
import { encodeUserData, partitionLabel } from '@load-aware/assignor/internal';

/** What {@link fakeCluster} can be told. */
export interface FakeClusterOptions {
  /**
   * Topics whose metadata is not loaded until `addMultipleTargetTopics` asks for them, like the
   * topics a leader does not subscribe to itself.
   */
  readonly hidden?: ReadonlyArray<string>;
}

/** {@link fakeCluster}'s cluster, with the topic lists it was asked to load. */
export type FakeCluster = Cluster & { readonly targetTopicCalls: string[][] };

/**
 * The rest of a KafkaJS 2.2.4 consumer cluster's shape, as the assigner's KafkaJS seam checks it
 * when a consumer is created: fields in their real types, and calls that do nothing or, where an
 * answer would need a broker, reject. A fake built on it is a cluster of the supported KafkaJS
 * that is never connected; the seam's own test removes these one by one from the real module.
 */
export function unconnectedClusterShape(): Record<string, unknown> {
  const noBroker = () => Promise.reject(new Error('a fake cluster has no broker'));
  return {
    targetTopics: new Set<string>(),
    brokerPool: { metadata: null },
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    refreshMetadataIfNecessary: () => Promise.resolve(),
    findGroupCoordinator: noBroker,
    fetchTopicsOffset: noBroker,
    addMultipleTargetTopics: () => Promise.resolve(),
  };
}

/**
 * A stand-in for KafkaJS's cluster whose two calls an assigner makes to place partitions answer
 * from `partitionsPerTopic`: partition metadata per topic (empty for a topic it does not know, as
 * KafkaJS answers) and loading metadata for more topics.
 */
export function fakeCluster(
  partitionsPerTopic: Readonly<Record<string, number>>,
  options: FakeClusterOptions = {},
): FakeCluster {
  const hidden = options.hidden ?? [];
  const visible = new Set(Object.keys(partitionsPerTopic).filter((t) => !hidden.includes(t)));
  const targetTopicCalls: string[][] = [];
  // Built once per topic: a benchmark times the assigner, not this fake.
  const metadata = new Map(
    Object.entries(partitionsPerTopic).map(([topic, count]) => [topic, partitionMetadata(count)]),
  );
  const cluster = {
    ...unconnectedClusterShape(),
    targetTopicCalls,
    addMultipleTargetTopics: (topics: string[]) => {
      targetTopicCalls.push(topics);
      for (const t of topics) if (metadata.has(t)) visible.add(t);
      return Promise.resolve();
    },
    findTopicPartitionMetadata: (topic: string) => (visible.has(topic) ? (metadata.get(topic) ?? []) : []),
  };
  return cluster as unknown as FakeCluster;
}

/** KafkaJS's partition metadata for partitions 0..count-1 of a healthy one-broker topic. */
export function partitionMetadata(count: number): PartitionMetadata[] {
  return Array.from({ length: count }, (_, partitionId) => ({
    partitionId,
    leader: 1,
    partitionErrorCode: 0,
    replicas: [1],
    isr: [1],
    offlineReplicas: [],
  }));
}

/**
 * What KafkaJS's `broker.metadata(topics)` answers for these topic sizes. Like KafkaJS, it rejects
 * the whole request when one asked topic is unknown (`UNKNOWN_TOPIC_OR_PARTITION`).
 */
export function metadataAnswer(
  partitionsPerTopic: Readonly<Record<string, number>>,
  topics: ReadonlyArray<string>,
): Promise<BrokerMetadata> {
  const unknown = topics.find((t) => partitionsPerTopic[t] === undefined);
  if (unknown !== undefined) {
    return Promise.reject(
      Object.assign(new Error(`This server does not host this topic-partition: ${unknown}`), {
        type: 'UNKNOWN_TOPIC_OR_PARTITION',
      }),
    );
  }
  return Promise.resolve({
    brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092 }],
    topicMetadata: topics.map((topic) => ({
      topicErrorCode: 0,
      topic,
      partitionMetadata: partitionMetadata(partitionsPerTopic[topic]!),
    })),
  });
}

/** A KafkaJS logger that drops everything. */
export function silentKafkaLogger(): KafkaJsLogger {
  const drop = (): void => undefined;
  const logger: KafkaJsLogger = {
    info: drop,
    error: drop,
    warn: drop,
    debug: drop,
    namespace: () => logger,
    setLogLevel: drop,
  };
  return logger;
}

/** A JoinGroup member with arbitrary userData bytes (another assigner's, an old version, garbage). */
export function memberWithUserData(memberId: string, topics: ReadonlyArray<string>, userData: Buffer): GroupMember {
  return {
    memberId,
    memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: [...topics], userData }),
  };
}

/** A JoinGroup member carrying load-aware userData for `instanceId` (epoch 0), as protocol() sends it. */
export function member(memberId: string, topics: ReadonlyArray<string>, instanceId: string, capacity = 1): GroupMember {
  return memberWithUserData(memberId, topics, encodeUserData({ instanceId, capacity, epoch: 0 }));
}

/** Decodes what assign() returned into member id → its partitions, in the order they were encoded. */
export function decodeAssignedPartitions(result: ReadonlyArray<GroupMemberAssignment>): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>();
  for (const { memberId, memberAssignment } of result) {
    const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment);
    const list: TopicPartition[] = [];
    for (const [topic, partitions] of Object.entries(decoded?.assignment ?? {})) {
      for (const partition of partitions) list.push({ topic, partition });
    }
    out.set(memberId, list);
  }
  return out;
}

/** Decodes what assign() returned into member id → sorted "topic:partition" labels. */
export function decodeAssignments(result: ReadonlyArray<GroupMemberAssignment>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [memberId, partitions] of decodeAssignedPartitions(result)) {
    out.set(memberId, partitions.map(partitionLabel).sort());
  }
  return out;
}

/** Every "topic:partition" label of the given topic sizes, sorted like {@link decodeAssignments}. */
export function allPartitions(partitionsPerTopic: Readonly<Record<string, number>>): string[] {
  return Object.entries(partitionsPerTopic)
    .flatMap(([topic, n]) => Array.from({ length: n }, (_, p) => `${topic}:${String(p)}`))
    .sort();
}
