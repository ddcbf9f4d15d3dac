import { readdirSync, readFileSync } from 'node:fs';

import { Kafka, logLevel, type Consumer, type KafkaMessage } from 'kafkajs';

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

async function startConsumer(
  kafka: Kafka,
  topic: string,
  onMessage: (message: KafkaMessage) => void,
): Promise<Consumer> {
  const consumer = kafka.consumer({
    groupId: uniqueName('kafka-broker-int'),
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
    rebalanceTimeout: 10_000,
  });
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
  it('round-trips a message produced and consumed through KafkaJS on a fresh topic', async () => {
    const kafka = client(kafkaBrokersFromEnv());
    const topic = uniqueName('round-trip');
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer();
    const received = collector();
    let consumer: Consumer | undefined;
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
      await producer.connect();
      await producer.send({
        topic,
        messages: [
          { key: 'a', value: 'hello' },
          { key: 'b', value: 'world' },
        ],
      });
      consumer = await startConsumer(kafka, topic, received.onMessage);

      await received.waitFor(['hello', 'world']);
    } finally {
      await consumer?.disconnect();
      await producer.disconnect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
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
    const admin = kafka.admin();
    await admin.connect();

    // Finding the group's coordinator creates __consumer_offsets; its single partition's leader
    // coordinates every group. Making that node the topic's preferred leader too means one
    // stopNode() forces both a partition leader election and a coordinator move.
    await admin.describeGroups([groupId]);
    const offsets = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
    const victim = offsets.topics[0]?.partitions[0]?.leader;
    if (victim === undefined) {
      throw new Error('__consumer_offsets has no leader');
    }
    const others = cluster.nodes.map((node) => node.nodeId).filter((id) => id !== victim);
    await admin.createTopics({
      topics: [{ topic, replicaAssignment: [{ partition: 0, replicas: [victim, ...others] }] }],
      waitForLeaders: true,
    });
    const before = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(before.topics[0]?.partitions[0]?.leader).toBe(victim);
    expect(before.topics[0]?.partitions[0]?.replicas).toHaveLength(3);

    const producer = kafka.producer();
    const received = collector();
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: 6_000,
      heartbeatInterval: 500,
      rebalanceTimeout: 10_000,
    });
    try {
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ value: 'before' }] });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          received.onMessage(message);
          return Promise.resolve();
        },
      });
      await received.waitFor(['before']);

      const victimPid = cluster.nodes[victim - 1]?.pid;
      await cluster.stopNode(victim);
      expect(cluster.nodes[victim - 1]?.running).toBe(false);
      expect(victimPid).toBeDefined();
      expect(processesMentioning(cluster.workDir)).not.toContain(victimPid);

      await producer.send({ topic, acks: -1, messages: [{ value: 'during' }] });
      await received.waitFor(['during']);
      const during = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(others).toContain(during.topics[0]?.partitions[0]?.leader);

      await cluster.startNode(victim);
      expect(cluster.nodes[victim - 1]?.running).toBe(true);
      await producer.send({ topic, acks: -1, messages: [{ value: 'after' }] });
      await received.waitFor(['after']);
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    }

    const pids = cluster.nodes.map((node) => node.pid);
    const { workDir } = cluster;
    await cluster.stop();
    expect(cluster.nodes.every((node) => !node.running)).toBe(true);
    expect(pids.every((pid) => pid !== undefined)).toBe(true);
    expect(processesMentioning(workDir)).toEqual([]);
  }, 240_000);
});
