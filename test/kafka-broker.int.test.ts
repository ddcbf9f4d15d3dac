import { readdirSync, readFileSync } from 'node:fs';

import {
  Kafka,
  logLevel,
  type Admin,
  type Consumer,
  type ITopicConfig,
  type KafkaMessage,
  type Producer,
} from 'kafkajs';

import { kafkaBrokersFromEnv, startKafka, uniqueName, type KafkaCluster } from './support';

const messageTimeoutMs = 60_000;

function client(brokers: readonly string[]): Kafka {
  return new Kafka({
    clientId: uniqueName('kafka-broker-int'),
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
}

/** Collects consumed values and lets a test wait until a given set has arrived. */
function collector(): { onMessage: (message: KafkaMessage) => void; waitFor: (values: string[]) => Promise<void> } {
  const seen = new Set<string>();
  const waiters: (() => void)[] = [];
  return {
    onMessage: (message) => {
      seen.add(message.value?.toString() ?? '');
      waiters.splice(0).forEach((wake) => {
        wake();
      });
    },
    waitFor: async (values) => {
      const deadline = Date.now() + messageTimeoutMs;
      while (!values.every((value) => seen.has(value))) {
        if (Date.now() > deadline) {
          const missing = values.filter((value) => !seen.has(value));
          throw new Error(`Timed out waiting for messages ${missing.join(', ')}`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500);
        });
      }
    },
  };
}

/** Starts a consumer of `topic` in `groupId` that hands every message to `onMessage`. */
async function startConsumer(
  kafka: Kafka,
  groupId: string,
  topic: string,
  onMessage: (message: KafkaMessage) => void,
): Promise<Consumer> {
  // Short sessions (the brokers allow 1 s) so a lost coordinator or member is noticed quickly.
  const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 500, rebalanceTimeout: 10_000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      onMessage(message);
      return Promise.resolve();
    },
  });
  return consumer;
}

/** The clients of one round-trip test: a connected admin, a producer and a {@link collector} of consumed values. */
interface RoundTripClients {
  readonly admin: Admin;
  readonly producer: Producer;
  readonly received: ReturnType<typeof collector>;
  /** Starts the consumer of `topic` in `groupId` that feeds `received`. */
  consume(groupId: string, topic: string): Promise<void>;
  /** Disconnects the consumer, the producer and the admin, deleting `topic` first when given. */
  close(topic?: string): Promise<void>;
}

/** Connects the admin of a round-trip test; the producer connects when the test first needs it. */
async function roundTripClients(kafka: Kafka): Promise<RoundTripClients> {
  const admin = kafka.admin();
  const producer = kafka.producer();
  const received = collector();
  let consumer: Consumer | undefined;
  await admin.connect();
  return {
    admin,
    producer,
    received,
    async consume(groupId, topic) {
      consumer = await startConsumer(kafka, groupId, topic, received.onMessage);
    },
    async close(topic) {
      await consumer?.disconnect();
      await producer.disconnect();
      if (topic !== undefined) await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

/** Retries `probe` until it stops throwing: KRaft brokers learn about new topics asynchronously. */
async function eventually<T>(probe: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * Creates `topic` and waits until every partition has a leader. KafkaJS's own `waitForLeaders`
 * gives up on the UNKNOWN_TOPIC_OR_PARTITION a KRaft broker answers until the new topic reaches its
 * metadata cache, so this polls instead.
 */
async function createTopic(admin: Admin, topic: ITopicConfig): Promise<void> {
  await admin.createTopics({ topics: [topic], waitForLeaders: false });
  await partitionZero(admin, topic.topic);
}

/** Leader and replicas of partition 0 of `topic`, once the broker asked reports a leader. */
async function partitionZero(admin: Admin, topic: string): Promise<{ leader: number; replicas: number[] }> {
  return eventually(async () => {
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = metadata.topics[0]?.partitions ?? [];
    const first = partitions.find((partition) => partition.partitionId === 0);
    if (first === undefined || partitions.some((partition) => partition.leader < 0)) {
      throw new Error(`${topic} has partitions without a leader`);
    }
    return { leader: first.leader, replicas: first.replicas };
  });
}

/** Pids of processes whose command line mentions `text` (the cluster's work dir). */
function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false; // Exited while we looked.
      }
    })
    .map(Number);
}

describe('the global single-node broker', () => {
  it('round-trips messages produced and consumed through KafkaJS on a fresh topic', async () => {
    const kafka = client(kafkaBrokersFromEnv());
    const topic = uniqueName('round-trip');
    const clients = await roundTripClients(kafka);
    const { admin, producer, received } = clients;
    try {
      await createTopic(admin, { topic, numPartitions: 2 });
      await producer.connect();
      await producer.send({
        topic,
        messages: [
          { key: 'a', value: 'hello' },
          { key: 'b', value: 'world' },
        ],
      });
      await clients.consume(uniqueName('round-trip-group'), topic);

      await received.waitFor(['hello', 'world']);
    } finally {
      await clients.close(topic);
    }
  });
});

describe('a three-node cluster', () => {
  let cluster: KafkaCluster | undefined;

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('keeps producing and consuming while the leader and group coordinator is down, then takes it back', async () => {
    cluster = await startKafka({ nodes: 3 });
    expect(cluster.nodes.map((node) => node.nodeId)).toEqual([1, 2, 3]);
    const kafka = client(cluster.brokers);
    const topic = uniqueName('failover');
    const groupId = uniqueName('failover-group');
    const clients = await roundTripClients(kafka);
    const { admin, producer, received } = clients;
    try {
      // Looking up the group's coordinator creates __consumer_offsets, whose single partition's
      // leader coordinates every group. Making that node the topic's preferred leader as well means
      // one stopNode() forces both a partition leader election and a coordinator move.
      await eventually(() => admin.describeGroups([groupId]));
      const { leader: victim } = await partitionZero(admin, '__consumer_offsets');
      const others = cluster.nodes.map((node) => node.nodeId).filter((id) => id !== victim);
      await createTopic(admin, {
        topic,
        replicaAssignment: [{ partition: 0, replicas: [victim, ...others] }],
        configEntries: [{ name: 'min.insync.replicas', value: '2' }],
      });
      const before = await partitionZero(admin, topic);
      expect(before.leader).toBe(victim);
      expect(before.replicas).toHaveLength(3);

      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ value: 'before' }] });
      await clients.consume(groupId, topic);
      await received.waitFor(['before']);

      const victimPid = cluster.nodes[victim - 1]?.pid;
      expect(victimPid).toBeDefined();
      await cluster.stopNode(victim);
      expect(cluster.nodes[victim - 1]?.running).toBe(false);
      expect(processesMentioning(cluster.workDir)).not.toContain(victimPid);

      await producer.send({ topic, acks: -1, messages: [{ value: 'during' }] });
      await received.waitFor(['during']);
      expect(others).toContain((await partitionZero(admin, topic)).leader);

      await cluster.startNode(victim);
      expect(cluster.nodes[victim - 1]?.running).toBe(true);
      await producer.send({ topic, acks: -1, messages: [{ value: 'after' }] });
      await received.waitFor(['after']);
    } finally {
      await clients.close();
    }

    const { workDir } = cluster;
    expect(processesMentioning(workDir)).toHaveLength(6); // three guards, three JVMs
    await cluster.stop();
    expect(cluster.nodes.filter((node) => node.running)).toEqual([]);
    expect(processesMentioning(workDir)).toEqual([]);
  }, 240_000);
});
