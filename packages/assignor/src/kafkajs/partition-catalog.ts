import type { Cluster } from 'kafkajs';
import type { WeightedPartition } from '../core/types.js';
import { MetadataTimeoutError } from '../errors/errors.js';
import type { LateTopicMetadata } from '../inputs/late-metadata.js';
import type { Logger } from '../base/logger.js';
import { withTimeout } from '../base/timeout.js';
import { brokerRacksOf } from './broker-racks.js';
import { targetTopicsOf } from './internals.js';
import { partitionRacks, type ReplicaRackMode, type SharedRackLists } from '../inputs/partition-racks.js';

/** What the leader does about metadata that answers after the budget. */
export interface LateMetadataHandling {
  /** Partition lists learnt late, standing in for metadata that is slow again. */
  readonly cache: LateTopicMetadata;
  /** Called once per late answer that revealed partitions this assignment left out. */
  readonly arrived: (topics: ReadonlyArray<string>) => void;
}

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
 *
 * Metadata that answers after the budget is not thrown away: its partitions are remembered in
 * `late.cache` and `late.arrived` is told, so the leader can ask for a rebalance that assigns the
 * topics this assignment had to leave out (docs/architecture.md, "Late metadata").
 *
 * Each partition carries the racks of its replicas (`replicaRacks` says which replicas count)
 * when the brokers report racks; partitions known only from memory carry none.
 */
export async function listPartitions(
  cluster: Cluster,
  topics: ReadonlyArray<string>,
  leaderTopics: ReadonlyArray<string>,
  timeoutMs: number,
  logger: Logger,
  late?: LateMetadataHandling,
  replicaRacks: ReplicaRackMode = 'all',
): Promise<Array<Pick<WeightedPartition, 'topic' | 'partition' | 'racks'>>> {
  const leader = new Set(leaderTopics);
  const extra = topics.filter((t) => !leader.has(t));
  const targetsBefore = targetTopicsOf(cluster);
  const borrowed = targetsBefore === undefined ? [] : extra.filter((t) => !targetsBefore.has(t));
  let lateLoad: Promise<void> | undefined;
  if (extra.length > 0) {
    let loading: Promise<void> | undefined;
    try {
      // Inside the try: KafkaJS (or a wrapper) may throw synchronously instead of rejecting.
      loading = cluster.addMultipleTargetTopics(extra);
      await withTimeout(loading, timeoutMs, () => new MetadataTimeoutError(extra.length, timeoutMs));
    } catch (err) {
      logger.warn({ topics: extra, err }, 'could not load metadata for topics only other members subscribe to');
      if (err instanceof MetadataTimeoutError) lateLoad = loading;
    }
  }
  const partitions: Array<Pick<WeightedPartition, 'topic' | 'partition' | 'racks'>> = [];
  const brokerRacks = brokerRacksOf(cluster);
  const sharedRacks: SharedRackLists = new Map();
  const missing: string[] = [];
  const nowMs = performance.now();
  for (const topic of topics) {
    let found = 0;
    try {
      for (const p of cluster.findTopicPartitionMetadata(topic)) {
        const racks = partitionRacks(p, brokerRacks, replicaRacks, sharedRacks);
        partitions.push(
          racks === undefined ? { topic, partition: p.partitionId } : { topic, partition: p.partitionId, racks },
        );
        found++;
      }
    } catch (err) {
      logger.warn({ topic, err }, 'no partition metadata for topic; its partitions are not assigned this time');
    }
    if (found > 0) continue;
    // A remembered list stands in only while this listing had no answer in time: an answer that
    // came in time and lists nothing means the topic is gone, and must not be assigned from memory.
    const remembered = lateLoad === undefined ? undefined : late?.cache.recall(topic, nowMs);
    if (remembered === undefined) missing.push(topic);
    else for (const partition of remembered) partitions.push({ topic, partition });
  }
  // Read the current set again: KafkaJS replaces it when a refresh fails on a missing topic.
  const targets = targetTopicsOf(cluster);
  for (const topic of borrowed) targets?.delete(topic);
  const leftOut = extra.filter((t) => missing.includes(t));
  if (lateLoad !== undefined && late !== undefined && leftOut.length > 0) {
    void lateLoad.then(
      () => {
        learnLate(cluster, leftOut, borrowed, late, logger);
      },
      () => undefined,
    );
  }
  return partitions;
}

/**
 * Reads what a late metadata answer brought for the topics an assignment left out, remembers it
 * and says so once. The borrowed topics are taken out of the consumer's targets again: the late
 * refresh may have run with them.
 */
function learnLate(
  cluster: Cluster,
  topics: ReadonlyArray<string>,
  borrowed: ReadonlyArray<string>,
  late: LateMetadataHandling,
  logger: Logger,
): void {
  const nowMs = performance.now();
  const learnt: string[] = [];
  for (const topic of topics) {
    try {
      const ids = cluster.findTopicPartitionMetadata(topic).map((p) => p.partitionId);
      if (ids.length === 0) continue;
      late.cache.remember(topic, ids, nowMs);
      learnt.push(topic);
    } catch {
      // Still unknown: nothing learnt, nothing to rebalance for.
    }
  }
  const targets = targetTopicsOf(cluster);
  for (const topic of borrowed) targets?.delete(topic);
  if (learnt.length === 0) return;
  logger.info(
    { topics: learnt },
    'metadata for topics only other members subscribe to arrived after the budget; rebalancing so their partitions are assigned',
  );
  late.arrived(learnt);
}
