/**
 * Busy-time weights: the handler is wrapped so the time spent per partition lands in a prom-client
 * counter served on /metrics; Prometheus sums it over every consumer process; the assigner reads
 * it back, with offset rates (converted into busy seconds) for partitions nobody has measured yet.
 * Run one per pod; point Prometheus at each pod's METRICS_PORT.
 *
 *   PROMETHEUS_URL=http://localhost:9090 BROKERS=localhost:9092 TOPIC=orders METRICS_PORT=9464 \
 *     node examples/.build/busy-time-weights.js
 */
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, PartitionAssigners } from 'kafkajs';
import pino from 'pino';
import { Registry } from 'prom-client';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createBlendWeightSource, createBusyTimeRecorder } from '@load-aware/busy-time';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { brokersFromEnv, runUntilStopped } from './run-until';

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const registry = new Registry();
  const kafka = new Kafka({ clientId: 'busy-time-example', brokers: brokersFromEnv() });

  const offsetRate = createOffsetRateWeightSource({ kafka, logger, registry }).start();
  const weights = createBlendWeightSource({
    // Each partition's busy seconds per second, summed over every process that consumed it.
    primary: createPrometheusWeightSource({
      url: process.env['PROMETHEUS_URL'] ?? 'http://localhost:9090',
      query: 'sum by (topic, partition) (rate(load_aware_handler_busy_seconds_total{topic=~"%s"}[5m]))',
      timeoutMs: 3000,
      logger,
    }),
    // New partitions, or ones consumed by processes without the wrapper yet: their traffic at the
    // group's median cost per message.
    fallback: offsetRate,
    logger,
  });
  const busy = createBusyTimeRecorder({ registry });

  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  server.listen(Number(process.env['METRICS_PORT'] ?? 9464), process.env['METRICS_HOST'] ?? '127.0.0.1');

  const consumer = kafka.consumer({
    groupId: process.env['GROUP_ID'] ?? 'busy-time-example',
    partitionAssigners: [LoadAwareAssigner({ weights, logger, registry }), PartitionAssigners.roundRobin],
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [process.env['TOPIC'] ?? 'orders'] });
  await consumer.run({
    // Your handler, unchanged, inside the wrapper. The sleep stands for real work.
    eachMessage: busy.eachMessage(async () => {
      await sleep(5);
    }),
  });
  await runUntilStopped(async () => {
    await consumer.disconnect();
    await offsetRate.stop();
    server.close();
  });
}

void main();
