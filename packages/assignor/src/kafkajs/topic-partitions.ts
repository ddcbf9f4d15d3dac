import type { Broker, BrokerMetadata, Cluster } from 'kafkajs';
import { errorMessageOf } from '../errors/error-fields.js';
import type { ListedTopic, TopicPartitionsReading } from '../protocol/group-reads.js';

export type { ListedTopic, TopicPartitionsReading };

/**
 * Fresh partition lists of a group's subscribed topics, read for the trigger. KafkaJS keeps a
 * consumer's metadata for `metadataMaxAge` (5 min by default), so partitions added to a topic stay
 * invisible to it that long; a Metadata request of its own, through the consumer's connections,
 * sees them as soon as the broker lists them.
 */

/** Reads the partition lists of `topics`; rejects when no broker could be asked at all. */
export type ReadTopicPartitions = (topics: ReadonlyArray<string>) => Promise<TopicPartitionsReading>;

/** How many single-topic reads run at once when a combined read was refused. */
const SINGLE_READS_AT_ONCE = 8;

/**
 * Metadata of topics read through one consumer's cluster: a Metadata request to the group's
 * coordinator, the broker that consumer already talks to (its TLS and SASL apply), without
 * touching the consumer's own metadata cache. KafkaJS fails a whole answer for one bad topic, so
 * when the combined read is refused each topic is read on its own: a deleted topic must not hide
 * the partitions added to another.
 */
export function topicPartitionsThrough(cluster: Cluster, groupId: string): ReadTopicPartitions {
  return async (topics) => {
    const names = [...new Set(topics)].sort();
    if (names.length === 0) return { listed: [], unlisted: [] };
    const broker = await cluster.findGroupCoordinator({ groupId });
    try {
      return { listed: listedTopics(await metadataWithoutCreation(broker, names), names), unlisted: [] };
    } catch {
      // Which topic made the combined answer fail is not said: ask each one alone.
    }
    const listed: ListedTopic[] = [];
    const unlisted: Array<{ topic: string; reason: string }> = [];
    for (let i = 0; i < names.length; i += SINGLE_READS_AT_ONCE) {
      const chunk = names.slice(i, i + SINGLE_READS_AT_ONCE);
      const answers = await Promise.allSettled(chunk.map((t) => metadataWithoutCreation(broker, [t])));
      answers.forEach((answer, j) => {
        const topic = chunk[j]!;
        if (answer.status === 'fulfilled') listed.push(...listedTopics(answer.value, [topic]));
        else unlisted.push({ topic, reason: errorMessageOf(answer.reason) });
      });
    }
    return { listed, unlisted };
  };
}

/**
 * `broker.metadata(topics)` that never creates a topic. KafkaJS sends the client's
 * `allowAutoTopicCreation` (true by default), read from the broker object when the request is
 * built; a check every few seconds must not bring back a topic an operator just deleted, so the
 * request goes through a view of that broker that says false, on the same connection.
 */
function metadataWithoutCreation(broker: Broker, topics: string[]): Promise<BrokerMetadata> {
  const view = Object.create(broker, { allowAutoTopicCreation: { value: false } }) as Broker;
  return view.metadata(topics);
}

/** The asked topics an answer lists, each with its partitions ascending. */
function listedTopics(answer: BrokerMetadata, asked: ReadonlyArray<string>): ListedTopic[] {
  const wanted = new Set(asked);
  return answer.topicMetadata
    .filter((t) => wanted.has(t.topic) && t.partitionMetadata.length > 0)
    .map((t) => ({ topic: t.topic, partitions: t.partitionMetadata.map((p) => p.partitionId).sort((a, b) => a - b) }));
}
