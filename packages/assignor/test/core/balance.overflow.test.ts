import { balance, explain } from '@load-aware/assignor/internal';
import { member, uniform, weighted } from './fixtures';

/**
 * Weights near Number.MAX_VALUE are finite, but their sums are not: loads became Infinity, the
 * search could not tell them apart, the log read "NaNx" and the trigger never judged the group.
 * balance() now scales all weights by a power of two when their sum could overflow.
 */
describe('balance() with weights whose sums would overflow', () => {
  const members = [member('a', 'a', ['t']), member('b', 'b', ['t']), member('c', 'c', ['t'])];

  it('balances them like any other equal weights, with finite loads', () => {
    const result = balance({ members, partitions: uniform('t', 12, Number.MAX_VALUE) });
    expect(result.instances.map((i) => i.partitionCount)).toEqual([4, 4, 4]);
    expect(Number.isFinite(result.maxInstanceLoad)).toBe(true);
    expect(Number.isFinite(result.totalWeight)).toBe(true);
    expect(result.optimalityRatio).toBe(1);
    expect(result.weightScale).toBeLessThan(1);
    expect(Number.isInteger(Math.log2(result.weightScale))).toBe(true);
  });

  it('keeps the ratios between weights, defaulted ones included', () => {
    const partitions = [
      ...weighted('t', [Number.MAX_VALUE, Number.MAX_VALUE / 2, Number.MAX_VALUE / 2]),
      { topic: 't', partition: 3 },
    ];
    const result = balance({ members: members.slice(0, 2), partitions }, { defaultWeight: 1 });
    const [a, b] = result.instances;
    expect(a!.load).toBe(b!.load);
    expect(result.heaviestWeight).toBe(Number.MAX_VALUE * result.weightScale);
    expect(result.totalWeight).toBe(2 * (Number.MAX_VALUE * result.weightScale) + result.weightScale);
  });

  it('explains them without NaN and says they were scaled', () => {
    const e = explain(balance({ members, partitions: uniform('t', 12, 1e308) }), 1);
    expect(e.skew).toMatch(/\(1\.00x\)$/);
    expect(e.skew).not.toContain('NaN');
    expect(e.skewRatio).toBe(1);
    expect(e.summary).toMatch(/weights scaled by 2\^-\d+ so sums cannot overflow/);
  });

  it('leaves ordinary weights alone', () => {
    expect(balance({ members, partitions: uniform('t', 12, 1e250) }).weightScale).toBe(1);
  });
});
