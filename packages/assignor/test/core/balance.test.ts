import {
  balance,
  referenceBalance,
  ErrorCodes,
  InvalidBalanceInputError,
  type BalanceInput,
  type BalanceResult,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import { label, labels, member, uniform, weighted, HAND_COMPUTED_EXAMPLE } from './fixtures';
import { errorThrownBy } from '@load-aware/test-support';

function errorOf(input: BalanceInput): InvalidBalanceInputError {
  return errorThrownBy(() => balance(input), InvalidBalanceInputError);
}

function instanceCounts(result: BalanceResult): Record<string, number> {
  return Object.fromEntries(result.instances.map((i) => [i.instanceId, i.partitionCount]));
}

function instanceLoads(result: BalanceResult): Record<string, number> {
  return Object.fromEntries(result.instances.map((i) => [i.instanceId, i.load]));
}

describe('balance placement', () => {
  it('places the heaviest partition first onto the least-loaded instance, then onto its least-loaded member', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t']), member('b1', 'B', ['t'])],
      // Input order is irrelevant: 10, 6, 5, 3 are placed in that order.
      partitions: weighted('t', [3, 10, 5, 6]),
    });
    // 10 -> A/a1; 6 -> B; 5 -> B (6 < 10); 3 -> A (10 < 11), onto the idle a2 rather than a1.
    expect(labels(result.assignments)).toEqual({ a1: ['t-1'], a2: ['t-0'], b1: ['t-2', 't-3'] });
    expect(instanceLoads(result)).toEqual({ A: 13, B: 11 });
  });

  it('spreads by weight inside an instance, not by count', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t'])],
      partitions: weighted('t', [10, 4, 4, 3]),
    });
    expect(labels(result.assignments)).toEqual({ a1: ['t-0'], a2: ['t-1', 't-2', 't-3'] });
    expect(result.members.map((m) => m.load)).toEqual([10, 11]);
  });

  it('breaks instance ties by instance id and member ties by member id, in code-unit order and whatever the input order', () => {
    const members = [
      member('a-2', 'a', ['t']),
      member('a-1', 'a', ['t']),
      member('z', 'B', ['t']),
      member('Y', 'B', ['t']),
    ];
    const partitions = weighted('t', [5, 5, 5]);
    const result = balance({ members, partitions });
    // 'B' < 'a' and 'Y' < 'z' by code unit (localeCompare would say otherwise).
    expect(labels(result.assignments)).toEqual({ 'a-1': ['t-1'], 'a-2': [], Y: ['t-0'], z: ['t-2'] });
    const reversed = balance({ members: [...members].reverse(), partitions: [...partitions].reverse() });
    expect(labels(reversed.assignments)).toEqual(labels(result.assignments));
  });

  it('orders partitions of equal weight by topic, then by partition number', () => {
    const result = balance({
      members: [member('a', 'A', ['a', 'b']), member('b', 'B', ['a', 'b']), member('c', 'C', ['a', 'b'])],
      partitions: [
        { topic: 'b', partition: 1, weight: 1 },
        { topic: 'a', partition: 10, weight: 1 },
        { topic: 'b', partition: 0, weight: 1 },
        { topic: 'a', partition: 2, weight: 1 },
      ],
    });
    // Placement order a-2, a-10 (numeric, not string, order), b-0, b-1 cycles A, B, C, A.
    expect(labels(result.assignments)).toEqual({ a: ['a-2', 'b-1'], b: ['a-10'], c: ['b-0'] });
  });

  it('returns each member’s partitions sorted by topic, then partition number', () => {
    const result = balance({
      members: [member('m', 'A', ['x', 'y'])],
      partitions: [...weighted('y', [1, 9]), ...weighted('x', [5, 2, 7])],
    });
    expect(labels(result.assignments)).toEqual({ m: ['x-0', 'x-1', 'x-2', 'y-0', 'y-1'] });
  });
});

describe('balance zero-weight partitions', () => {
  it('places zero-weight partitions across instances by count, counting weighted partitions already placed', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('b1', 'B', ['t'])],
      partitions: weighted('t', [3, 1, 1, 1, 0, 0]),
    });
    // Loads are 3 and 3 after the weighted partitions, but A holds 1 partition and B holds 3,
    // so both zero-weight partitions go to A.
    expect(labels(result.assignments)).toEqual({ a1: ['t-0', 't-4', 't-5'], b1: ['t-1', 't-2', 't-3'] });
    expect(instanceCounts(result)).toEqual({ A: 3, B: 3 });
    expect(result.zeroWeightCount).toBe(2);
  });

  it('places zero-weight partitions across the members of an instance by count, counting weighted partitions already placed', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t'])],
      partitions: weighted('t', [4, 2, 2, 0, 0, 0]),
    });
    // a1 holds 4 (1 partition), a2 holds 2 + 2 (2 partitions): the first zero-weight partition
    // goes to a1, the tie at 2/2 to a1 by id, the last to a2.
    expect(labels(result.assignments)).toEqual({ a1: ['t-0', 't-3', 't-4'], a2: ['t-1', 't-2', 't-5'] });
    expect(result.members.map((m) => m.partitionCount)).toEqual([3, 3]);
  });

  it('spreads a group whose weights are all zero evenly by count', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t']), member('b1', 'B', ['t']), member('c1', 'C', ['t'])],
      partitions: uniform('t', 7, 0),
    });
    expect(instanceCounts(result)).toEqual({ A: 3, B: 2, C: 2 });
    expect(result.members.map((m) => m.partitionCount)).toEqual([2, 1, 2, 2]);
    expect(result.totalWeight).toBe(0);
    expect(result.zeroWeightCount).toBe(7);
  });
});

describe('balance across instances of different sizes', () => {
  it('gives instances equal load regardless of member count, so members of small instances run hotter', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t']), member('a3', 'A', ['t']), member('b1', 'B', ['t'])],
      partitions: uniform('t', 12, 1),
    });
    expect(instanceLoads(result)).toEqual({ A: 6, B: 6 });
    expect(Object.fromEntries(result.members.map((m) => [m.memberId, m.load]))).toEqual({ a1: 2, a2: 2, a3: 2, b1: 6 });
  });

  it.each([
    ['equal measured weights', 1],
    ['fractional equal weights', 7.5],
    ['zero weights', 0],
    ['missing weights', undefined],
  ])(
    'with more members than partitions and %s, gives each instance floor(P/I) or ceil(P/I) partitions and no member a second while an instance mate is idle',
    (_name, weight) => {
      const members = [
        ...['a1', 'a2', 'a3', 'a4'].map((id) => member(id, 'A', ['t'])),
        ...['b1', 'b2', 'b3'].map((id) => member(id, 'B', ['t'])),
        member('c1', 'C', ['t']),
      ];
      for (const count of [1, 2, 4, 5, 7]) {
        const result = balance({ members, partitions: uniform('t', count, weight) });
        const floor = Math.floor(count / 3);
        for (const instance of result.instances) {
          expect(instance.partitionCount).toBeGreaterThanOrEqual(floor);
          expect(instance.partitionCount).toBeLessThanOrEqual(Math.ceil(count / 3));
          const counts = result.members
            .filter((m) => m.instanceId === instance.instanceId)
            .map((m) => m.partitionCount);
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        }
        if (count === 5) expect(instanceCounts(result)).toEqual({ A: 2, B: 2, C: 1 });
      }
    },
  );

  it('gives an instance with capacity 2 about twice the load of an instance with capacity 1', () => {
    const result = balance({
      members: [member('a1', 'A', ['t'], 2), member('b1', 'B', ['t'])],
      partitions: uniform('t', 30, 1),
    });
    expect(instanceLoads(result)).toEqual({ A: 20, B: 10 });
    expect(result.instances.map((i) => i.capacity)).toEqual([2, 1]);
    // Loads are compared per unit of capacity: 20 / 2 = 10 / 1 = 30 / 3.
    expect(result.maxInstanceLoad).toBe(10);
    expect(result.idealLoad).toBe(10);
  });

  it('uses the largest capacity its members declare for an instance and 1 for unusable capacities', () => {
    const result = balance({
      members: [
        member('a1', 'A', ['t'], 2),
        member('a2', 'A', ['t'], 3),
        member('b1', 'B', ['t'], 0),
        member('c1', 'C', ['t'], -2),
        member('d1', 'D', ['t'], Number.NaN),
        member('e1', 'E', ['t'], Number.POSITIVE_INFINITY),
      ],
      partitions: [],
    });
    expect(result.instances.map((i) => i.capacity)).toEqual([3, 1, 1, 1, 1]);
  });
});

describe('balance subscriptions', () => {
  it('gives a topic’s partitions only to members subscribed to it', () => {
    const members = [member('a1', 'A', ['x']), member('a2', 'A', ['y']), member('b1', 'B', ['x', 'y'])];
    const result = balance({ members, partitions: [...uniform('x', 6, 5), ...uniform('y', 6, 1)] });
    for (const m of members) {
      for (const p of result.assignments.get(m.memberId) ?? []) expect(m.topics).toContain(p.topic);
    }
    expect(result.partitionCount).toBe(12);
  });

  it('balances a group whose members subscribe to different topic sets', () => {
    const result = balance({
      members: [member('a1', 'A', ['x']), member('b1', 'B', ['y']), member('c1', 'C', ['x', 'y'])],
      partitions: [...weighted('x', [6, 4, 2]), ...weighted('y', [5, 3])],
    });
    // 6 -> A (A or C), 5 -> B (B or C), 4 -> C, 3 -> C (4 < 5), 2 -> A (6 < 7).
    expect(labels(result.assignments)).toEqual({ a1: ['x-0', 'x-2'], b1: ['y-0'], c1: ['x-1', 'y-1'] });
    expect(instanceLoads(result)).toEqual({ A: 8, B: 5, C: 7 });
    expect(result.restrictedTopics).toEqual(['x', 'y']);
  });

  it('reports partitions of topics nobody subscribes to as unassignable and leaves them out of every tally', () => {
    const result = balance({
      members: [member('a1', 'A', ['x'])],
      partitions: [
        { topic: 'ghost', partition: 1, weight: 100 },
        ...weighted('x', [2, 3]),
        { topic: 'ghost', partition: 0 },
        { topic: 'ghost', partition: 1, weight: 100 },
      ],
    });
    expect(result.unassignable).toEqual([
      { topic: 'ghost', partition: 1 },
      { topic: 'ghost', partition: 0 },
    ]);
    expect(labels(result.assignments)).toEqual({ a1: ['x-0', 'x-1'] });
    expect(result.partitionCount).toBe(2);
    expect(result.totalWeight).toBe(5);
    expect(result.heaviestWeight).toBe(3);
    // The weightless ghost partition is not being assigned, so it is not "defaulted" either.
    expect(result.defaultedCount).toBe(0);
  });

  it('lists every member in the assignments, even members that receive nothing', () => {
    const result = balance({
      members: [member('busy', 'A', ['t']), member('idle', 'A', ['t']), member('other', 'B', ['nothing-here'])],
      partitions: weighted('t', [1]),
    });
    expect(labels(result.assignments)).toEqual({ busy: ['t-0'], idle: [], other: [] });
    expect(result.members.map((m) => m.memberId)).toEqual(['busy', 'idle', 'other']);
  });
});

describe('balance weights', () => {
  const unusable: WeightedPartition[] = [
    { topic: 't', partition: 1 },
    { topic: 't', partition: 2, weight: undefined },
    { topic: 't', partition: 3, weight: null },
    { topic: 't', partition: 4, weight: Number.NaN },
    { topic: 't', partition: 5, weight: Number.POSITIVE_INFINITY },
    { topic: 't', partition: 6, weight: Number.NEGATIVE_INFINITY },
    { topic: 't', partition: 7, weight: -3 },
  ];

  it('treats missing, null, NaN, ±Infinity and negative weights as the default weight 1 and counts them as defaulted', () => {
    const result = balance({
      members: [member('m', 'A', ['t'])],
      partitions: [{ topic: 't', partition: 0, weight: 2 }, ...unusable],
    });
    expect(result.defaultedCount).toBe(7);
    expect(result.totalWeight).toBe(9);
    expect(result.heaviestWeight).toBe(2);
    expect(result.medianMeasuredWeight).toBe(2);
    expect(result.zeroWeightCount).toBe(0);
  });

  it('uses options.defaultWeight for partitions without a usable weight', () => {
    const result = balance(
      { members: [member('m', 'A', ['t'])], partitions: [{ topic: 't', partition: 0, weight: 2 }, ...unusable] },
      { defaultWeight: 0.5 },
    );
    expect(result.defaultedCount).toBe(7);
    expect(result.totalWeight).toBe(5.5);
  });

  it('places defaulted partitions by their default weight', () => {
    const result = balance(
      {
        members: [member('a1', 'A', ['t']), member('b1', 'B', ['t'])],
        // Three defaulted partitions of 4 each: 10 -> A, then 4, 4, 4 -> B (B stays below 10 until the last).
        partitions: [...weighted('t', [10, null, undefined, Number.NaN])],
      },
      { defaultWeight: 4 },
    );
    expect(instanceLoads(result)).toEqual({ A: 10, B: 12 });
  });

  it('counts zero weights as measured, not defaulted', () => {
    const result = balance({ members: [member('m', 'A', ['t'])], partitions: weighted('t', [0, 0, 4]) });
    expect(result.defaultedCount).toBe(0);
    expect(result.zeroWeightCount).toBe(2);
    expect(result.medianMeasuredWeight).toBe(0);
  });

  it('treats a weight of -0 as 0, so a partition listed as 0 and as -0 gives the same result in any order', () => {
    const members = [member('m', 'A', ['t'])];
    const zeroFirst = balance({
      members,
      partitions: [
        { topic: 't', partition: 0, weight: 0 },
        { topic: 't', partition: 0, weight: -0 },
      ],
    });
    const minusFirst = balance({
      members,
      partitions: [
        { topic: 't', partition: 0, weight: -0 },
        { topic: 't', partition: 0, weight: 0 },
      ],
    });
    expect(minusFirst).toEqual(zeroFirst);
    expect(Object.is(minusFirst.medianMeasuredWeight, 0)).toBe(true);
    expect(minusFirst.zeroWeightCount).toBe(1);
    expect(minusFirst.defaultedCount).toBe(0);
  });

  it('counts a partition listed twice once, keeping its largest usable weight whatever the order', () => {
    const partitions: WeightedPartition[] = [
      { topic: 't', partition: 0 },
      { topic: 't', partition: 0, weight: 4 },
      { topic: 't', partition: 1, weight: 2 },
      { topic: 't', partition: 1, weight: 3 },
      { topic: 't', partition: 2, weight: Number.NaN },
      { topic: 't', partition: 2, weight: null },
    ];
    const members = [member('a1', 'A', ['t']), member('b1', 'B', ['t'])];
    const result = balance({ members, partitions });
    expect(result.partitionCount).toBe(3);
    expect(result.totalWeight).toBe(8);
    expect(result.defaultedCount).toBe(1);
    expect(result.heaviestWeight).toBe(4);
    expect([...result.assignments.values()].flat().map(label).sort()).toEqual(['t-0', 't-1', 't-2']);
    expect(balance({ members, partitions: [...partitions].reverse() })).toEqual(result);
  });
});

describe('balance input validation', () => {
  it('rejects duplicate member ids with InvalidBalanceInputError', () => {
    const err = errorOf({ members: [member('m', 'A', ['t']), member('m', 'B', ['t'])], partitions: [] });
    expect(err.code).toBe(ErrorCodes.invalidBalanceInput);
    expect(err.code).toBe('LOAD_AWARE_INVALID_BALANCE_INPUT');
    expect(err.field).toBe('memberId');
  });

  it('rejects an empty member id with InvalidBalanceInputError', () => {
    const err = errorOf({ members: [member('', 'A', ['t'])], partitions: weighted('t', [1]) });
    expect(err.code).toBe('LOAD_AWARE_INVALID_BALANCE_INPUT');
    expect(err.field).toBe('memberId');
  });

  it('works with members but no partitions', () => {
    const result = balance({ members: [member('a1', 'A', ['t']), member('b1', 'B', ['t'])], partitions: [] });
    expect(labels(result.assignments)).toEqual({ a1: [], b1: [] });
    expect(result.instances.map((i) => [i.instanceId, i.load, i.partitionCount])).toEqual([
      ['A', 0, 0],
      ['B', 0, 0],
    ]);
    expect(result).toMatchObject({
      partitionCount: 0,
      totalWeight: 0,
      defaultedCount: 0,
      zeroWeightCount: 0,
      unassignable: [],
      heaviestWeight: 0,
      maxInstanceLoad: 0,
      idealLoad: 0,
      medianMeasuredWeight: undefined,
      restrictedTopics: [],
      lowerBound: 0,
      optimalityRatio: 1,
      movedCount: 0,
    });
  });

  it('works with partitions but no members, reporting every partition as unassignable', () => {
    const result = balance({ members: [], partitions: weighted('t', [1, undefined]) });
    expect(result.assignments.size).toBe(0);
    expect(result.instances).toEqual([]);
    expect(result.members).toEqual([]);
    expect(result.unassignable).toEqual([
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
    ]);
    expect(result).toMatchObject({
      partitionCount: 0,
      totalWeight: 0,
      defaultedCount: 0,
      maxInstanceLoad: 0,
      idealLoad: 0,
    });
  });

  it('works with neither members nor partitions', () => {
    const result = balance({ members: [], partitions: [] });
    expect(result.assignments.size).toBe(0);
    expect(result.partitionCount).toBe(0);
    expect(result.medianMeasuredWeight).toBeUndefined();
  });

  it('does not modify its input', () => {
    const members = [member('b1', 'B', ['t']), member('a1', 'A', ['t'])];
    const partitions = weighted('t', [1, 5, undefined]);
    const snapshot = JSON.stringify({ members, partitions });
    balance({ members, partitions });
    expect(JSON.stringify({ members, partitions })).toBe(snapshot);
  });
});

describe('balance result', () => {
  it('reports every field correctly on a hand-computed example', () => {
    const result = balance(HAND_COMPUTED_EXAMPLE);
    // The greedy gives A 8+3+2+1 = 14 and B 5+4 = 9. Audit (3) can only go to A, so the best is
    // A 8+3 = 11 and B 5+4+3 = 12: the search moves orders-3 over. Inside A, a1 (the only audit
    // subscriber) holds audit, and orders-0 goes to the idle a2.
    expect(labels(result.assignments)).toEqual({
      a1: ['audit-0', 'audit-1'],
      a2: ['orders-0'],
      b1: ['orders-1', 'orders-2', 'orders-3'],
    });
    expect([...result.assignments.keys()]).toEqual(['a1', 'a2', 'b1']);
    expect(result.instances).toEqual([
      {
        instanceId: 'A',
        capacity: 1,
        load: 11,
        baseLoad: 0,
        combinedLoad: 11,
        partitionCount: 3,
        memberIds: ['a1', 'a2'],
      },
      { instanceId: 'B', capacity: 1, load: 12, baseLoad: 0, combinedLoad: 12, partitionCount: 3, memberIds: ['b1'] },
    ]);
    expect(result.members).toEqual([
      { memberId: 'a1', instanceId: 'A', load: 3, partitionCount: 2 },
      { memberId: 'a2', instanceId: 'A', load: 8, partitionCount: 1 },
      { memberId: 'b1', instanceId: 'B', load: 12, partitionCount: 3 },
    ]);
    expect(result.partitionCount).toBe(6);
    expect(result.totalWeight).toBe(23);
    expect(result.defaultedCount).toBe(1);
    expect(result.zeroWeightCount).toBe(0);
    expect(result.unassignable).toEqual([{ topic: 'ghost', partition: 0 }]);
    expect(result.heaviestWeight).toBe(8);
    expect(result.maxInstanceLoad).toBe(12);
    expect(result.idealLoad).toBe(11.5);
    // Without base loads the combined figures are the group's own.
    expect(result.maxCombinedLoad).toBe(12);
    expect(result.idealCombinedLoad).toBe(11.5);
    // The even share is 11.5, but integer weights cannot split 23 evenly: 12 is provably optimal.
    expect(result.lowerBound).toBe(12);
    expect(result.optimalityRatio).toBe(1);
    expect(result.movedCount).toBe(0);
    expect(result.forcedMoveCount).toBe(0);
    expect(result.previouslyOwnedCount).toBe(0);
    // Measured weights 8, 5, 4, 3, 2 (the defaulted audit-0 and the unassignable ghost-0 excluded).
    expect(result.medianMeasuredWeight).toBe(4);
    expect(result.restrictedTopics).toEqual(['audit']);
  });

  it('takes the median of an even number of measured weights as the mean of the middle two', () => {
    const result = balance({ members: [member('m', 'A', ['t'])], partitions: weighted('t', [1, 10, 2, 7]) });
    expect(result.medianMeasuredWeight).toBe(4.5);
  });

  it('sorts instances by id', () => {
    const result = balance({
      members: [member('m3', 'pod-c', ['t']), member('m1', 'pod-a', ['t']), member('m2', 'pod-b', ['t'])],
      partitions: [],
    });
    expect(result.instances.map((i) => i.instanceId)).toEqual(['pod-a', 'pod-b', 'pod-c']);
  });

  it('reaches the optimum 15 on 9,9,8,8,7,7,6,6,5,5,5 over five instances, where the reference greedy stops at 19', () => {
    const input = {
      members: ['a', 'b', 'c', 'd', 'e'].map((id) => member(`m-${id}`, id, ['t'])),
      partitions: weighted('t', [9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 5]),
    };
    // Greedy LPT: a 9+5+5, b 9+5, c 8+6, d 8+6, e 7+7. The optimum is 9+6, 9+6, 8+7, 8+7, 5+5+5.
    expect(referenceBalance(input).maxInstanceLoad).toBe(19);
    const result = balance(input);
    expect(Object.values(instanceLoads(result))).toEqual([15, 15, 15, 15, 15]);
    expect(result.maxInstanceLoad).toBe(15);
    expect(result.idealLoad).toBe(15);
    expect(result.lowerBound).toBe(15);
    expect(result.optimalityRatio).toBe(1);
  });
});
