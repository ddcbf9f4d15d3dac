/**
 * The full setup: offset-rate weights, the load-aware assigner, the proactive-rebalance trigger,
 * pino logs (KafkaJS's too) and every metric served on `/metrics` for Prometheus.
 *
 *   BROKERS=localhost:9092 TOPIC=orders METRICS_PORT=9464 INSTANCE_ID=pod-a CONSUMERS=2 \
 *     node examples/.build/proactive-rebalance.js
 *
 * CONSUMERS consumers run in this process and share one instance id, so the assigner balances
 * them as one instance. Every consumer gets its own trigger controller: the elected coordinator
 * can be any member of the group.
 */
import { createServer } from 'node:http';
import { Kafka, PartitionAssigners, type Consumer } from 'kafkajs';
import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { LoadAwareAssigner, kafkaJsLogCreator } from '@load-aware/assignor';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { brokersFromEnv, runUntilStopped } from './run-until';

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const kafka = new Kafka({
    clientId: 'proactive-example',
    brokers: brokersFromEnv(),
    logCreator: kafkaJsLogCreator(logger),
  });

  const weights = createOffsetRateWeightSource({ kafka, rateIntervalMs: 60_000, logger, registry }).start();
  const assigner = LoadAwareAssigner({
    weights,
    logger,
    registry,
    ...(process.env['INSTANCE_ID'] === undefined ? {} : { instanceId: process.env['INSTANCE_ID'] }),
  });

  const consumers: Consumer[] = [];
  const triggers: TriggerController[] = [];
  for (let i = 0; i < Number(process.env['CONSUMERS'] ?? 1); i++) {
    const consumer = kafka.consumer({
      groupId: process.env['GROUP_ID'] ?? 'proactive-example',
      partitionAssigners: [assigner, PartitionAssigners.roundRobin],
    });
    // advise=true would only log and count what the trigger would do.
    triggers.push(
      createTriggerController(
        { target: assigner.triggerTarget(consumer) },
        { checkIntervalMs: 30_000, logger, registry, advise: process.env['ADVISE'] === 'true' },
      ),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: [process.env['TOPIC'] ?? 'orders'] });
    await consumer.run({ eachMessage: () => Promise.resolve() });
    consumers.push(consumer);
  }

  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  const port = Number(process.env['METRICS_PORT'] ?? 9464);
  server.listen(port, process.env['METRICS_HOST'] ?? '127.0.0.1');
  logger.info({ port }, 'metrics on /metrics');

  await runUntilStopped(async () => {
    await Promise.all(triggers.map((t) => t.stop()));
    await Promise.all(consumers.map((c) => c.disconnect()));
    await weights.stop();
    server.close();
  });
}

void main();
