import type { Admin, ITopicConfig } from 'kafkajs';
import { waitUntil } from './wait';

/**
 * Creates topics one request each and waits until every partition has a leader. KafkaJS's own
 * `waitForLeaders` gives up on the first UNKNOWN_TOPIC_OR_PARTITION, which a 3.9 three-node
 * cluster, a broker creating thousands of partitions or one busy with parallel test files still
 * answers for a while after the create. Integration files use this instead of `waitForLeaders`.
 */
export async function createTopicsWithLeaders(
  admin: Admin,
  topics: ITopicConfig[],
  timeoutMs = 180_000,
): Promise<void> {
  for (const topic of topics) await admin.createTopics({ topics: [topic], waitForLeaders: false });
  const names = topics.map((t) => t.topic);
  const expected = new Map(topics.map((t) => [t.topic, t.replicaAssignment?.length ?? t.numPartitions ?? 1]));
  // Short polls: on a single broker the leaders are usually there within a few hundred ms.
  await waitUntil(
    async () => {
      try {
        const { topics: metadata } = await admin.fetchTopicMetadata({ topics: names });
        const ready = metadata.every(
          (t) => t.partitions.length === expected.get(t.name) && t.partitions.every((p) => p.leader >= 0),
        );
        return ready ? true : undefined;
      } catch {
        // UNKNOWN_TOPIC_OR_PARTITION until the broker has created them all.
        return undefined;
      }
    },
    `leaders of ${names.join(', ')}`,
    timeoutMs,
    200,
  );
}
