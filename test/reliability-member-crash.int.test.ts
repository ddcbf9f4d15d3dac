import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokersFromEnv } from './support';
import { describeGroup, waitForStableGroup } from './support/group';
import type { ReliabilityInstance } from './support/reliability-instances';
import { useReliabilityScenarios } from './support/reliability-scenario';
import { eventually } from './support/trigger-instances';

/**
 * A consumer crashing mid-rebalance: the group leader is held inside `assign()` (its weight source
 * answers after 3 s, within the 10 s budget) while a new member joins, and a process is SIGKILLed
 * at that very moment, with no LeaveGroup. First a follower, then the leader itself, which is also
 * the trigger coordinator. Each time the group must converge to Stable with the survivors holding
 * every partition, another member must take over the leader's and the coordinator's roles, and
 * consumption must go on.
 */

const PARTITIONS = 6;
const SLOW_WEIGHTS_MS = 3000;

jest.setTimeout(150_000);

describe('a consumer crashing mid-rebalance', () => {
  const createScenario = useReliabilityScenarios();

  it('converges after a follower and then the leader (also the trigger coordinator) are killed inside a rebalance', async () => {
    const s = await createScenario({
      brokers: kafkaBrokersFromEnv(),
      partitions: PARTITIONS,
      weights: { weights: {} },
      spec: {
        weightsTimeoutMs: 10_000,
        reportConsumed: true,
        // Checks run, but a threshold no group reaches keeps the trigger from rebalancing by itself.
        trigger: { checkIntervalMs: 500, options: { threshold: 1000 } },
      },
    });
    const byId = new Map<string, ReliabilityInstance>();
    for (const id of ['a', 'b', 'c']) byId.set(id, await s.start(id));
    await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const a = byId.get('a')!;
    await eventually(() => a.coordinator() === 1, 'a to be the trigger coordinator', 30_000);
    a.send(`slow ${String(SLOW_WEIGHTS_MS)}`);

    /** Starts `joiner`, kills `victim` as soon as the leader asks for weights, returns the convergence time. */
    const crashDuringRebalance = async (joiner: string, victim: string, survivors: string[]): Promise<string> => {
      const leader = s.instances.find((i) => i.events.some((e) => e.event === 'join' && e.isLeader) && !i.exited())!;
      const asked = leader.events.filter((e) => e.event === 'weights').length;
      byId.set(joiner, s.launch(joiner));
      await leader.waitFor((e) => e.filter((x) => x.event === 'weights').length > asked, 'the leader inside assign()');
      const killedAt = Date.now();
      await byId.get(victim)!.kill();
      const state = (await describeGroup(s.admin, s.groupId)).state;
      expect(state).not.toBe('Stable');
      const group = await waitForStableGroup(s.admin, s.groupId, survivors.length, PARTITIONS, 90_000);
      const convergedMs = Date.now() - killedAt;
      const holders = group.members.filter((m) => m.assigned.length > 0).map((m) => m.clientId);
      expect(group.members.map((m) => m.clientId).sort()).toEqual(survivors.sort());
      expect(holders.length).toBeGreaterThan(0);
      return `${victim} killed in state ${state}: Stable with ${survivors.join(',')} after ${String(convergedMs)} ms`;
    };

    const follower = await crashDuringRebalance('d', 'c', ['a', 'b', 'd']);
    const leader = await crashDuringRebalance('e', 'a', ['b', 'd', 'e']);

    // The coordinator role moved to the smallest surviving member id: b's.
    const live = ['b', 'd', 'e'].map((id) => byId.get(id)!);
    await eventually(() => byId.get('b')!.coordinator() === 1, 'b to become the trigger coordinator', 30_000);
    await eventually(() => live.reduce((n, i) => n + i.coordinator(), 0) === 1, 'exactly one coordinator', 10_000);
    const newLeaders = live.filter((i) => i.events.some((e) => e.event === 'join' && e.isLeader));
    expect(newLeaders.length).toBeGreaterThan(0);

    // And the survivors consume what is produced now, every partition included.
    const producer = new Kafka({ brokers: kafkaBrokersFromEnv(), logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const values = Array.from({ length: PARTITIONS }, (_, partition) => ({
      partition,
      value: `after-${String(partition)}`,
    }));
    await producer.send({ topic: s.topic, acks: -1, messages: values });
    await producer.disconnect();
    const seen = (): Set<string> => new Set(live.flatMap((i) => i.consumed()).map((v) => v.split('@')[0]!));
    await eventually(
      () => values.every((v) => seen().has(`${String(v.partition)}:${v.value}`)),
      'the survivors to consume every partition',
      30_000,
    );
    process.stdout.write(`member crash mid-rebalance: ${follower}; ${leader}\n`);
  });
});
