import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, PartitionAssigners, type Cluster, type Consumer, type PartitionAssigner } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { recordingLogger } from '@load-aware/test-support';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';

/**
 * The leader loads metadata for topics only other members subscribe to within its budget. When
 * that answer comes late, the topic is left out of the assignment; the leader must then ask for a
 * rebalance itself, so the topic is consumed within seconds rather than at the next unrelated
 * rebalance (which, in a quiet group, may be never).
 */

const TIMEOUT_MS = 120_000;
const BUDGET_MS = 300;
/** Longer than the budget: the leader's metadata for the other member's topic always comes late. */
const METADATA_DELAY_MS = 1500;
/** How long the other member is given to receive a record of its own topic. */
const WATCH_MS = 30_000;

/**
 * The slowed-down metadata calls still pending, and whether the test is tearing down. A delayed
 * call must not reach KafkaJS once its consumer is disconnecting: it would reconnect after Jest has
 * torn the test environment down.
 */
interface SlowCalls {
  readonly pending: Set<Promise<unknown>>;
  closing: boolean;
}

/** The leader consumer's cluster with one thing slowed down: loading metadata for more topics. */
function withSlowExtraMetadata(cluster: Cluster, calls: SlowCalls): Cluster {
  return new Proxy(cluster, {
    get(target, property) {
      if (property === 'addMultipleTargetTopics') {
        return (topics: string[]) => {
          const call = sleep(METADATA_DELAY_MS).then(() =>
            calls.closing ? Promise.reject(new Error('test is tearing down')) : target.addMultipleTargetTopics(topics),
          );
          calls.pending.add(call);
          void call.then(
            () => calls.pending.delete(call),
            () => calls.pending.delete(call),
          );
          return call;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('metadata of another member’s topic answers after the budget', () => {
  it(
    'is followed by a rebalance that assigns the topic',
    async () => {
      const kafka = new Kafka({
        clientId: 'late-metadata',
        brokers: kafkaBrokersFromEnv(),
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      const shared = uniqueName('late-shared');
      const extra = uniqueName('late-extra');
      const groupId = uniqueName('late-metadata-group');
      const consumers: Consumer[] = [];
      const logger = recordingLogger();
      let firstExtraAt: number | undefined;
      const slowCalls: SlowCalls = { pending: new Set(), closing: false };
      try {
        await createTopicsWithLeaders(admin, [
          { topic: shared, numPartitions: 2, replicationFactor: 1 },
          { topic: extra, numPartitions: 2, replicationFactor: 1 },
        ]);
        const leaderAssigner = LoadAwareAssigner({ instanceId: 'leader', weightsTimeoutMs: BUDGET_MS, logger });
        const slowLeader: PartitionAssigner = ({ cluster, groupId: id, logger: kafkaLogger }) =>
          leaderAssigner({ cluster: withSlowExtraMetadata(cluster, slowCalls), groupId: id, logger: kafkaLogger });
        const start = async (assigner: PartitionAssigner, topics: string[]): Promise<void> => {
          const consumer = kafka.consumer({
            groupId,
            partitionAssigners: [assigner, PartitionAssigners.roundRobin],
            sessionTimeout: 10_000,
            heartbeatInterval: 500,
            maxWaitTimeInMs: 100,
          });
          consumers.push(consumer);
          await consumer.connect();
          for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
          await consumer.run({
            eachMessage: ({ topic }) => {
              if (topic === extra) firstExtraAt ??= Date.now();
              return Promise.resolve();
            },
          });
        };
        await start(slowLeader, [shared]);
        await waitForStableGroup(admin, groupId, 1, 2);
        await start(LoadAwareAssigner({ instanceId: 'other' }), [shared, extra]);
        const joinedAt = Date.now();

        const producer = kafka.producer();
        await producer.connect();
        const until = joinedAt + WATCH_MS;
        while (firstExtraAt === undefined && Date.now() < until) {
          await producer.send({
            topic: extra,
            messages: [
              { value: 'x', partition: 0 },
              { value: 'y', partition: 1 },
            ],
          });
          await sleep(250);
        }
        await producer.disconnect();
        const late = logger.messages('info').filter((m) => m.includes('arrived after the budget')).length;
        process.stdout.write(
          `late metadata: other member's topic first consumed ${firstExtraAt === undefined ? 'never' : `${String(firstExtraAt - joinedAt)} ms`} after it joined (watched ${String(WATCH_MS)} ms); late answers logged ${String(late)}\n`,
        );
        expect(firstExtraAt).toBeDefined();
        expect(late).toBeGreaterThanOrEqual(1);
      } finally {
        slowCalls.closing = true;
        await Promise.allSettled(consumers.map((c) => c.disconnect()));
        // The leader's handler of a late answer runs when the call settles: let it run now.
        await Promise.allSettled([...slowCalls.pending]);
        await admin.deleteTopics({ topics: [shared, extra] }).catch(() => undefined);
        await admin.disconnect();
      }
    },
    TIMEOUT_MS,
  );
});
