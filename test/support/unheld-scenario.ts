import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import type { UnheldInstanceEvent, UnheldInstanceSpec } from '../fixtures/unheld-instance';
import { runInBackground, type BackgroundLoop } from './background-loop';
import { startFixtureProcess, type FixtureProcess } from './fixture-process';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './index';

/** One consumer process of fixtures/unheld-instance.ts. */
export interface UnheldInstance extends FixtureProcess<UnheldInstanceEvent> {
  readonly spec: UnheldInstanceSpec;
  /** The latest value of its `load_aware_trigger_coordinator` gauge (0 before any). */
  coordinator(): number;
  /** Whether its last join made it the group leader. */
  isLeader(): boolean;
  /** Its log lines whose message starts with `prefix`. */
  lines(prefix: string): Array<Extract<UnheldInstanceEvent, { event: 'log' }>>;
}

/** A topic of its own, a group of its own, a producer writing to every partition, consumer processes. */
export interface UnheldScenario {
  readonly admin: Admin;
  readonly topic: string;
  readonly groupId: string;
  readonly instances: UnheldInstance[];
  /** Starts one process per client id, each after the previous one joined (the first leads). */
  start(
    clientIds: ReadonlyArray<string>,
    options: { trigger: boolean; checkIntervalMs: number; metadataMaxAgeMs?: number },
  ): Promise<void>;
  /**
   * Grows the topic to `count` partitions and polls the broker's metadata every 50 ms until it
   * lists them all with a leader; returns when the poll that first listed them started (ms epoch).
   * From then on the producer writes to every partition.
   */
  addPartitions(count: number): Promise<number>;
  /** When each of `partitions` was first consumed after `sinceMs` by any instance, if it was. */
  firstConsumed(partitions: ReadonlyArray<number>, sinceMs: number): Map<number, number>;
  close(): Promise<void>;
}

/** Messages per partition per second the background producer writes. */
const MESSAGES_PER_SECOND = 10;

/** Creates the scenario with a topic of `partitions` partitions; the producer starts at once. */
export async function createUnheldScenario(partitions: number): Promise<UnheldScenario> {
  const brokers = kafkaBrokersFromEnv();
  const kafka = new Kafka({ clientId: 'unheld-int', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topic = uniqueName('unheld');
  await createTopicsWithLeaders(admin, [{ topic, numPartitions: partitions, replicationFactor: 1 }]);
  const groupId = uniqueName('unheld-group');
  const instances: UnheldInstance[] = [];
  // A producer's metadata is as stale as a consumer's: a new one per partition count, so that
  // messages reach the added partitions as soon as they exist.
  let producing: BackgroundLoop<void> | undefined;
  const produce = (count: number): BackgroundLoop<void> =>
    runInBackground(async (stopped) => {
      const producer: Producer = kafka.producer();
      await producer.connect();
      try {
        while (!stopped()) {
          const value = String(Date.now());
          await producer.send({
            topic,
            messages: Array.from({ length: count }, (_, partition) => ({ partition, value })),
          });
          await sleep(1000 / MESSAGES_PER_SECOND);
        }
      } finally {
        await producer.disconnect();
      }
    });
  producing = produce(partitions);

  return {
    admin,
    topic,
    groupId,
    instances,
    async start(clientIds, options) {
      for (const clientId of clientIds) {
        const spec: UnheldInstanceSpec = {
          brokers,
          groupId,
          topic,
          clientId,
          trigger: options.trigger,
          checkIntervalMs: options.checkIntervalMs,
          ...(options.metadataMaxAgeMs === undefined ? {} : { metadataMaxAgeMs: options.metadataMaxAgeMs }),
          lifetimeMs: 170_000,
        };
        const child = startFixtureProcess<UnheldInstanceEvent>({ fixture: 'unheld-instance', spec, name: clientId });
        const instance: UnheldInstance = {
          ...child,
          spec,
          coordinator: () => child.last((e) => (e.event === 'coordinator' ? e.value : undefined), 0),
          isLeader: () => child.last((e) => (e.event === 'join' ? e.isLeader : undefined), false),
          lines: (prefix) =>
            child.events.flatMap((e) => (e.event === 'log' && e.message.startsWith(prefix) ? [e] : [])),
        };
        instances.push(instance);
        await instance.waitFor((e) => e.some((x) => x.event === 'join'), 'first join');
      }
    },
    async addPartitions(count) {
      await admin.createPartitions({ topicPartitions: [{ topic, count }] });
      for (let i = 0; i < 200; i++) {
        const startedAt = Date.now();
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => ({ topics: [] }));
        const listed = topics[0]?.partitions.filter((p) => p.leader >= 0).length ?? 0;
        if (listed >= count) {
          await producing?.stop();
          producing = produce(count);
          return startedAt;
        }
        await sleep(50);
      }
      throw new Error(`the broker did not list ${String(count)} partitions of ${topic} within 10 s`);
    },
    firstConsumed(wanted, sinceMs) {
      const first = new Map<number, number>();
      for (const instance of instances) {
        for (const e of instance.events) {
          if (e.event !== 'consumed' || e.at < sinceMs || !wanted.includes(e.partition)) continue;
          first.set(e.partition, Math.min(first.get(e.partition) ?? Infinity, e.at));
        }
      }
      return first;
    },
    async close() {
      await producing?.stop().catch(() => undefined);
      await Promise.all(instances.splice(0).map((i) => i.stop()));
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
