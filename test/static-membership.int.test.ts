import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { startFixtureProcess, type FixtureProcess } from './support/fixture-process';
import { waitForStableGroup } from './support/group';
import { useSharedBrokerAdmin } from './support/shared-broker';
import { eventually } from './support/wait';
import type { StaticInstanceEvent, StaticInstanceSpec } from './fixtures/static-instance';

/**
 * Static membership (KIP-345) through the assigner's coordinator view, on the real broker: a
 * restarted pod takes its place back with no rebalance, a pod that does not return is replaced
 * by one rebalance one session timeout later, a second process with the same identity fences the
 * first (which stops once, without a loop), and a scale-down leaves at once.
 *
 * "Rebalance" here is a round of GROUP_JOIN on the members that stayed: KafkaJS emits GROUP_JOIN
 * only after a JoinGroup/SyncGroup, and a member that did not restart joins only when the group
 * rebalances.
 */

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: 'static-membership-int', brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic } = useSharedBrokerAdmin(kafka, 'static', { deleteTopicsAfterAll: true });

const PARTITIONS = 6;
const TIMEOUT_MS = 150_000;

interface Pod {
  readonly id: string;
  readonly process: FixtureProcess<StaticInstanceEvent>;
  joins(): Array<Extract<StaticInstanceEvent, { event: 'joined' }>>;
  /** Offsets consumed, per partition. */
  consumed(): Map<number, number[]>;
}

const pods: Pod[] = [];
afterEach(async () => {
  await Promise.allSettled(pods.splice(0).map((p) => p.process.stop()));
});

function startPod(spec: Omit<StaticInstanceSpec, 'brokers' | 'members' | 'lifetimeMs'>): Pod {
  const process = startFixtureProcess<StaticInstanceEvent>({
    fixture: 'static-instance',
    spec: { ...spec, brokers, members: 1, lifetimeMs: TIMEOUT_MS },
    name: `static pod ${spec.instanceId}`,
  });
  const pod: Pod = {
    id: spec.instanceId,
    process,
    joins: () => process.events.flatMap((e) => (e.event === 'joined' ? [e] : [])),
    consumed: () => {
      const out = new Map<number, number[]>();
      for (const e of process.events) {
        if (e.event !== 'consumed') continue;
        for (const [partition, offset] of e.records) out.set(partition, [...(out.get(partition) ?? []), offset]);
      }
      return out;
    },
  };
  pods.push(pod);
  return pod;
}

/** Produces `perPartition` messages to every partition, a batch every 50 ms; bounded by its count. */
async function produce(topic: string, perPartition: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < perPartition; i++) {
      await producer.send({
        topic,
        messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: String(i) })),
      });
      await sleep(50);
    }
  } finally {
    await producer.disconnect();
  }
}

/** Partitions each pod holds from its last join. */
const heldBy = (pod: Pod): string[] => pod.joins().at(-1)?.assignment ?? [];

/** Three static pods of a fresh group on a fresh topic, once each holds two partitions. */
async function threeSettledPods(
  prefix: string,
  sessionTimeout: number,
): Promise<{ groupId: string; topic: string; pods: [Pod, Pod, Pod] }> {
  const topic = await createTopic(PARTITIONS);
  const groupId = uniqueName(`static-${prefix}`);
  const pods = ['a', 'b', 'c'].map((x) =>
    startPod({ groupId, topic, sessionTimeout, instanceId: `${prefix}-${x}` }),
  ) as [Pod, Pod, Pod];
  await waitForStableGroup(admin, groupId, 3, PARTITIONS);
  await eventually(() => pods.every((p) => heldBy(p).length === 2), 'two partitions per pod', 30_000);
  return { groupId, topic, pods };
}

/** Every offset 0..perPartition-1 of every partition consumed at least once, over all `consumers`. */
function everyMessageConsumed(consumers: ReadonlyArray<Pod>, perPartition: number): boolean {
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const seen = new Set(consumers.flatMap((p) => p.consumed().get(partition) ?? []));
    for (let offset = 0; offset < perPartition; offset++) if (!seen.has(offset)) return false;
  }
  return true;
}

describe('static membership on a real broker', () => {
  it(
    'a restarted pod takes its place back: no rebalance, the same partitions, nothing lost',
    async () => {
      const topic = await createTopic(PARTITIONS);
      const groupId = uniqueName('static-restart');
      const base = { groupId, topic, sessionTimeout: 20_000 };
      const [a, b, c] = ['pod-a', 'pod-b', 'pod-c'].map((instanceId) => startPod({ ...base, instanceId })) as [
        Pod,
        Pod,
        Pod,
      ];
      await Promise.all([a, b, c].map((p) => p.process.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready')));
      await waitForStableGroup(admin, groupId, 3, PARTITIONS);
      await eventually(() => [a, b, c].every((p) => heldBy(p).length === 2), 'two partitions per pod', 30_000);
      const joinsBefore = [a.joins().length, c.joins().length];
      const heldBefore = heldBy(b);
      const producing = produce(topic, 200);

      await sleep(2000);
      await b.process.stop(); // a deploy: disconnect, no LeaveGroup
      await sleep(3000);
      const b2 = startPod({ ...base, instanceId: 'pod-b' });
      await b2.process.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready');
      const readyAt = Date.now();
      await b2.process.waitFor((e) => e.some((x) => x.event === 'consumed' && x.records.length > 0), 'consuming');
      const resumedMs = Date.now() - readyAt;
      await producing;
      await eventually(() => everyMessageConsumed([a, b, c, b2], 200), 'every message consumed', 30_000);
      await sleep(3000); // a rebalance the return caused would show by now

      process.stdout.write(
        `static restart: joins of the pods that stayed ${JSON.stringify([a.joins().length, c.joins().length])} ` +
          `(before ${JSON.stringify(joinsBefore)}), restarted pod resumed ${String(resumedMs)} ms after ready, ` +
          `held ${JSON.stringify(heldBefore)} -> ${JSON.stringify(heldBy(b2))}\n`,
      );
      expect([a.joins().length, c.joins().length]).toEqual(joinsBefore);
      expect(b2.joins()).toHaveLength(1);
      expect(heldBy(b2)).toEqual(heldBefore);
      expect(b2.joins()[0]!.memberId.startsWith('pod-b.0-')).toBe(true);
      expect(resumedMs).toBeLessThan(5000);
    },
    TIMEOUT_MS,
  );

  it(
    'a pod that does not return is replaced by one rebalance, one session timeout after it left',
    async () => {
      const sessionTimeout = 10_000;
      const {
        pods: [a, b, c],
      } = await threeSettledPods('gone', sessionTimeout);
      const joinsBefore = [a.joins().length, b.joins().length];
      await c.process.kill(); // a pod that dies for good: no LeaveGroup, no commit
      const goneAt = Date.now();
      await eventually(
        () => a.joins().length > joinsBefore[0]! && b.joins().length > joinsBefore[1]!,
        'the rebalance after the session timeout',
        sessionTimeout * 3,
      );
      const rebalancedAfterMs = Math.min(a.joins().at(-1)!.at, b.joins().at(-1)!.at) - goneAt;
      await sleep(5000); // no second rebalance follows
      process.stdout.write(
        `static pod gone: rebalanced ${String(rebalancedAfterMs)} ms after the kill (session timeout ${String(sessionTimeout)}), ` +
          `joins ${JSON.stringify([a.joins().length - joinsBefore[0]!, b.joins().length - joinsBefore[1]!])}\n`,
      );
      expect(rebalancedAfterMs).toBeGreaterThanOrEqual(sessionTimeout - 1500);
      expect([a.joins().length - joinsBefore[0]!, b.joins().length - joinsBefore[1]!]).toEqual([1, 1]);
      expect([...heldBy(a), ...heldBy(b)].sort()).toHaveLength(PARTITIONS);
      expect(heldBy(a)).toHaveLength(3);
    },
    TIMEOUT_MS,
  );

  it(
    'two processes with one identity: the first is fenced once and stops, the second keeps the place',
    async () => {
      const topic = await createTopic(PARTITIONS);
      const groupId = uniqueName('static-fenced');
      const base = { groupId, topic, sessionTimeout: 20_000 };
      const first = startPod({ ...base, instanceId: 'twin' });
      const other = startPod({ ...base, instanceId: 'other' });
      await waitForStableGroup(admin, groupId, 2, PARTITIONS);
      await eventually(() => heldBy(first).length === 3 && heldBy(other).length === 3, 'three partitions each', 30_000);
      const otherJoins = other.joins().length;
      const producing = produce(topic, 100);

      const second = startPod({ ...base, instanceId: 'twin' });
      await first.process.waitFor((e) => e.some((x) => x.event === 'crash'), 'the fenced crash', 30_000);
      await producing;
      await eventually(() => everyMessageConsumed([first, second, other], 100), 'every message consumed', 30_000);
      await sleep(8000); // a restart loop would show as more joins and more crashes by now

      const errors = first.process.events.filter((e) => e.event === 'log' && e.level >= 50);
      const crashes = first.process.events.flatMap((e) => (e.event === 'crash' ? [e] : []));
      process.stdout.write(
        `static fenced: ${String(errors.length)} ERROR on the fenced process (${JSON.stringify(errors)}), ` +
          `crashes ${JSON.stringify(crashes)}, joins of the second ${String(second.joins().length)}, ` +
          `of the other pod ${String(other.joins().length - otherJoins)} new\n`,
      );
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'LOAD_AWARE_STATIC_MEMBER_FENCED' });
      expect((errors[0] as { msg: string }).msg).toContain('twin.0');
      expect(crashes).toHaveLength(1);
      expect(crashes[0]!.restart).toBe(false);
      expect(second.joins()).toHaveLength(1);
      expect(heldBy(second)).toHaveLength(3);
      expect(other.joins().length).toBe(otherJoins);
    },
    TIMEOUT_MS,
  );

  it(
    'a scale-down with leaveOnDisconnect() leaves at once instead of after the session timeout',
    async () => {
      const {
        groupId,
        pods: [a, b, c],
      } = await threeSettledPods('down', 45_000);
      const joinsBefore = [a.joins().length, b.joins().length];
      const leftAt = Date.now();
      c.process.send('leave');
      await eventually(
        () => a.joins().length > joinsBefore[0]! && b.joins().length > joinsBefore[1]!,
        'the rebalance after the LeaveGroup',
        15_000,
      );
      const rebalancedAfterMs = Math.max(a.joins().at(-1)!.at, b.joins().at(-1)!.at) - leftAt;
      process.stdout.write(`static scale-down: rebalanced ${String(rebalancedAfterMs)} ms after leave\n`);
      expect(rebalancedAfterMs).toBeLessThan(10_000);
      await waitForStableGroup(admin, groupId, 2, PARTITIONS);
      expect(heldBy(a).length + heldBy(b).length).toBe(PARTITIONS);
    },
    TIMEOUT_MS,
  );
});
