import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, PartitionAssigners, type Consumer } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';

/**
 * A leader reads the metadata of topics only other members subscribe to. Once that member has
 * left and its topic is deleted, the leader consumer must keep consuming its own topic: reading
 * another member's topic must not make it part of the leader's own metadata refreshes (which
 * fail on a topic that no longer exists and crash the consumer, again and again).
 */

const TIMEOUT_MS = 120_000;
/** How long the leader is watched after the deletion: many metadata refreshes and fetch loops. */
const WATCH_MS = 15_000;

describe('a topic another member subscribed to is deleted', () => {
  it(
    'leaves the former leader consuming its own topic without a crash',
    async () => {
      const kafka = new Kafka({
        clientId: 'deleted-topic',
        brokers: kafkaBrokersFromEnv(),
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      const shared = uniqueName('shared');
      const doomed = uniqueName('doomed');
      const groupId = uniqueName('deleted-topic-group');
      const consumers: Consumer[] = [];
      let crashes = 0;
      const crashReasons = new Set<string>();
      let consumedAfterDeletion = 0;
      let deleted = false;
      // Crashes before the other member leaves are not this test's business (a broker that just
      // started answers COORDINATOR_LOAD_IN_PROGRESS for a moment, which KafkaJS treats as a crash).
      let watching = false;
      try {
        await createTopicsWithLeaders(admin, [
          { topic: shared, numPartitions: 2, replicationFactor: 1 },
          { topic: doomed, numPartitions: 2, replicationFactor: 1 },
        ]);
        const start = async (id: string, topics: string[]): Promise<Consumer> => {
          const consumer = kafka.consumer({
            groupId,
            partitionAssigners: [LoadAwareAssigner({ instanceId: id }), PartitionAssigners.roundRobin],
            sessionTimeout: 10_000,
            heartbeatInterval: 500,
            maxWaitTimeInMs: 100,
            // Metadata refreshes every second, so the deleted topic is asked about often.
            metadataMaxAge: 1000,
          });
          consumers.push(consumer);
          consumer.on(consumer.events.CRASH, ({ payload }) => {
            if (id !== 'leader' || !watching) return;
            crashes++;
            crashReasons.add(payload.error.message);
          });
          await consumer.connect();
          for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
          await consumer.run({
            eachMessage: () => {
              if (deleted && id === 'leader') consumedAfterDeletion++;
              return Promise.resolve();
            },
          });
          return consumer;
        };
        await start('leader', [shared]);
        await waitForStableGroup(admin, groupId, 1, 2);
        const other = await start('other', [shared, doomed]);
        await waitForStableGroup(admin, groupId, 2, 4);

        watching = true;
        await other.disconnect();
        await waitForStableGroup(admin, groupId, 1, 2);
        await admin.deleteTopics({ topics: [doomed] });
        deleted = true;
        const producer = kafka.producer();
        await producer.connect();
        const until = Date.now() + WATCH_MS;
        while (Date.now() < until) {
          await producer.send({ topic: shared, messages: [{ value: 'x' }, { value: 'y' }] });
          await sleep(250);
        }
        await producer.disconnect();
        process.stdout.write(
          `deleted topic: leader crashes ${String(crashes)}, messages consumed after the deletion ${String(consumedAfterDeletion)} ${JSON.stringify([...crashReasons])}\n`,
        );
        expect(crashes).toBe(0);
        expect(consumedAfterDeletion).toBeGreaterThan(0);
      } finally {
        await Promise.allSettled(consumers.map((c) => c.disconnect()));
        await admin.deleteTopics({ topics: [shared] }).catch(() => undefined);
        await admin.disconnect();
      }
    },
    TIMEOUT_MS,
  );
});
