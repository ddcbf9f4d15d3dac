import type { Cluster } from 'kafkajs';
import type { TopicPartition } from './core/types.js';
import { MetadataTimeoutError } from './errors.js';
import type { Logger } from './logger.js';
import { withTimeout } from './timeout.js';

/**
 * Lists the partitions of every topic any member subscribes to. KafkaJS refreshes metadata only
 * for the leader's own topics before `assign()`, so topics that only other members subscribe to
 * are added to the cluster's target topics first (bounded by `timeoutMs`; on failure those topics
 * are skipped with a WARN and their members simply get nothing this generation).
 *
 * Those topics are taken out of the target topics again once read: the cluster is the leader
 * consumer's own, and every later metadata refresh of that consumer asks for all its targets. A
 * topic another member subscribed to that is later deleted (or that this consumer may not
 * describe) would then fail every refresh and crash the consumer over and over.
 */
export async function listPartitions(
  cluster: Cluster,
  topics: ReadonlyArray<string>,
  leaderTopics: ReadonlyArray<string>,
  timeoutMs: number,
  logger: Logger,
): Promise<TopicPartition[]> {
  const leader = new Set(leaderTopics);
  const extra = topics.filter((t) => !leader.has(t));
  const targetsBefore = targetTopicsOf(cluster);
  const borrowed = targetsBefore === undefined ? [] : extra.filter((t) => !targetsBefore.has(t));
  if (extra.length > 0) {
    try {
      await withTimeout(
        cluster.addMultipleTargetTopics(extra),
        timeoutMs,
        () => new MetadataTimeoutError(extra.length, timeoutMs),
      );
    } catch (err) {
      logger.warn({ topics: extra, err }, 'could not load metadata for topics only other members subscribe to');
    }
  }
  const partitions: TopicPartition[] = [];
  for (const topic of topics) {
    try {
      for (const p of cluster.findTopicPartitionMetadata(topic)) partitions.push({ topic, partition: p.partitionId });
    } catch (err) {
      logger.warn({ topic, err }, 'no partition metadata for topic; its partitions are not assigned this time');
    }
  }
  // Read the current set again: KafkaJS replaces it when a refresh fails on a missing topic.
  const targets = targetTopicsOf(cluster);
  for (const topic of borrowed) targets?.delete(topic);
  return partitions;
}

/** KafkaJS's `cluster.targetTopics` (internal, a Set in 2.2.x), or undefined elsewhere. */
function targetTopicsOf(cluster: Cluster): Set<string> | undefined {
  const targets = (cluster as unknown as { targetTopics?: unknown }).targetTopics;
  return targets instanceof Set ? (targets as Set<string>) : undefined;
}
