import {
  balance,
  referenceBalance,
  InvalidBalanceInputError,
  type BalanceInput,
  type BalanceOptions,
  type BalanceResult,
} from '@load-aware/assignor/internal';
import { member, uniform, weighted } from './fixtures';
import { errorThrownBy } from '@load-aware/test-support';

/** One single-member instance per weight list entry's group: the textbook setting. */
function singles(count: number): BalanceInput['members'] {
  return Array.from({ length: count }, (_, i) => member(`m${String(i)}`, `i${String(i)}`, ['t']));
}

function loads(result: BalanceResult): number[] {
  return result.instances.map((i) => i.load);
}

function errorOf(input: BalanceInput, options: BalanceOptions): InvalidBalanceInputError {
  return errorThrownBy(() => balance(input, options), InvalidBalanceInputError);
}

describe('balance quality on the classic hard cases for greedy', () => {
  it.each([
    ['9,9,8,8,7,7,6,6,5,5,5 on 5 instances', [9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 5], 5, 19, 15],
    ['3,3,2,2,2 on 2 instances', [3, 3, 2, 2, 2], 2, 7, 6],
    ['8,7,6,5,4 on 2 instances', [8, 7, 6, 5, 4], 2, 17, 15],
    ['29,20,19,13,11,4,1 on 2 instances (needs a 2-for-1 exchange)', [1, 29, 11, 20, 19, 4, 13], 2, 50, 49],
    [
      '86,81,65,54,53,20,18,16,11,9,9 on 5 instances (needs a three-way exchange)',
      [86, 11, 54, 18, 16, 81, 20, 65, 9, 53, 9],
      5,
      90,
      87,
    ],
  ])('reaches the optimum on %s where the greedy does not', (_name, weights, instances, greedy, optimum) => {
    const input = { members: singles(instances), partitions: weighted('t', weights) };
    expect(referenceBalance(input).maxInstanceLoad).toBe(greedy);
    const result = balance(input);
    expect(result.maxInstanceLoad).toBe(optimum);
    expect(result.maxInstanceLoad).toBeGreaterThanOrEqual(result.lowerBound);
  });

  it('stops at the greedy result when given no search budget', () => {
    const input = { members: singles(5), partitions: weighted('t', [9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 5]) };
    expect(balance(input, { searchBudget: 0 }).maxInstanceLoad).toBe(19);
  });

  it('finds the optimum under subscription constraints, keeping each topic on its subscribers', () => {
    const members = [member('a', 'A', ['x']), member('b', 'B', ['x', 'y']), member('c', 'C', ['y'])];
    const partitions = [...weighted('x', [9, 8, 7, 3]), ...weighted('y', [6, 5, 2])];
    const result = balance({ members, partitions });
    for (const p of result.assignments.get('a') ?? []) expect(p.topic).toBe('x');
    for (const p of result.assignments.get('c') ?? []) expect(p.topic).toBe('y');
    expect(result.maxInstanceLoad).toBe(bruteForceOptimum(members, partitions));
  });
});

/** The best max instance load over every placement of single-member instances (tiny inputs only). */
function bruteForceOptimum(
  members: BalanceInput['members'],
  partitions: ReadonlyArray<{ topic: string; weight?: number | null | undefined }>,
): number {
  let best = Infinity;
  const load = members.map(() => 0);
  const visit = (k: number): void => {
    if (k === partitions.length) {
      best = Math.min(best, Math.max(...load));
      return;
    }
    const p = partitions[k]!;
    members.forEach((m, i) => {
      if (!m.topics.includes(p.topic)) return;
      load[i]! += p.weight ?? 1;
      visit(k + 1);
      load[i]! -= p.weight ?? 1;
    });
  };
  visit(0);
  return best;
}

describe('balance lower bound', () => {
  it('is the even share when nothing else binds', () => {
    const result = balance({ members: singles(4), partitions: uniform('t', 8, 1) });
    expect(result.lowerBound).toBe(2);
    expect(result.optimalityRatio).toBe(1);
  });

  it('is the heaviest partition when one partition outweighs the even share', () => {
    const result = balance({ members: singles(3), partitions: weighted('t', [30, 1, 1, 1]) });
    expect(result.lowerBound).toBe(30);
    expect(result.maxInstanceLoad).toBe(30);
  });

  it('is the m-th plus the (m+1)-th heaviest when m+1 big partitions share m instances', () => {
    // Mean 8, heaviest 6, but two of the four 6s must share an instance.
    const result = balance({ members: singles(3), partitions: uniform('t', 4, 6) });
    expect(result.lowerBound).toBe(12);
    expect(result.optimalityRatio).toBe(1);
  });

  it('counts a topic only some instances subscribe to against those instances alone', () => {
    const result = balance({
      members: [member('a', 'A', ['x', 'y']), member('b', 'B', ['y']), member('c', 'C', ['y'])],
      partitions: [...weighted('x', [5, 5]), ...uniform('y', 2, 1)],
    });
    // The mean is 4, but x's 10 can only go to A.
    expect(result.lowerBound).toBe(10);
    expect(result.maxInstanceLoad).toBe(10);
  });

  it('accounts for capacity: a partition may go to the largest instance, loads are per unit of capacity', () => {
    const result = balance({
      members: [member('a', 'A', ['t'], 2), member('b', 'B', ['t'])],
      partitions: weighted('t', [9]),
    });
    expect(result.lowerBound).toBe(4.5);
    expect(result.maxInstanceLoad).toBe(4.5);
    expect(result.instances.map((i) => i.load)).toEqual([9, 0]);
  });

  it('is 0 with a ratio of 1 when there is no load', () => {
    const result = balance({ members: singles(2), partitions: uniform('t', 5, 0) });
    expect(result.lowerBound).toBe(0);
    expect(result.optimalityRatio).toBe(1);
  });
});

describe('balance with capacities', () => {
  it('gives an instance with capacity 2 about twice the load of one with capacity 1, whatever the weights', () => {
    const weights = Array.from({ length: 60 }, (_, i) => 1 + ((i * 37) % 11));
    const result = balance({
      members: [
        member('a1', 'A', ['t'], 2),
        member('a2', 'A', ['t'], 2),
        member('b1', 'B', ['t']),
        member('c1', 'C', ['t']),
      ],
      partitions: weighted('t', weights),
    });
    const [a, b, c] = loads(result);
    const total = weights.reduce((sum, w) => sum + w, 0);
    expect(a! / 2).toBeCloseTo(total / 4, 0);
    expect(b).toBeCloseTo(total / 4, 0);
    expect(c).toBeCloseTo(total / 4, 0);
    expect(result.optimalityRatio).toBeLessThan(1.01);
  });
});

describe('balance inside an instance', () => {
  it('balances the members of an instance beyond the greedy', () => {
    // Greedy on the members: a1 5+3, a2 4+3+3 = 10. Optimal: 5+4 and 3+3+3.
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t'])],
      partitions: weighted('t', [5, 4, 3, 3, 3]),
    });
    expect(result.members.map((m) => m.load)).toEqual([9, 9]);
  });

  it('keeps member partition counts within one when all weights are equal', () => {
    const result = balance({
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t']), member('a3', 'A', ['t']), member('b1', 'B', ['t'])],
      partitions: uniform('t', 20, 2.5),
    });
    expect(result.members.map((m) => m.partitionCount)).toEqual([4, 3, 3, 10]);
  });
});

describe('balance options', () => {
  const input = { members: singles(2), partitions: uniform('t', 4, 1) };

  it.each([
    ['moveTolerance', { moveTolerance: -0.1 }],
    ['moveTolerance', { moveTolerance: Number.NaN }],
    ['moveTolerance', { moveTolerance: Number.POSITIVE_INFINITY }],
    ['maxMovesPerRebalance', { maxMovesPerRebalance: -1 }],
    ['maxMovesPerRebalance', { maxMovesPerRebalance: Number.NaN }],
    ['searchBudget', { searchBudget: -5 }],
    ['searchBudget', { searchBudget: '5' as unknown as number }],
    ['defaultWeight', { defaultWeight: Number.NaN }],
    ['defaultWeight', { defaultWeight: -1 }],
    ['defaultWeight', { defaultWeight: Number.POSITIVE_INFINITY }],
    ['defaultWeight', { defaultWeight: '2' as unknown as number }],
  ])('rejects a bad %s with InvalidBalanceInputError naming it', (field, options) => {
    const err = errorOf(input, options);
    expect(err.code).toBe('LOAD_AWARE_INVALID_BALANCE_INPUT');
    expect(err.field).toBe(field);
  });

  it('checks options in referenceBalance() too, and rejects options that are not an object', () => {
    expect(() => referenceBalance(input, { defaultWeight: Number.NaN })).toThrow(InvalidBalanceInputError);
    expect(() => balance(input, null as unknown as BalanceOptions)).toThrow(/options null/);
  });

  it('gives the same result for any input order once a default weight is set', () => {
    // A NaN default used to make the heaviest-first comparator inconsistent; a valid one never does.
    const partitions = [...uniform('t', 6, 1), { topic: 't', partition: 9 }, { topic: 't', partition: 7 }];
    const forward = balance({ members: singles(3), partitions }, { defaultWeight: 2.5 });
    const backward = balance({ members: singles(3), partitions: [...partitions].reverse() }, { defaultWeight: 2.5 });
    expect(backward.assignments).toEqual(forward.assignments);
  });

  it('accepts an unbounded maxMovesPerRebalance and a zero tolerance', () => {
    expect(() => balance(input, { maxMovesPerRebalance: Number.POSITIVE_INFINITY, moveTolerance: 0 })).not.toThrow();
  });
});
