import { balance, type BalanceInput } from '@load-aware/assignor';
import { member, uniform } from './fixtures';

/**
 * One instance far busier than the rest (a partition only it reads, or a tiny capacity) must not
 * hide the differences among the others: the search tolerance once scaled with the busiest level
 * alone, so at 1e10 a partition of weight 1 looked like float noise and members that joined next
 * to it got nothing.
 */
function loads(input: BalanceInput): Record<string, number> {
  const result = balance(input);
  return Object.fromEntries(result.instances.map((i) => [i.instanceId, i.load]));
}

/** Instance `a` alone, holding a partition of `h` only it reads plus 12 of `t`; then `b`, `c` join. */
function scaleOut(heavyWeight: number, capacityOfA?: number): Record<string, number> {
  const partitions = [...uniform('t', 12, 1), ...uniform('h', 1, heavyWeight)];
  const alone = balance({ members: [member('a', 'a', ['t', 'h'], capacityOfA)], partitions });
  const members = [member('a', 'a', ['t', 'h'], capacityOfA), member('b', 'b', ['t']), member('c', 'c', ['t'])];
  return loads({ members, partitions, previous: alone.assignments });
}

describe('balance next to a dominant instance', () => {
  it('gives joining instances their share when one partition is 1e10 times heavier', () => {
    const result = scaleOut(1e10);
    expect(result['b']).toBe(6);
    expect(result['c']).toBe(6);
    expect(result['a']).toBe(1e10);
  });

  it('gives joining instances their share when the dominant instance has a tiny capacity', () => {
    const result = scaleOut(1e7, 1e-3);
    expect(result['b']).toBe(6);
    expect(result['c']).toBe(6);
  });

  it('balances the rest from scratch as well', () => {
    const partitions = [...uniform('t', 12, 1), ...uniform('h', 1, 1e12)];
    const members = [member('a', 'a', ['t', 'h']), member('b', 'b', ['t']), member('c', 'c', ['t'])];
    expect(loads({ members, partitions })).toEqual({ a: 1e12, b: 6, c: 6 });
  });

  it('balances members inside an instance next to a dominant member', () => {
    const partitions = [...uniform('t', 12, 1), ...uniform('h', 1, 1e10)];
    const members = [member('a1', 'a', ['t', 'h']), member('a2', 'a', ['t']), member('a3', 'a', ['t'])];
    const alone = balance({ members: [members[0]!], partitions });
    const result = balance({ members, partitions, previous: alone.assignments });
    const byMember = Object.fromEntries(result.members.map((m) => [m.memberId, m.load]));
    expect(byMember).toEqual({ a1: 1e10, a2: 6, a3: 6 });
  });
});
