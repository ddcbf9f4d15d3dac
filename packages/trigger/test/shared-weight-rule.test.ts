import { LoadAwareAssigner, type PartitionWeight, type WeightSource } from '@load-aware/assignor';
import { currentMaxInstanceLoad, withWeights } from '@load-aware/trigger/internal';
import { createThresholdTrigger } from '@load-aware/trigger';
import { decodeAssignments, fakeCluster, member } from '@load-aware/test-support';

/**
 * The leader and the trigger must judge the same weights, or the trigger fires for an imbalance
 * the leader would never see. A source that reports a partition twice used to be read three ways.
 */
describe('a weight source that reports a partition twice', () => {
  // Keeping the first entry would weigh t:0 as 1 and put it beside t:2; keeping the largest (10)
  // puts it alone, with t:1 and t:2 together on the other instance.
  const duplicated: PartitionWeight[] = [
    { topic: 't', partition: 0, weight: 1 },
    { topic: 't', partition: 1, weight: 6 },
    { topic: 't', partition: 2, weight: 5 },
    { topic: 't', partition: 0, weight: 10 },
    { topic: 't', partition: 1, weight: 2 },
  ];
  const partitions = [0, 1, 2].map((partition) => ({ topic: 't', partition }));

  async function leaderAssignment(weights: ReadonlyArray<PartitionWeight>): Promise<Map<string, string[]>> {
    const source: WeightSource = { getWeights: () => Promise.resolve(weights) };
    const assigner = LoadAwareAssigner({ weights: source })({
      cluster: fakeCluster({ t: 3 }),
      groupId: 'g',
      logger: undefined as never,
    });
    return decodeAssignments(
      await assigner.assign({ members: [member('a', ['t'], 'A'), member('b', ['t'], 'B')], topics: ['t'] }),
    );
  }

  it('is weighed by the leader with its largest usable weight', async () => {
    const largest = [
      { topic: 't', partition: 0, weight: 10 },
      { topic: 't', partition: 1, weight: 6 },
      { topic: 't', partition: 2, weight: 5 },
    ];
    const fromDuplicates = await leaderAssignment(duplicated);
    expect(fromDuplicates).toEqual(await leaderAssignment(largest));
    expect([...fromDuplicates.values()].sort()).toEqual([['t:0'], ['t:1', 't:2']]);
  });

  it('is weighed by the trigger with the same weights, whatever the order', () => {
    for (const order of [duplicated, [...duplicated].reverse()]) {
      expect(withWeights(partitions, order)).toEqual([
        { topic: 't', partition: 0, weight: 10 },
        { topic: 't', partition: 1, weight: 6 },
        { topic: 't', partition: 2, weight: 5 },
      ]);
    }
  });
});

describe('a capacity out of bounds in userData', () => {
  it('is bounded by the trigger exactly as by the leader', () => {
    // Before the shared bound, 3000 partitions on a member claiming 1e300 weighed 3e-297 per unit:
    // the trigger saw a perfectly idle group while one instance held everything.
    const assigned = Array.from({ length: 3000 }, (_, partition) => ({ topic: 't', partition }));
    const members = [
      { memberId: 'a1', instanceId: 'A', topics: ['t'], assigned, capacity: 1e300 },
      { memberId: 'b1', instanceId: 'B', topics: ['t'], assigned: [], capacity: 1 },
      { memberId: 'c1', instanceId: 'C', topics: ['t'], assigned: [], capacity: 1 },
    ];
    expect(currentMaxInstanceLoad(members, () => 1)).toBe(3);
  });
});

describe('weights whose sums would overflow', () => {
  it('are judged in the units the leader balances them in, not left weights_unknown', () => {
    // a holds 3 of 4 equal partitions, b holds 1: ratio 1.5 whatever the weight, 1e308 included.
    const trigger = createThresholdTrigger({ minViolatedChecks: 1, cooldownMs: 0 });
    const members = [
      {
        memberId: 'a',
        instanceId: 'A',
        topics: ['t'],
        assigned: [0, 1, 2].map((partition) => ({ topic: 't', partition })),
      },
      { memberId: 'b', instanceId: 'B', topics: ['t'], assigned: [{ topic: 't', partition: 3 }] },
    ];
    const partitions = [0, 1, 2, 3].map((partition) => ({ topic: 't', partition, weight: Number.MAX_VALUE }));
    const e = trigger.evaluate({ state: 'Stable', members, partitions });
    expect(e.outcome).toBe('fired');
    expect(e.ratio).toBe(1.5);
  });
});
