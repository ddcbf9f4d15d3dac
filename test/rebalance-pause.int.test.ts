import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner, type LoadAwarePartitionAssigner } from '@load-aware/assignor';
import { assignerInternals, measureRebalancePauses } from '@load-aware/assignor/internal';
import { recordingLogger, type RecordingLogger } from '@load-aware/test-support';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { useSharedBrokerAdmin } from './support/shared-broker';
import { eventually } from './support/wait';

/**
 * What each rebalance costs each consumer, measured where it happens: every member exports
 * `load_aware_rebalance_pause_seconds{group,cause}` with the cause its leader sent (join, fire,
 * leave), reports its pause with its next JoinGroup, and the leader's INFO line adds them up into
 * the group's paused member-seconds.
 */

jest.setTimeout(150_000);

const brokers = kafkaBrokersFromEnv();
const admin = useSharedBrokerAdmin(new Kafka({ brokers, logLevel: logLevel.NOTHING }), 'pause', {
  deleteTopicsAfterAll: true,
});
const PARTITIONS = 12;

interface Member {
  readonly name: string;
  readonly consumer: Consumer;
  readonly assigner: LoadAwarePartitionAssigner;
  readonly registry: Registry;
  readonly logger: RecordingLogger;
}

/** A histogram value's series name (`_count`, `_sum`, `_bucket`); prom-client sets it but does not type it. */
const nameOf = (value: object): unknown => (value as { metricName?: unknown }).metricName;

/** Count of observed pauses per cause in `registry`'s histogram. */
async function pauseCounts(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('load_aware_rebalance_pause_seconds');
  const out: Record<string, number> = {};
  for (const v of (await metric?.get())?.values ?? []) {
    if (nameOf(v) === 'load_aware_rebalance_pause_seconds_count') out[String(v.labels['cause'])] = v.value;
  }
  return out;
}

describe('rebalance pauses on a real broker', () => {
  const members: Member[] = [];
  // Before the topics are deleted: a consumer that outlives its topic crashes and restarts.
  admin.closeBeforeCleanup(() => Promise.allSettled(members.map((m) => m.consumer.disconnect())));

  it('every member measures each rebalance with its cause, and the leader adds them up', async () => {
    const topic = await admin.createTopic(PARTITIONS);
    const groupId = uniqueName('pause');
    const producer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const state = { producing: true };
    const until = Date.now() + 120_000;
    const loop = (async () => {
      for (let i = 0; state.producing && Date.now() < until; i++) {
        await producer.send({
          topic,
          messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: String(i) })),
        });
        await sleep(40);
      }
    })();
    const start = async (name: string): Promise<Member> => {
      const registry = new Registry();
      const logger = recordingLogger();
      const assigner = LoadAwareAssigner({ instanceId: name, registry, logger });
      const consumer = new Kafka({ clientId: name, brokers, logLevel: logLevel.NOTHING }).consumer({
        groupId,
        partitionAssigners: [assigner],
        sessionTimeout: 10_000,
        heartbeatInterval: 500,
        maxWaitTimeInMs: 200,
      });
      measureRebalancePauses(consumer, assignerInternals(assigner));
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: false });
      await consumer.run({ eachMessage: () => sleep(1) });
      const member = { name, consumer, assigner, registry, logger };
      members.push(member);
      return member;
    };
    try {
      const [a, b, c] = [await start('pod-a'), await start('pod-b'), await start('pod-c')];
      await waitForStableGroup(admin.admin, groupId, 3, PARTITIONS);
      await sleep(2000);
      const everyoneSaw = async (cause: string, n: number): Promise<boolean> => {
        const counts = await Promise.all([a, b, c].map((m) => pauseCounts(m.registry)));
        return counts.every((x) => (x[cause] ?? 0) >= n);
      };
      const waitFor = async (cause: string): Promise<void> => {
        const deadline = Date.now() + 30_000;
        while (!(await everyoneSaw(cause, 1))) {
          if (Date.now() > deadline) throw new Error(`no ${cause} pause on every member`);
          await sleep(200);
        }
      };

      const d = await start('pod-d');
      await waitFor('join');
      await sleep(2000);
      assignerInternals(a.assigner).bumpEpoch(groupId);
      assignerInternals(a.assigner).requestRejoin(groupId);
      await waitFor('fire');
      await sleep(2000);
      await d.consumer.disconnect();
      members.splice(members.indexOf(d), 1);
      await waitFor('leave');
      await sleep(2000);
      // One more rebalance: its leader reads the leave's pauses from the members' userData.
      assignerInternals(b.assigner).bumpEpoch(groupId);
      assignerInternals(b.assigner).requestRejoin(groupId);
      const leaderLines = (): string[] =>
        [a, b, c].flatMap((m) =>
          m.logger.messages('info').filter((l) => l.startsWith('rebalance cause: fire; the last one')),
        );
      await eventually(() => leaderLines().some((l) => l.includes(', leave)')), 'the leader summing the leave', 30_000);

      const histograms = await Promise.all([a, b, c].map(async (m) => [m.name, await pauseCounts(m.registry)]));
      const sums = await Promise.all(
        [a, b, c].map(async (m) => {
          const values = (await m.registry.getSingleMetric('load_aware_rebalance_pause_seconds')!.get()).values;
          return values.filter((v) => nameOf(v) === 'load_aware_rebalance_pause_seconds_sum').map((v) => v.value);
        }),
      );
      const summary = leaderLines().find((l) => l.includes(', leave)'))!;
      process.stdout.write(
        `rebalance pauses: ${JSON.stringify(histograms)}; sums ${JSON.stringify(sums)}; leader: ${summary}\n`,
      );
      expect(summary).toMatch(/paused \d+\.\d\d member-seconds over 3 members/);
      for (const s of sums.flat()) expect(s).toBeLessThan(30);
    } finally {
      state.producing = false;
      await loop;
      await producer.disconnect();
    }
  });
});
