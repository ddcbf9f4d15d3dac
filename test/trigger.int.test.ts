import { balance } from '@load-aware/assignor';
import { settledCoordinator } from './support/coordinator-gauge';
import { describeGroup, waitForStableGroup, type ObservedGroup } from './support/group';
import { eventually, type TriggerInstance } from './support/trigger-instances';
import {
  coordinatorSum,
  createTriggerScenario,
  linesStarting,
  type TriggerScenario,
  type TriggerTiming,
} from './support/trigger-scenario';

// Each test waits on real rebalances; jest's project-level testTimeout does not reach test files.
jest.setTimeout(90_000);

const PARTITIONS = 6;
const HOT = 100;
const COLD = 20;
const timing: TriggerTiming = {
  checkIntervalMs: 1000,
  sessionTimeoutMs: 6000,
  trigger: { threshold: 1.1, minViolatedChecks: 2, cooldownMs: 3000, maxCooldownMs: 12_000 },
};

function hotspotAt(topic: string, hot: number): Record<string, number> {
  return Object.fromEntries(
    Array.from({ length: PARTITIONS }, (_, p) => [`${topic}:${String(p)}`, p === hot ? HOT : COLD]),
  );
}

/** Max instance load of the described assignment, and of balance() for the same members. */
function loads(group: ObservedGroup, weights: Record<string, number>): { current: number; optimal: number } {
  const perInstance = new Map<string, number>();
  for (const m of group.members) {
    const load = m.assigned.reduce((sum, p) => sum + weights[p]!, 0);
    perInstance.set(m.instanceId!, (perInstance.get(m.instanceId!) ?? 0) + load);
  }
  const optimal = balance({
    members: group.members.map((m) => ({ memberId: m.memberId, instanceId: m.instanceId!, topics: m.topics })),
    partitions: Object.entries(weights).map(([key, weight]) => {
      const [topic, partition] = key.split(':') as [string, string];
      return { topic, partition: Number(partition), weight };
    }),
  }).maxInstanceLoad;
  return { current: Math.max(...perInstance.values()), optimal };
}

function fires(instances: ReadonlyArray<TriggerInstance>): string[] {
  return instances.flatMap((i) => linesStarting(i, 'rebalance initiated'));
}

describe('the rebalance trigger on a real broker', () => {
  let scenario: TriggerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  async function hotspotMoves(clientIds: string[], coordinatorIsLeader: boolean): Promise<void> {
    const s = (scenario = await createTriggerScenario(PARTITIONS, { weights: {} }, timing));
    await s.setWeights({ weights: hotspotAt(s.topic, 0) });
    await s.start(clientIds);
    const { instances } = s;
    await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const coordinator = await settledCoordinator(instances, [...clientIds].sort()[0]!);
    const stableAt = Date.now();
    await coordinator.waitFor(
      (e) => e.some((x) => x.event === 'log' && x.at > stableAt && x.fields['outcome'] === 'balanced'),
      'a balanced check of the complete group',
    );
    await eventually(() => new Set(instances.map((i) => i.generation())).size === 1, 'one generation everywhere');
    const generation = coordinator.generation();
    expect(fires(instances)).toEqual([]);

    // Move the hotspot onto a partition that shares its instance with others.
    const before = await describeGroup(s.admin, s.groupId);
    const crowded = before.members.find((m) => m.assigned.length >= 2 && !m.assigned.includes(`${s.topic}:0`))!;
    const newHot = Number(crowded.assigned[0]!.split(':')[1]);
    const moved = hotspotAt(s.topic, newHot);
    expect(loads(before, moved).current / loads(before, moved).optimal).toBeGreaterThan(1.1);
    const movedAt = Date.now();
    await s.setWeights({ weights: moved });

    await coordinator.waitFor(() => fires(instances).length === 1, 'the fire', 30_000);
    const fire = coordinator.logs('info').find((l) => l.message.startsWith('rebalance initiated'))!;
    expect(fire.fields['isLeader']).toBe(coordinatorIsLeader);
    const violated = coordinator
      .logs('info')
      .filter((l) => l.at >= movedAt && l.at <= fire.at && l.message.startsWith('load imbalance ratio'));
    expect(
      violated.map((l) => `${String(l.fields['violatedChecks'])}/${String(l.fields['minViolatedChecks'])}`),
    ).toEqual(['1/2', '2/2']);
    await eventually(() => instances.every((i) => i.generation() === generation + 1), 'the next generation', 30_000);
    const after = await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const fireAt = fire.at;
    await coordinator.waitFor(
      () => linesStarting(coordinator, 'group balanced again', fireAt).length > 0,
      'balanced again',
      30_000,
    );
    // A few more checks: still balanced, still one fire, no further rebalance.
    await new Promise((r) => setTimeout(r, 3 * timing.checkIntervalMs));
    expect(fires(instances)).toHaveLength(1);
    expect(instances.map((i) => i.generation())).toEqual(instances.map(() => generation + 1));
    for (const i of instances) {
      expect(i.events.filter((e) => e.event === 'join' && e.at > movedAt)).toHaveLength(1);
    }
    const { current, optimal } = loads(after, moved);
    expect(current).toBe(optimal);
    const lastCheck = coordinator
      .logs()
      .filter((l) => l.fields['outcome'] !== undefined)
      .at(-1)!;
    expect(lastCheck.fields['outcome']).toBe('balanced');
    expect(coordinatorSum(instances)).toBe(1);
    process.stdout.write(
      `trigger int (leader=${String(coordinatorIsLeader)}): generation ${String(generation)} -> ${String(generation + 1)}, ` +
        `fire ${String(fire.at - movedAt)} ms after the move, ratio ${String(fire.fields['ratio'])}\n`,
    );
  }

  it('fires once when the hotspot moves, the group rebalances once and is balanced again (coordinator is the leader)', async () => {
    await hotspotMoves(['trig-a', 'trig-b', 'trig-c'], true);
  });

  it('does the same when the coordinator is not the group leader', async () => {
    await hotspotMoves(['trig-z', 'trig-a', 'trig-b'], false);
  });

  it('hands the coordinator role to another member when the coordinator process is killed', async () => {
    const s = (scenario = await createTriggerScenario(PARTITIONS, { weights: {} }, timing));
    await s.setWeights({ weights: hotspotAt(s.topic, 0) });
    await s.start(['trig-a', 'trig-b', 'trig-c']);
    await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const first = await settledCoordinator(s.instances, 'trig-a');

    const killedAt = Date.now();
    await first.kill();
    const survivors = s.instances.filter((i) => i !== first);
    const second = await settledCoordinator(survivors, 'trig-b');
    const takeoverMs = Date.now() - killedAt;
    await waitForStableGroup(s.admin, s.groupId, 2, PARTITIONS);
    const stableAt = Date.now();
    await new Promise((r) => setTimeout(r, 2 * timing.checkIntervalMs));
    expect(coordinatorSum(survivors)).toBe(1);
    expect(second.logs().some((l) => l.at > stableAt && l.fields['outcome'] === 'balanced')).toBe(true);
    // Eviction takes the session timeout; once the group is whole again (the survivor's join),
    // the role moves within two check intervals.
    const rejoinedAt = second.events.filter((e) => e.event === 'join' && e.at > killedAt).at(-1)!.at;
    const electedAt = second
      .logs('info')
      .find((l) => l.message === 'this member is now the trigger coordinator of the group')!.at;
    expect(electedAt - rejoinedAt).toBeLessThanOrEqual(2 * timing.checkIntervalMs);
    expect(takeoverMs).toBeLessThan(timing.sessionTimeoutMs + 2 * timing.checkIntervalMs + 3000);
    process.stdout.write(
      `trigger int: coordinator killed, takeover after ${String(takeoverMs)} ms ` +
        `(${String(electedAt - rejoinedAt)} ms after the group re-formed)\n`,
    );
  });
});
