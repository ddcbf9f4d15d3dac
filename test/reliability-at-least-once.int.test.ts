import { setTimeout as sleep } from 'node:timers/promises';
import { useDedicatedKafka } from './support/dedicated-kafka';
import { waitForStableGroup } from './support/group';
import { accountFor, waitForStableGroupThroughFailover } from './support/reliability-instances';
import { produceSequences } from './support/reliability-producer';
import { createReliabilityScenario, linesOf, type ReliabilityScenario } from './support/reliability-scenario';
import { eventually } from './support/trigger-instances';

/**
 * Nothing lost: three consumer processes (load-aware assignor + trigger) consume a steady stream
 * at least once while the trigger forces proactive rebalances (a hotspot that moves on every
 * weight call, short cooldowns), a member joins an instance and a fourth instance joins, and the
 * only broker restarts mid-consumption. Every acknowledged
 * message must be consumed at least once; redeliveries and producer retries are counted. The
 * group must recover from the restart on its own.
 */

const TIMEOUT_MS = 200_000;
const PARTITIONS = 6;
const RATE_PER_PARTITION = 50;
const PRODUCE_MS = 50_000;

let scenario: ReliabilityScenario | undefined;
let producer: ReturnType<typeof produceSequences> | undefined;
/** Dedicated: restarting the shared broker would break every other test file. */
const cluster = useDedicatedKafka({ nodes: 1 }, TIMEOUT_MS, async () => {
  await producer?.stop();
  await scenario?.close();
});

describe('at least once through forced rebalances and a broker restart', () => {
  it(
    'consumes every acknowledged message at least once and the group recovers from the restart',
    async () => {
      const kafkaCluster = cluster();
      const s = (scenario = await createReliabilityScenario({
        brokers: kafkaCluster.brokers,
        partitions: PARTITIONS,
        weights: { rotate: { partitions: PARTITIONS, hot: 30, cold: 10 } },
        spec: {
          reportConsumed: true,
          trigger: {
            checkIntervalMs: 500,
            options: { threshold: 1.1, minViolatedChecks: 2, cooldownMs: 3000, maxCooldownMs: 6000 },
          },
          forwardLogs: ['rebalance initiated', 'trigger check failed'],
        },
      }));
      for (const id of ['a', 'b', 'c']) await s.start(id);
      await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);

      const startedAt = Date.now();
      producer = produceSequences(s.kafka, s.topic, PARTITIONS, RATE_PER_PARTITION, PRODUCE_MS);
      const consumed = (): string[] => s.instances.flatMap((i) => i.consumed());

      // While messages flow, the group grows: a second member of instance a (another process
      // advertising the same instance id), then a fourth instance.
      await sleep(3000);
      await s.start('a2', { instances: [{ instanceId: 'instance-a', members: 1 }] });
      await waitForStableGroup(s.admin, s.groupId, 4, PARTITIONS);
      await s.start('d');
      await waitForStableGroup(s.admin, s.groupId, 5, PARTITIONS);
      const grownAt = Date.now();

      // Mid-consumption: the only broker goes down and comes back.
      await sleep(3000);
      const before = consumed().length;
      expect(before).toBeGreaterThan(0);
      const stoppedAt = Date.now();
      await kafkaCluster.stopNode(1);
      await sleep(3000);
      await kafkaCluster.startNode(1);
      const restartedAt = Date.now();
      const atRestart = consumed().length;
      await eventually(() => consumed().length > atRestart, 'consumption to resume after the restart', 60_000);
      const resumedAt = Date.now();
      await waitForStableGroupThroughFailover(s.admin, s.groupId, 5, PARTITIONS, 60_000);
      const stableAt = Date.now();

      const { sent, failedSends } = await producer.done;
      await eventually(
        () => accountFor(sent, consumed()).missing.length === 0,
        'every acknowledged message to be consumed',
        60_000,
      ).catch(() => undefined);
      const report = accountFor(sent, consumed());
      const fires = linesOf(s.instances, 'rebalance initiated');
      const crashes = s.instances.flatMap((i) => i.events.flatMap((e) => (e.event === 'crash' ? [e] : [])));
      const generations = s.instances.flatMap((i) =>
        i.events.flatMap((e) => (e.event === 'generation' ? [e.generationId] : [])),
      );
      process.stdout.write(
        `at-least-once: ${String(report.produced)} acknowledged, ${String(report.consumed)} consumed, ` +
          `${String(report.missing.length)} missing, ${String(report.redelivered)} redelivered, ` +
          `${String(report.producerDuplicates)} producer duplicates, ${String(failedSends)} failed sends; ` +
          `${String(fires.length)} proactive rebalances (${fires.map((f) => `+${String(f.at - startedAt)}`).join(', ')} ms); ` +
          `generations ${String(Math.min(...generations))}..${String(Math.max(...generations))}; ` +
          `${String(crashes.length)} consumer crashes (restarted: ${String(crashes.filter((c) => c.restart).length)}); ` +
          `broker down ${String(restartedAt - stoppedAt)} ms, consumption resumed ${String(resumedAt - restartedAt)} ms ` +
          `and group Stable ${String(stableAt - restartedAt)} ms after the restart; a member and an instance had joined ` +
          `by +${String(grownAt - startedAt)} ms\n`,
      );
      expect(report.missing).toEqual([]);
      expect(report.produced).toBeGreaterThan(PARTITIONS * RATE_PER_PARTITION * (PRODUCE_MS / 1000) * 0.9);
      expect(fires.length).toBeGreaterThanOrEqual(3);
      // Both the joins and the restart happened while messages were being produced.
      expect(stoppedAt - startedAt).toBeLessThan(PRODUCE_MS);
      // Every member is still in the group, and every instance ends up with partitions (the two
      // members of instance a share its share: one of them may hold nothing, by weight).
      const group = await waitForStableGroupThroughFailover(s.admin, s.groupId, 5, PARTITIONS, 30_000);
      const holding = new Set(group.members.filter((m) => m.assigned.length > 0).map((m) => m.instanceId));
      expect([...holding].sort()).toEqual(['instance-a', 'instance-b', 'instance-c', 'instance-d']);
    },
    TIMEOUT_MS,
  );
});
