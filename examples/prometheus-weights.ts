/**
 * Weights from Prometheus (or VictoriaMetrics through its path prefix): one PromQL instant query
 * per assignment. The query must return one series per partition, labelled topic and partition;
 * `%s` becomes the regex-escaped list of the group's topics.
 *
 *   PROMETHEUS_URL=http://localhost:9090 BROKERS=localhost:9092 node examples/.build/prometheus-weights.js
 */
import { Kafka, PartitionAssigners } from 'kafkajs';
import pino from 'pino';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { brokersFromEnv, runUntilStopped } from './run-until';

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const weights = createPrometheusWeightSource({
    url: process.env['PROMETHEUS_URL'] ?? 'http://localhost:9090',
    // e.g. kafka-exporter's per-partition end offsets turned into a produce rate:
    query: 'sum by (topic, partition) (rate(kafka_topic_partition_current_offset{topic=~"%s"}[5m]))',
    // Sent as the Authorization header; never logged or put in errors.
    ...(process.env['PROMETHEUS_AUTH'] === undefined ? {} : { authorization: process.env['PROMETHEUS_AUTH'] }),
    timeoutMs: 3000,
    maxAgeMs: 10_000,
    logger,
  });
  const kafka = new Kafka({ clientId: 'prometheus-example', brokers: brokersFromEnv() });
  const consumer = kafka.consumer({
    groupId: process.env['GROUP_ID'] ?? 'prometheus-example',
    // A weight query slower than weightsTimeoutMs falls back to round-robin for that rebalance.
    partitionAssigners: [LoadAwareAssigner({ weights, logger, weightsTimeoutMs: 4000 }), PartitionAssigners.roundRobin],
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [process.env['TOPIC'] ?? 'orders'] });
  await consumer.run({ eachMessage: () => Promise.resolve() });
  await runUntilStopped(() => consumer.disconnect());
}

void main();
