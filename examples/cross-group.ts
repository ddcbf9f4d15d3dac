/**
 * Cross-group balancing: a service that runs two consumer groups in every pod (`orders` and
 * `payments`) shares one assigner between them with `crossGroup`. Each group's leader then places
 * its partitions on top of the load every instance already carries from the other group, so the
 * heaviest partitions of both groups do not end up on the same pod.
 *
 *   BROKERS=localhost:9092 ORDERS_TOPIC=orders PAYMENTS_TOPIC=payments node examples/.build/cross-group.js
 */
import { Kafka, PartitionAssigners } from 'kafkajs';
import pino from 'pino';
import { LoadAwareAssigner, kafkaJsLogCreator } from '@load-aware/assignor';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { brokersFromEnv, runUntilStopped } from './run-until';

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const kafka = new Kafka({
    clientId: 'cross-group-example',
    brokers: brokersFromEnv(),
    logCreator: kafkaJsLogCreator(logger),
  });
  const groups = [
    { groupId: process.env['ORDERS_GROUP'] ?? 'orders', topic: process.env['ORDERS_TOPIC'] ?? 'orders' },
    { groupId: process.env['PAYMENTS_GROUP'] ?? 'payments', topic: process.env['PAYMENTS_TOPIC'] ?? 'payments' },
  ];

  // One weight source and one assigner for both groups: the leader weighs the other group's
  // partitions with the same rates it weighs its own, so the two loads add up.
  const weights = createOffsetRateWeightSource({ kafka, rateIntervalMs: 60_000, logger }).start();
  const assigner = LoadAwareAssigner({
    weights,
    logger,
    // Every group of the set, this one included (the assigner skips its own).
    crossGroup: { groups: groups.map((g) => g.groupId) },
  });

  const consumers = await Promise.all(
    groups.map(async ({ groupId, topic }) => {
      const consumer = kafka.consumer({ groupId, partitionAssigners: [assigner, PartitionAssigners.roundRobin] });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: false });
      await consumer.run({
        eachMessage: ({ partition, message }) => {
          logger.debug({ groupId, partition, offset: message.offset }, 'consumed');
          return Promise.resolve();
        },
      });
      return consumer;
    }),
  );

  await runUntilStopped(async () => {
    await Promise.all(consumers.map((c) => c.disconnect()));
    await weights.stop();
  });
}

void main();
