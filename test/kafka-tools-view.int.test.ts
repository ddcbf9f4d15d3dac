import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { startFixtureProcess, type FixtureProcess } from './support/fixture-process';
import { waitForStableGroup, type ObservedGroup } from './support/group';
import { startInstance } from './support/instance-process';
import { kafkaTools, type KafkaTools } from './support/kafka-tools';
import { platformaticNode } from './support/platformatic-node';
import { useSharedBrokerAdmin } from './support/shared-broker';
import type { PlatformaticInstanceEvent, PlatformaticInstanceSpec } from './fixtures/platformatic-instance';
import type { StaticInstanceEvent, StaticInstanceSpec } from './fixtures/static-instance';

/**
 * What Kafka's own tools show for load-aware groups (docs/operations.md): Kafka's
 * `ConsumerGroupCommand` (the `kafka-consumer-groups.sh` of the broker's version) describes a
 * KafkaJS group, a static KafkaJS group and a platformatic cooperative group. Every partition is
 * listed once, with the member that owns it as the broker sees it, the group's committed offset
 * and the lag that leaves; `--members --verbose` lists the same assignment and `--state` the
 * protocol the group runs.
 */

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: 'kafka-tools-int', brokers, logLevel: logLevel.NOTHING });
const shared = useSharedBrokerAdmin(kafka, 'kafka-tools', { deleteTopicsAfterAll: true });
const { supported: platformaticSupported, reason } = platformaticNode();

const PARTITIONS = 6;
const PER_PARTITION = 50;
const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((p) => p.stop()));
});

let tools: KafkaTools;
beforeAll(async () => {
  tools = await kafkaTools(brokers, process.env['KAFKA_VERSION_RUNNING'] ?? '');
}, 300_000);

async function produce(topic: string): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < PER_PARTITION; i++) {
      await producer.send({
        topic,
        messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: String(i) })),
      });
    }
  } finally {
    await producer.disconnect();
  }
}

/** Waits until the group has committed every partition's log end (the consumers caught up). */
async function caughtUp(admin: Admin, groupId: string, topic: string): Promise<Map<number, number>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const committed = (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions;
    const ends = await admin.fetchTopicOffsets(topic);
    const all = ends.every((e) => committed.find((c) => c.partition === e.partition)?.offset === e.high);
    if (all || Date.now() > deadline) return new Map(committed.map((c) => [c.partition, Number(c.offset)]));
    await sleep(500);
  }
}

/**
 * Checks the three views of `groupId` against the broker's own description of it and the
 * committed offsets; returns the offsets view for group-specific checks.
 */
async function expectToolsAgree(groupId: string, topic: string, group: ObservedGroup, protocol: string) {
  const committed = await caughtUp(shared.admin, groupId, topic);
  const ends = new Map(
    (await shared.admin.fetchTopicOffsets(topic)).map((e) => [e.partition, Number(e.high)] as const),
  );
  const owner = new Map(group.members.flatMap((m) => m.assigned.map((p) => [p, m] as const)));

  const rows = (await tools.describeOffsets(groupId)).filter((r) => r.topic === topic);
  expect(rows.map((r) => r.partition).sort((a, b) => a - b)).toEqual(Array.from({ length: PARTITIONS }, (_, p) => p));
  for (const row of rows) {
    const member = owner.get(`${topic}:${String(row.partition)}`);
    expect({ partition: row.partition, consumerId: row.consumerId, clientId: row.clientId }).toEqual({
      partition: row.partition,
      consumerId: member?.memberId,
      clientId: member?.clientId,
    });
    expect(row.logEndOffset).toBe(ends.get(row.partition));
    expect(row.currentOffset).toBe(committed.get(row.partition));
    expect(row.lag).toBe(ends.get(row.partition)! - committed.get(row.partition)!);
  }

  const members = await tools.describeMembers(groupId);
  // Kafka 3.9's tool leaves the topic out of this view: the group consumes one, so it is that one.
  const withTopic = (label: string) => (label.startsWith(':') ? `${topic}${label}` : label);
  expect(new Map(members.map((m) => [m.consumerId, m.assignment.map(withTopic).sort()]))).toEqual(
    new Map(group.members.map((m) => [m.memberId, [...m.assigned].sort()])),
  );
  const state = await tools.describeState(groupId);
  expect(state).toEqual({ assignmentStrategy: protocol, state: 'Stable', members: group.members.length });
  return rows;
}

describe("Kafka's own tools on load-aware groups", () => {
  const weightsOf = (topic: string) =>
    Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [`${topic}:${String(p)}`, p + 1]));

  it('a KafkaJS group: every partition once, with its owner, committed offset and lag; the protocol LoadAwareAssigner', async () => {
    const topic = await shared.createTopic(PARTITIONS);
    const groupId = uniqueName('group-tools-kafkajs');
    for (const instanceId of ['tools-a', 'tools-b']) {
      const instance = startInstance({
        brokers,
        groupId,
        topic,
        instanceId,
        members: 2,
        weights: weightsOf(topic),
        lifetimeMs: 120_000,
      });
      running.push(instance);
      await instance.ready;
    }
    await produce(topic);
    const group = await waitForStableGroup(shared.admin, groupId, 4, PARTITIONS, 90_000);
    const rows = await expectToolsAgree(groupId, topic, group, 'LoadAwareAssigner');
    expect(rows.every((r) => r.lag === 0)).toBe(true);
    // With the consumers gone, what is produced since is lag, owned by nobody.
    await Promise.all(running.splice(0).map((p) => p.stop()));
    await produce(topic);
    const idle = (await tools.describeOffsets(groupId)).filter((r) => r.topic === topic);
    expect(idle.map((r) => [r.partition, r.lag, r.consumerId]).sort()).toEqual(
      Array.from({ length: PARTITIONS }, (_, p) => [p, PER_PARTITION, '-']),
    );
  });

  it("a static KafkaJS group: each consumer id starts with the member's group instance id", async () => {
    const topic = await shared.createTopic(PARTITIONS);
    const groupId = uniqueName('group-tools-static');
    const pods: Array<FixtureProcess<StaticInstanceEvent>> = [];
    for (const instanceId of ['static-a', 'static-b']) {
      const spec: StaticInstanceSpec = {
        brokers,
        groupId,
        topic,
        instanceId,
        members: 1,
        sessionTimeout: 30_000,
        lifetimeMs: 120_000,
      };
      const pod = startFixtureProcess<StaticInstanceEvent>({ fixture: 'static-instance', spec, name: instanceId });
      running.push(pod);
      pods.push(pod);
      await pod.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready', 90_000);
    }
    await produce(topic);
    const group = await waitForStableGroup(shared.admin, groupId, 2, PARTITIONS, 90_000);
    const rows = await expectToolsAgree(groupId, topic, group, 'LoadAwareAssigner');
    const instanceIds = pods.flatMap((p) => p.last((e) => (e.event === 'groupInstanceIds' ? e.ids : undefined), []));
    expect(instanceIds).toHaveLength(2);
    for (const row of rows) expect(instanceIds.some((id) => row.consumerId.startsWith(`${id}-`))).toBe(true);
    const members = await tools.describeMembers(groupId);
    expect(members.map((m) => m.groupInstanceId).sort()).toEqual([...instanceIds].sort());
    for (const m of members) expect(m.consumerId.startsWith(`${m.groupInstanceId ?? '?'}-`)).toBe(true);
  });

  (platformaticSupported ? it : it.skip)(
    `a platformatic cooperative group: the protocol shows as cooperative-sticky${reason}`,
    async () => {
      const topic = await shared.createTopic(PARTITIONS);
      const groupId = uniqueName('group-tools-platformatic');
      for (const instanceId of ['plat-a', 'plat-b']) {
        const spec: Omit<PlatformaticInstanceSpec, 'brokers' | 'lifetimeMs'> = {
          groupId,
          topic,
          instanceId,
          members: 1,
          weights: weightsOf(topic),
          mode: 'cooperative',
        };
        const child = startFixtureProcess<PlatformaticInstanceEvent>({
          fixture: 'platformatic-instance',
          spec: { ...spec, brokers, lifetimeMs: 120_000 },
          name: instanceId,
        });
        running.push(child);
        await child.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready', 90_000);
      }
      await produce(topic);
      const group = await waitForStableGroup(shared.admin, groupId, 2, PARTITIONS, 90_000);
      const rows = await expectToolsAgree(groupId, topic, group, 'cooperative-sticky');
      expect(rows.every((r) => r.lag === 0)).toBe(true);
    },
  );
});
