/**
 * Issue 13 on a real broker: two groups in the same three instance processes, balanced together
 * with `crossGroup` (the demo's scenario, test/support/cross-group-scenario.ts, with a 60 s steady
 * window), and a set whose siblings are missing, mid-rebalance or not load-aware.
 */
import { Kafka, logLevel, PartitionAssigners, type Consumer, type PartitionAssigner } from 'kafkajs';
import { ASSIGNER_NAME, LoadAwareAssigner } from '@load-aware/assignor';
import { recordingLogger } from '@load-aware/test-support';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { describeGroup, waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { formatCrossGroupComparison, runCrossGroupComparison } from './support/cross-group-scenario';
import { waitUntil } from './support/wait';

// Two modes with a 60 s steady window, then the sibling checks: about three minutes in all.
jest.setTimeout(200_000);

const brokers = kafkaBrokersFromEnv();

describe('cross-group balancing on a real broker', () => {
  it('balances the combined load of two groups within 1.1 of ideal, below each group alone, with no proactive rebalance once converged', async () => {
    const log: string[] = [];
    const result = await runCrossGroupComparison({
      brokers,
      // Round-robin is the demo's baseline; the target here is against balancing each group alone.
      modes: ['off', 'on'],
      steadyMs: 60_000,
      quietMs: 15_000,
      convergeTimeoutMs: 90_000,
      log: (line) => log.push(line),
    });
    const [off, on] = result.modes;
    // The table and the progress lines, so a failure shows what was measured.
    console.log(`${log.join('\n')}\n\n${formatCrossGroupComparison(result)}`);
    expect(on!.busiestRatio).toBeLessThanOrEqual(1.1);
    expect(on!.busiestRatio).toBeLessThan(off!.busiestRatio);
    expect(on!.steady?.triggerFires).toBe(0);
    expect(on!.steady?.newGenerations).toBe(0);
    expect(on!.steady?.unchanged).toBe(true);
  });

  describe('a sibling that cannot be read as Stable', () => {
    const kafka = new Kafka({ clientId: 'cross-group-siblings', brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    const consumers: Consumer[] = [];
    // Every stalled assignment's release and its consumer's run(); lists, so a retried test's
    // are released and awaited too.
    const releases: Array<() => void> = [];
    const runs: Array<Promise<void>> = [];
    const topics = { own: uniqueName('xg-own'), sibling: uniqueName('xg-sibling') };

    beforeAll(async () => {
      await admin.connect();
      await createTopicsWithLeaders(admin, [
        { topic: topics.own, numPartitions: 6, replicationFactor: 1 },
        { topic: topics.sibling, numPartitions: 1, replicationFactor: 1 },
      ]);
    });

    afterAll(async () => {
      // Released first: the sibling's join completes (run() resolves) and every consumer can leave.
      for (const release of releases) release();
      await Promise.allSettled(runs);
      await Promise.allSettled(consumers.map((c) => c.disconnect()));
      await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
      await admin.disconnect();
    });

    /** A consumer of `groupId` on `topic` in this process, disconnected after the tests. */
    const join = (groupId: string, topic: string, assigners: PartitionAssigner[]): Promise<Consumer> =>
      startGroupConsumer(new Kafka({ clientId: groupId, brokers, logLevel: logLevel.NOTHING }), {
        groupId,
        topic,
        partitionAssigners: assigners,
        created: (c) => consumers.push(c),
      });

    it('every member still gets a valid assignment when siblings are missing, mid-rebalance or not load-aware', async () => {
      const missing = uniqueName('xg-missing');
      const foreign = uniqueName('xg-foreign');
      const rebalancing = uniqueName('xg-rebalancing');
      // Not load-aware: its member carries round-robin metadata, no load-aware userData to read.
      await join(foreign, topics.sibling, [PartitionAssigners.roundRobin]);
      await waitForStableGroup(admin, foreign, 1, 1);

      // Mid-rebalance: its leader's assignment waits until the test ends, so the group stays in
      // CompletingRebalance (every member joined, no assignment synced) for up to its 45 s session.
      const gate = new Promise<void>((resolve) => releases.push(resolve));
      const stalled: PartitionAssigner = (config) => {
        const roundRobin = PartitionAssigners.roundRobin(config);
        return { ...roundRobin, assign: (group) => gate.then(() => roundRobin.assign(group)) };
      };
      const sibling = new Kafka({ clientId: rebalancing, brokers, logLevel: logLevel.NOTHING }).consumer({
        groupId: rebalancing,
        partitionAssigners: [stalled],
        sessionTimeout: 45_000,
        rebalanceTimeout: 45_000,
      });
      consumers.push(sibling);
      await sibling.connect();
      await sibling.subscribe({ topic: topics.sibling });
      // Not awaited: run() resolves once the join completes, which the stalled assignment holds back.
      runs.push(sibling.run({ eachMessage: () => Promise.resolve() }));
      await waitUntil(
        async () => ((await describeGroup(admin, rebalancing)).state === 'CompletingRebalance' ? true : undefined),
        'the sibling group rebalancing',
        20_000,
        200,
      );

      const groupId = uniqueName('xg-checked');
      const logger = recordingLogger();
      const crossGroup = { groups: [groupId, missing, rebalancing, foreign] };
      await Promise.all(
        ['instance-a', 'instance-b', 'instance-c'].map((instanceId) =>
          join(groupId, topics.own, [
            // Uniform weights: this checks that assignments survive unreadable siblings, not balance.
            LoadAwareAssigner({ instanceId, logger, crossGroup }),
            PartitionAssigners.roundRobin,
          ]),
        ),
      );
      const group = await waitForStableGroup(admin, groupId, 3, 6, 30_000);
      // The leader read its sibling while it was still rebalancing.
      expect((await describeGroup(admin, rebalancing)).state).toBe('CompletingRebalance');

      const held = group.members.flatMap((m) => m.assigned).sort();
      const all = Array.from({ length: 6 }, (_, p) => `${topics.own}:${String(p)}`).sort();
      expect(held).toEqual(all);
      expect(group.protocol).toBe(ASSIGNER_NAME);
      // The rebalancing sibling was left out, and said so; the missing one (Dead) and the
      // round-robin one read as carrying nothing on these instances, without a word.
      const warnings = logger.messages('warn');
      expect(warnings.some((w) => w.includes(`group ${rebalancing}`) && w.includes('balancing without its load'))).toBe(
        true,
      );
      expect(warnings.filter((w) => w.includes(missing) || w.includes(foreign))).toEqual([]);
      expect(logger.messages('error')).toEqual([]);
    });
  });
});
