import { balance, explain, type BalanceInput } from '@load-aware/assignor';
import { label, member, uniform, weighted } from './fixtures';

/**
 * Base loads (cross-group balancing): each instance may already carry load from other groups of
 * the same pods. The group's own load must then go where they left room, judged by combined load.
 */
describe('balance() with base loads per instance', () => {
  const members = [member('a1', 'A', ['t']), member('b1', 'B', ['t']), member('c1', 'C', ['t'])];
  const partitions = weighted('t', [60, 40, 30, 30, 20, 20]);
  const withBase = (base: Record<string, number>, extra: Partial<BalanceInput> = {}): BalanceInput => ({
    members,
    partitions,
    instanceBaseLoad: new Map(Object.entries(base)),
    ...extra,
  });

  it('fills the instances up to one level, giving nothing to one already at it', () => {
    // (200 + 100) / 3 = 100: A's base alone is the level, so B and C take 100 each.
    const result = balance(withBase({ A: 100 }));
    const byId = Object.fromEntries(result.instances.map((i) => [i.instanceId, i]));
    expect(byId['A']).toMatchObject({ baseLoad: 100, load: 0, combinedLoad: 100, partitionCount: 0 });
    expect(byId['B']!.combinedLoad).toBe(100);
    expect(byId['C']!.combinedLoad).toBe(100);
    expect(result.maxCombinedLoad).toBe(100);
    expect(result.idealCombinedLoad).toBe(100);
    expect(result.lowerBound).toBe(100);
    expect(result.optimalityRatio).toBe(1);
    // The group-only figures stay the group's own: B and C carry all of it.
    expect(result.maxInstanceLoad).toBe(100);
    expect(result.idealLoad).toBeCloseTo(200 / 3);
  });

  it('keeps an instance whose base is above the level out, and judges the rest by their level', () => {
    const result = balance(withBase({ A: 500, B: 20 }));
    const byId = Object.fromEntries(result.instances.map((i) => [i.instanceId, i]));
    expect(byId['A']!.load).toBe(0);
    // B and C share 200 + 20 = 220: 110 each at best.
    expect(byId['B']!.combinedLoad).toBe(110);
    expect(byId['C']!.combinedLoad).toBe(110);
    expect(result.idealCombinedLoad).toBe(500);
    expect(result.maxCombinedLoad).toBe(500);
    expect(result.optimalityRatio).toBe(1);
  });

  it('counts unusable base loads as none and ignores instances without a member in the group', () => {
    const plain = balance({ members, partitions });
    const odd = balance(withBase({ A: Number.NaN, B: -5, C: Number.POSITIVE_INFINITY, elsewhere: 1000 }));
    expect(odd.assignments).toEqual(plain.assignments);
    expect(odd.instances.map((i) => i.baseLoad)).toEqual([0, 0, 0]);
    expect(odd.instances.map((i) => i.instanceId)).toEqual(['A', 'B', 'C']);
    expect(odd.idealCombinedLoad).toBe(plain.idealLoad);
  });

  it('balances per unit of capacity on top of the base', () => {
    const big = [member('a1', 'A', ['t'], 2), member('b1', 'B', ['t'], 1)];
    // Level L: 2L - 0 + (L - 30) = 300 → L = 110: A takes 220, B takes 80 on its 30.
    const result = balance({
      members: big,
      partitions: uniform('t', 30, 10),
      instanceBaseLoad: new Map([['B', 30]]),
    });
    const [a, b] = result.instances;
    expect(a!.load).toBe(220);
    expect(b!.combinedLoad).toBe(110);
    expect(result.maxCombinedLoad).toBe(110);
    expect(result.idealCombinedLoad).toBe(110);
  });

  it('leaves zero-weight partitions spread by count: counts are the group’s own', () => {
    const result = balance({
      members: [member('a1', 'A', ['z']), member('b1', 'B', ['z']), member('c1', 'C', ['z'])],
      partitions: uniform('z', 9, 0),
      instanceBaseLoad: new Map([['A', 1000]]),
    });
    expect(result.instances.map((i) => i.partitionCount)).toEqual([3, 3, 3]);
  });

  it('stays sticky while the base loads move by less than the tolerance, and moves when they do not', () => {
    const first = balance({ members, partitions });
    const small = balance(withBase({ A: 2 }, { previous: first.assignments }));
    expect(small.movedCount).toBe(0);
    const large = balance(withBase({ A: 120 }, { previous: first.assignments }));
    expect(large.movedCount).toBeGreaterThan(0);
    expect(large.maxCombinedLoad).toBeLessThanOrEqual(large.lowerBound * 1.05);
    // Everything A keeps is within the tolerance of the best it could do.
    expect(large.instances.find((i) => i.instanceId === 'A')!.combinedLoad).toBeLessThanOrEqual(
      large.lowerBound * 1.05,
    );
  });

  it('scales base loads with the weights when their sum would overflow', () => {
    const huge = Number.MAX_VALUE / 4;
    const result = balance({
      members,
      partitions: weighted('t', [huge, huge, huge]),
      instanceBaseLoad: new Map([['A', huge]]),
    });
    expect(result.weightScale).toBeLessThan(1);
    expect(Number.isFinite(result.maxCombinedLoad)).toBe(true);
    const a = result.instances.find((i) => i.instanceId === 'A')!;
    expect(a.baseLoad).toBe(huge * result.weightScale);
    // Four equal loads on three instances: some instance carries two of them, whichever it is.
    expect(result.maxCombinedLoad).toBe(2 * huge * result.weightScale);
  });

  it('is the same whatever order the base loads are given in', () => {
    const one = balance(withBase({ A: 35, B: 10, C: 0 }));
    const other = balance({
      members,
      partitions,
      instanceBaseLoad: new Map([
        ['C', 0],
        ['B', 10],
        ['A', 35],
      ]),
    });
    expect(other.assignments).toEqual(one.assignments);
  });

  it('explains base, group and combined load per instance, and the combined skew', () => {
    const result = balance(withBase({ A: 100 }));
    const e = explain(result, 1);
    expect(e.instanceLines[0]).toBe('instance A: base 100 + group 0 (0.0%) = combined 100, 0 partitions, 1 member');
    expect(e.combinedSkew).toBe('combined skew: max combined load 100 vs ideal 100 (1.00x)');
    expect(e.combinedSkewRatio).toBe(1);
    expect(e.optimality).toBe('optimality: max combined load 100 vs lower bound 100 (1.00x: optimal)');
    expect(explain(balance({ members, partitions }), 1).combinedSkew).toBeUndefined();
  });

  it('stacks the heavy partitions of two groups apart when the second sees the first as base', () => {
    // Each group alone is balanced with its heaviest partition on the first instance by id; the
    // second group placed alone would stack its own heaviest there too.
    const orders = weighted('orders', [90, 10, 10, 10]);
    const payments = weighted('payments', [90, 10, 10, 10]);
    const group = (topic: string) => [member(`${topic}-a`, 'A', [topic]), member(`${topic}-b`, 'B', [topic])];
    const first = balance({ members: group('orders'), partitions: orders });
    const base = new Map(first.instances.map((i) => [i.instanceId, i.load]));
    const alone = balance({ members: group('payments'), partitions: payments });
    const together = balance({ members: group('payments'), partitions: payments, instanceBaseLoad: base });
    const heavyOrders = first.instances.find((i) => i.partitionCount === 1)!.instanceId;
    const heavyPaymentsAlone = alone.instances.find((i) => i.partitionCount === 1)!.instanceId;
    expect(heavyPaymentsAlone).toBe(heavyOrders);
    const heavyPayments = together.instances.find((i) =>
      together.assignments.get(`payments-${i.instanceId.toLowerCase()}`)!.map(label).includes('payments-0'),
    )!.instanceId;
    expect(heavyPayments).not.toBe(heavyOrders);
    expect(together.maxCombinedLoad).toBe(120);
  });
});
