import { setTimeout as sleep } from 'node:timers/promises';
import { kafkaBrokersFromEnv } from './support';
import { waitForStableGroup } from './support/group';
import { linesOf, useReliabilityScenarios } from './support/reliability-scenario';
import { eventually } from './support/trigger-instances';

/**
 * No storm under noisy weights, on a real broker: every weight call (the leader's and the
 * trigger's alike) multiplies each partition's weight by a random factor in [0.5, 1.5], so each
 * check sees a different optimum. Over a fixed window the trigger may fire only along its cooldown
 * schedule, and every fire must be exactly one group rebalance (nothing else rebalances the group).
 * trigger-storm.int.test.ts covers the adversarial (rotating hotspot) case the same way.
 */

const PARTITIONS = 12;
const COOLDOWN_MS = 2000;
const MAX_COOLDOWN_MS = 6000;
const WINDOW_MS = 24_000;

jest.setTimeout(120_000);

describe('the rebalance trigger under noisy weights', () => {
  const createScenario = useReliabilityScenarios();

  it('fires no more often than the cooldown allows, one rebalance per fire', async () => {
    const s = await createScenario({
      brokers: kafkaBrokersFromEnv(),
      partitions: PARTITIONS,
      weights: { weights: {} },
      spec: {
        trigger: {
          checkIntervalMs: 500,
          options: { threshold: 1.1, minViolatedChecks: 2, cooldownMs: COOLDOWN_MS, maxCooldownMs: MAX_COOLDOWN_MS },
        },
        forwardLogs: ['rebalance initiated', 'the last triggered rebalance', 'group balanced again'],
      },
    });
    // Noise only once the group is up, so its formation is not mixed with triggered rebalances.
    for (const id of ['a', 'b', 'c']) await s.start(id);
    await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const [a] = s.instances;
    const generation = (): number =>
      Math.max(...a!.events.flatMap((e) => (e.event === 'generation' ? [e.generationId] : [-1])));
    await eventually(() => generation() >= 0, 'a heartbeat', 10_000);
    const before = generation();
    const joinsBefore = s.instances.map((i) => i.events.filter((e) => e.event === 'join').length);
    // Equal base weights: any placement is optimal until the noise says otherwise, check by check.
    const base = Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [`${s.topic}:${String(p)}`, 100]));
    const startedAt = Date.now();
    await s.setWeights({ noise: { base, amplitude: 0.5 } });
    await sleep(WINDOW_MS);
    await s.setWeights({ weights: base });
    const endedAt = Date.now();

    const fires = linesOf(s.instances, 'rebalance initiated').filter((f) => f.at >= startedAt && f.at <= endedAt);
    const gaps = fires.slice(1).map((f, i) => f.at - fires[i]!.at);
    // Fires in the window and, once they settle, one new generation per fire and nothing else.
    // A fire can still come in the settle time (its streak began in the noise), and its rebalance
    // can take longer than that time: wait until every fire so far has had its generation and its
    // joins, so the equalities below compare finished rebalances, then let any extra one show.
    await sleep(3000);
    const firesSoFar = (): number =>
      linesOf(s.instances, 'rebalance initiated').filter((f) => f.at >= startedAt).length;
    const joinsOf = (): number[] =>
      s.instances.map((i, k) => i.events.filter((e) => e.event === 'join').length - joinsBefore[k]!);
    await eventually(
      () => generation() - before >= firesSoFar() && joinsOf().every((j) => j >= firesSoFar()),
      'a generation and a join of every instance per fire',
      30_000,
    );
    await sleep(1000);
    const generations = generation() - before;
    const joins = joinsOf();
    const growths = linesOf(s.instances, 'the last triggered rebalance').length;
    const balancedAgain = linesOf(s.instances, 'group balanced again').length;
    process.stdout.write(
      `trigger under noise ±50%: ${String(fires.length)} fires in ${String(WINDOW_MS / 1000)} s ` +
        `(bound ${String(Math.floor(WINDOW_MS / COOLDOWN_MS) + 1)} at the base cooldown); gaps ${gaps.join('/')} ms; ` +
        `${String(growths)} cooldown growths, ${String(balancedAgain)} returns to balance; ` +
        `${String(generations)} new generations; joins per instance ${joins.join('/')}\n`,
    );
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(COOLDOWN_MS - 20);
    expect(fires.length).toBeLessThanOrEqual(Math.floor(WINDOW_MS / COOLDOWN_MS) + 1);
    // No storm: the group rebalanced exactly once per fire.
    const allFires = firesSoFar();
    expect(generations).toBe(allFires);
    for (const j of joins) expect(j).toBe(allFires);
  });
});
