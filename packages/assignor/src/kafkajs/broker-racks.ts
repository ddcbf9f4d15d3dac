import type { Cluster } from 'kafkajs';
import type { TopicPartition } from '../core/types.js';
import { metadataBrokersOf } from './internals.js';
import { partitionRacks, type ReplicaRackMode, type SharedRackLists } from '../inputs/partition-racks.js';

/**
 * Each broker's rack, by node id, from the cluster's last metadata answer (the seam's
 * `cluster.brokerPool.metadata`). Before the first answer there are no racks; a KafkaJS without
 * that field was already reported when the consumer was created (and refused with `rack` set).
 */
export function brokerRacksOf(cluster: Cluster): ReadonlyMap<number, string> {
  const racks = new Map<number, string>();
  const brokers = metadataBrokersOf(cluster);
  if (brokers === undefined) return racks;
  for (const b of brokers) {
    const { nodeId, rack } = (b ?? {}) as { nodeId?: unknown; rack?: unknown };
    if (typeof nodeId === 'number' && typeof rack === 'string' && rack !== '') racks.set(nodeId, rack);
  }
  return racks;
}

/**
 * The replica racks of `partitions` from the metadata `cluster` already holds (no request): what
 * the leader attaches to the partitions it balances, for the trigger to judge with the same racks.
 * Undefined entries: no rack known (the topic is not in this consumer's metadata, or no broker
 * reports a rack).
 */
export function replicaRacksThrough(
  cluster: Cluster,
  mode: ReplicaRackMode,
): (partitions: ReadonlyArray<TopicPartition>) => Array<ReadonlyArray<string> | undefined> {
  return (partitions) => {
    const brokers = brokerRacksOf(cluster);
    if (brokers.size === 0) return partitions.map(() => undefined);
    const byTopic = new Map<string, Map<number, ReadonlyArray<string> | undefined>>();
    const shared: SharedRackLists = new Map();
    return partitions.map((p) => {
      let known = byTopic.get(p.topic);
      if (known === undefined) {
        known = new Map();
        try {
          for (const m of cluster.findTopicPartitionMetadata(p.topic)) {
            known.set(m.partitionId, partitionRacks(m, brokers, mode, shared));
          }
        } catch {
          // Unknown topic: no racks, as for a cluster without them.
        }
        byTopic.set(p.topic, known);
      }
      return known.get(p.partition);
    });
  };
}
