import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokersFromEnv } from './support';
import { describeGroup, waitForStableGroup } from './support/group';
import { eventually, type TriggerInstance } from './support/trigger-instances';
import { createTriggerScenario, linesStarting, type TriggerScenario } from './support/trigger-scenario';

/**
 * The trigger and static members: while a static member's process is away (its place kept until
 * its session times out), a fire is held, because the rebalance would wait for it at the join
 * barrier and stop every member. Once it is back and consuming, the same imbalance fires.
 */

jest.setTimeout(150_000);

const PARTITIONS = 6;
const brokers = kafkaBrokersFromEnv();

/** Produces to every partition every 50 ms until `stop()`; bounded by `maxMs` whatever happens. */
function produceInBackground(topic: string, maxMs: number): { stop(): Promise<void> } {
  const producer = new Kafka({ clientId: 'static-trigger-producer', brokers, logLevel: logLevel.NOTHING }).producer();
  const state = { stopped: false };
  const until = Date.now() + maxMs;
  const loop = (async () => {
    await producer.connect();
    for (let i = 0; !state.stopped && Date.now() < until; i++) {
      await producer.send({
        topic,
        messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: String(i) })),
      });
      await sleep(50);
    }
    await producer.disconnect();
  })();
  return {
    async stop() {
      state.stopped = true;
      await loop;
    },
  };
}

const fires = (instances: ReadonlyArray<TriggerInstance>, since: number): string[] =>
  instances.flatMap((i) => linesStarting(i, 'rebalance initiated', since));
const holds = (instances: ReadonlyArray<TriggerInstance>, since: number): string[] =>
  instances.flatMap((i) => linesStarting(i, 'rebalance held while a static member is away', since));

describe('the trigger with static members', () => {
  let scenario: TriggerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  it('holds a fire while a static member is away, and fires once it is back', async () => {
    scenario = await createTriggerScenario(
      PARTITIONS,
      { weights: {} },
      {
        checkIntervalMs: 1000,
        sessionTimeoutMs: 45_000,
        trigger: { threshold: 1.1, minViolatedChecks: 2, cooldownMs: 3000, maxCooldownMs: 12_000 },
        staticMembership: true,
      },
    );
    const { admin, topic, groupId } = scenario;
    const even = Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [`${topic}:${String(p)}`, 20]));
    await scenario.setWeights({ weights: even });
    await scenario.start(['a', 'b', 'c']);
    const formed = await waitForStableGroup(admin, groupId, 3, PARTITIONS);
    const producing = produceInBackground(topic, 120_000);
    try {
      const [a, b, c] = scenario.instances as [TriggerInstance, TriggerInstance, TriggerInstance];
      await sleep(3000);
      const generation = a.generation();

      // c's process goes away as in a deploy; then the load shifts onto a's partitions.
      await c.stop();
      const awayAt = Date.now();
      const ofA = formed.members.find((m) => m.instanceId === 'instance-a')!.assigned;
      await scenario.setWeights({ weights: { ...even, ...Object.fromEntries(ofA.map((p) => [p, 100])) } });
      await eventually(() => holds([a, b], awayAt).length > 0, 'a fire held while c is away', 20_000);
      await sleep(4000); // more checks while c is away: every one of them must hold
      const heldFires = fires([a, b], awayAt);
      const generationWhileAway = a.generation();
      const heldCount = holds([a, b], awayAt).length;

      // c comes back under the same identity: it takes its place back quietly, then the fire goes.
      const backAt = Date.now();
      await scenario.start(['c']);
      const c2 = scenario.instances.at(-1)!;
      await eventually(() => fires([a, b, c2], backAt).length > 0, 'the fire once c is back', 30_000);
      await waitForStableGroup(admin, groupId, 3, PARTITIONS);
      const after = await describeGroup(admin, groupId);
      process.stdout.write(
        `static trigger: ${String(heldCount)} fires held while c was away (${String(heldFires.length)} fired), ` +
          `generation ${String(generation)} -> ${String(generationWhileAway)} while away, ` +
          `fired ${String(Date.now() - backAt)} ms after c restarted; members after ${String(after.members.length)}\n`,
      );
      expect(heldFires).toEqual([]);
      expect(generationWhileAway).toBe(generation);
      expect(heldCount).toBeGreaterThanOrEqual(2);
      expect(after.members).toHaveLength(3);
    } finally {
      await producing.stop();
    }
  });
});
