import type { Cluster } from 'kafkajs';

/**
 * Each broker's rack, by node id, from the cluster's last metadata answer. KafkaJS keeps it in
 * `cluster.brokerPool.metadata.brokers` (internal, but stable across 2.x); anything else reads
 * as no racks, so placement simply ignores racks rather than failing.
 */
export function brokerRacksOf(cluster: Cluster): ReadonlyMap<number, string> {
  const racks = new Map<number, string>();
  const pool = (cluster as unknown as { brokerPool?: { metadata?: { brokers?: unknown } } }).brokerPool;
  const brokers = pool?.metadata?.brokers;
  if (!Array.isArray(brokers)) return racks;
  for (const b of brokers as unknown[]) {
    const { nodeId, rack } = (b ?? {}) as { nodeId?: unknown; rack?: unknown };
    if (typeof nodeId === 'number' && typeof rack === 'string' && rack !== '') racks.set(nodeId, rack);
  }
  return racks;
}
