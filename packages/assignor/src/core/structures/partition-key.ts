import type { TopicPartition } from '../types.js';

/**
 * The one way load-aware names a partition in a map: `\u0000` cannot appear in a Kafka topic name, so no two
 * partitions share a key (a weight source may report any string, so `:` would not be safe).
 */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${String(partition)}`;
}

/** {@link partitionKey} of a partition object. */
export function keyOfPartition(p: TopicPartition): string {
  return partitionKey(p.topic, p.partition);
}

/** The human form of a partition in logs and messages: `topic:partition`. */
export function partitionLabel(p: TopicPartition): string {
  return `${p.topic}:${String(p.partition)}`;
}
