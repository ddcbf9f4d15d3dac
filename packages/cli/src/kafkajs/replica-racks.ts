import type { Cluster, Kafka } from 'kafkajs';
import { replicaRacksThrough, type TopicPartition, type WeightedPartition } from '@load-aware/assignor/internal';
import { createInternalCluster } from '@load-aware/weights-offset-rate/internal';

/**
 * The racks holding a replica of each partition, as the group's leader reads them (all replicas,
 * the assignor's default). KafkaJS's admin drops the brokers' racks from what it returns, so they
 * are read through a cluster of the CLI's own, built like the admin's (same brokers, TLS, SASL).
 * Never fails the report: without racks (another KafkaJS, no broker rack, a failed read) the
 * partitions come back as they are and no cross-rack figure is shown.
 */
export async function withReplicaRacks(
  kafka: Kafka,
  partitions: ReadonlyArray<TopicPartition>,
): Promise<Array<Pick<WeightedPartition, 'topic' | 'partition' | 'racks'>>> {
  const cluster = createInternalCluster(kafka, 60_000);
  if (cluster === undefined || partitions.length === 0) return [...partitions];
  try {
    await cluster.connect();
    cluster.targetTopics = new Set(partitions.map((p) => p.topic));
    await cluster.refreshMetadata();
    const racks = replicaRacksThrough(cluster as unknown as Cluster, 'all')(partitions);
    return partitions.map((p, i) => {
      const r = racks[i];
      return r === undefined ? p : { ...p, racks: r };
    });
  } catch {
    return [...partitions];
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}
