import { startKafka, type KafkaCluster } from './kafka-broker';

/** Where global setup leaves the cluster for global teardown (both run in jest's main process). */
export const CLUSTER_KEY = Symbol.for('load-aware.integration.kafka');

/** `globalThis` as seen by setup and teardown: the cluster handle hangs off a registered symbol. */
export type GlobalWithKafka = typeof globalThis & { [CLUSTER_KEY]?: KafkaCluster | undefined };

/**
 * Jest global setup of the integration project: starts one single-node Kafka (version from
 * `KAFKA_VERSION`) for all test files and publishes its address as `KAFKA_BROKERS`, which jest
 * passes on to the test workers.
 */
export default async function globalSetup(): Promise<void> {
  const startedAt = Date.now();
  const cluster = await startKafka({ nodes: 1 });
  (globalThis as GlobalWithKafka)[CLUSTER_KEY] = cluster;
  process.env['KAFKA_BROKERS'] = cluster.brokers.join(',');
  process.env['KAFKA_VERSION_RUNNING'] = cluster.version;
  process.stdout.write(
    `\nKafka ${cluster.version} at ${cluster.brokers.join(',')} (started in ${String(Date.now() - startedAt)} ms)\n`,
  );
}
