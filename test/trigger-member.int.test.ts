import { waitForStableGroup, type ObservedGroup } from './support/group';
import { eventually } from './support/trigger-instances';
import {
  createTriggerScenario,
  linesStarting,
  type TriggerScenario,
  type TriggerTiming,
} from './support/trigger-scenario';

// Each test waits on real rebalances; jest's project-level testTimeout does not reach test files.
jest.setTimeout(90_000);

const PARTITIONS = 6;
const timing: TriggerTiming = {
  checkIntervalMs: 1000,
  sessionTimeoutMs: 6000,
  trigger: { threshold: 1.1, minViolatedChecks: 2, cooldownMs: 3000, maxCooldownMs: 12_000 },
};
// trig-a and trig-b are two members (two processes) of instance pod-1; trig-c is pod-2 alone.
const INSTANCE_OF = { 'trig-a': 'pod-1', 'trig-b': 'pod-1', 'trig-c': 'pod-2' };

const loadOf = (assigned: ReadonlyArray<string>, weights: Record<string, number>): number =>
  assigned.reduce((sum, p) => sum + weights[p]!, 0);

function instanceLoads(group: ObservedGroup, weights: Record<string, number>): Map<string, number> {
  const loads = new Map<string, number>();
  for (const m of group.members)
    loads.set(m.instanceId!, (loads.get(m.instanceId!) ?? 0) + loadOf(m.assigned, weights));
  return loads;
}

describe('the member level of the rebalance trigger on a real broker', () => {
  let scenario: TriggerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  it('fires when one member of a balanced instance holds its hot partitions, and the rebalance evens the members out', async () => {
    const s = (scenario = await createTriggerScenario(PARTITIONS, { weights: {} }, timing));
    const even = Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [`${s.topic}:${String(p)}`, 10]));
    await s.setWeights({ weights: even });
    await s.start(['trig-a', 'trig-b', 'trig-c'], INSTANCE_OF);
    const { instances } = s;
    const before = await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const coordinator = instances.find((i) => i.spec.clientId === 'trig-a')!;
    const stableAt = Date.now();
    await coordinator.waitFor(
      (e) => e.some((x) => x.event === 'log' && x.at > stableAt && x.fields['outcome'] === 'balanced'),
      'a balanced check of the complete group',
    );
    await eventually(() => new Set(instances.map((i) => i.generation())).size === 1, 'one generation everywhere');
    const generation = coordinator.generation();

    // pod-1 holds three partitions of 10 over two members (2 + 1): make the pair 20 + 20 and the
    // single one 1, and pod-2's three share 41. Instances stay at 41 each (ratio 1); inside pod-1
    // one member carries 40 where 21 is possible (member ratio 1.9).
    const pod1 = before.members.filter((m) => m.instanceId === 'pod-1');
    const busy = pod1.find((m) => m.assigned.length === 2)!;
    const idle = pod1.find((m) => m.assigned.length === 1)!;
    const pod2 = before.members.find((m) => m.instanceId === 'pod-2')!;
    expect(pod2.assigned).toHaveLength(3);
    const skew: Record<string, number> = {
      [busy.assigned[0]!]: 20,
      [busy.assigned[1]!]: 20,
      [idle.assigned[0]!]: 1,
      [pod2.assigned[0]!]: 13,
      [pod2.assigned[1]!]: 14,
      [pod2.assigned[2]!]: 14,
    };
    expect([...instanceLoads(before, skew).values()]).toEqual([41, 41]);
    const movedAt = Date.now();
    await s.setWeights({ weights: skew });

    await coordinator.waitFor(() => linesStarting(coordinator, 'rebalance initiated').length === 1, 'the fire', 30_000);
    const fire = coordinator.logs('info').find((l) => l.message.startsWith('rebalance initiated'))!;
    expect(fire.fields).toMatchObject({ level: 'member', ratio: 1 });
    const violated = coordinator
      .logs('info')
      .filter((l) => l.at >= movedAt && l.at <= fire.at && l.message.startsWith('member load imbalance ratio'));
    expect(violated.map((l) => l.fields['violatedChecks'])).toEqual([1, 2]);
    await eventually(() => instances.every((i) => i.generation() === generation + 1), 'the next generation', 30_000);
    const after = await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    await coordinator.waitFor(
      () => linesStarting(coordinator, 'group balanced again', fire.at).length > 0,
      'balanced again',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 3 * timing.checkIntervalMs));
    expect(linesStarting(coordinator, 'rebalance initiated')).toHaveLength(1);
    expect(instances.map((i) => i.generation())).toEqual(instances.map(() => generation + 1));

    // The instance split is kept; pod-1's busiest member now carries the optimum 21.
    expect([...instanceLoads(after, skew).values()]).toEqual([41, 41]);
    const pod1After = after.members.filter((m) => m.instanceId === 'pod-1').map((m) => loadOf(m.assigned, skew));
    const memberRatio = Math.max(...pod1After) / 21;
    expect(memberRatio).toBeLessThanOrEqual(1.25);
    const last = coordinator
      .logs()
      .filter((l) => l.fields['outcome'] !== undefined)
      .at(-1)!;
    expect(last.fields).toMatchObject({ outcome: 'balanced', memberRatio: 1 });
    process.stdout.write(
      `trigger member int: fire ${String(fire.at - movedAt)} ms after the skew, member ratio ` +
        `${String(fire.fields['memberRatio'])} -> ${String(memberRatio)} (pod-1 members ${pod1After.join('/')}), ` +
        `generation ${String(generation)} -> ${String(generation + 1)}\n`,
    );
  });
});
