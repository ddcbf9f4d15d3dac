import { Kafka, logLevel, PartitionAssigners, type Consumer } from 'kafkajs';
import { LoadAwareAssigner, type TopicPartition } from '@load-aware/assignor';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { pollFor, weightMap } from './support/offset-rate-helpers';
import { produceAtRates } from './support/offset-rate-producer';
import { useSharedBrokerAdmin } from './support/shared-broker';

// Per test: jest ignores `testTimeout` inside a project entry of jest.config.js.
const TEST_TIMEOUT_MS = 120_000;

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: uniqueName('offset-rate-e2e'), brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic } = useSharedBrokerAdmin(kafka, 'offset-rate-e2e', { deleteTopicsAfterAll: false });

describe('a consumer group weighed by offset rates', () => {
  it(
    'puts a hot partition alone on its instance once its rate is measured',
    async () => {
      const topic = await createTopic(4);
      const groupId = uniqueName('offset-rate-e2e');
      const partitions: TopicPartition[] = [0, 1, 2, 3].map((partition) => ({ topic, partition }));
      const weights = createOffsetRateWeightSource({ kafka, rateIntervalMs: 5000, sampleIntervalMs: 1000 }).start();
      const producer = produceAtRates(
        kafka,
        [
          { topic, partition: 0, perSecond: 200 },
          { topic, partition: 1, perSecond: 10 },
          { topic, partition: 2, perSecond: 10 },
          { topic, partition: 3, perSecond: 10 },
        ],
        90_000,
      );
      const consumers: Consumer[] = [];
      const join = async (instanceId: string): Promise<void> => {
        await startGroupConsumer(kafka, {
          groupId,
          topic,
          partitionAssigners: [LoadAwareAssigner({ instanceId, weights }), PartitionAssigners.roundRobin],
          fromBeginning: false,
          created: (consumer) => consumers.push(consumer),
        });
      };
      try {
        // Alone, instance-a gets everything; its assignment is what starts the tracking.
        await join('instance-a');
        await waitForStableGroup(admin, groupId, 1, 4);
        const measured = await pollFor(
          'every partition to have a weight',
          async () => {
            const w = weightMap(await weights.getWeights(partitions));
            return Object.keys(w).length === 4 && (w[`${topic}:0`] ?? 0) > 150 ? w : undefined;
          },
          30_000,
          500,
        );
        expect(measured[`${topic}:1`]).toBeLessThan(20);

        await join('instance-b');
        const group = await waitForStableGroup(admin, groupId, 2, 4);
        const hotOwner = group.members.find((m) => m.assigned.includes(`${topic}:0`));
        expect(hotOwner?.assigned).toEqual([`${topic}:0`]);
        const other = group.members.find((m) => m !== hotOwner);
        expect(other?.assigned).toEqual([`${topic}:1`, `${topic}:2`, `${topic}:3`]);
        expect(hotOwner?.instanceId).not.toBe(other?.instanceId);
      } finally {
        await Promise.allSettled(consumers.map((c) => c.disconnect()));
        await producer.stop();
        await weights.stop();
        await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
