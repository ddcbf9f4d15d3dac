/**
 * Plain KafkaJS with the load-aware assigner and the default weights: each partition's produce
 * rate (events/s), measured from end-offset growth by a background sampler.
 *
 *   BROKERS=localhost:9092 TOPIC=orders node examples/.build/offset-rate-weights.js
 */
import { Kafka, PartitionAssigners } from 'kafkajs';
import pino from 'pino';
import { LoadAwareAssigner, kafkaJsLogCreator } from '@load-aware/assignor';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { brokersFromEnv, runUntilStopped } from './run-until';

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const kafka = new Kafka({
    clientId: 'offset-rate-example',
    brokers: brokersFromEnv(),
    logCreator: kafkaJsLogCreator(logger),
  });

  // The sampler uses the same Kafka client, so its TLS/SASL settings apply; stop it on shutdown.
  const weights = createOffsetRateWeightSource({ kafka, rateIntervalMs: 60_000, logger }).start();
  const consumer = kafka.consumer({
    groupId: process.env['GROUP_ID'] ?? 'offset-rate-example',
    partitionAssigners: [LoadAwareAssigner({ weights, logger }), PartitionAssigners.roundRobin],
  });

  await consumer.connect();
  await consumer.subscribe({ topics: [process.env['TOPIC'] ?? 'orders'], fromBeginning: false });
  await consumer.run({
    eachMessage: ({ partition, message }) => {
      logger.debug({ partition, offset: message.offset }, 'consumed');
      return Promise.resolve();
    },
  });

  await runUntilStopped(async () => {
    await consumer.disconnect();
    await weights.stop();
  });
}

void main();
