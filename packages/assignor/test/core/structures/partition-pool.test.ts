import { TopicPartitionPool, sharedPartitions } from '../../../src/core/structures/partition-pool.js';
import { balance } from '../../../src/core/balance.js';
import type { TopicPartition } from '../../../src/core/types.js';

describe('TopicPartitionPool', () => {
  it('hands out one frozen object per (topic, partition)', () => {
    const pool = new TopicPartitionPool(100);
    const first = pool.get('orders', 3);
    expect(first).toEqual({ topic: 'orders', partition: 3 });
    expect(Object.isFrozen(first)).toBe(true);
    expect(pool.get('orders', 3)).toBe(first);
    expect(pool.get('orders', 4)).not.toBe(first);
    expect(pool.get('payments', 3)).not.toBe(first);
    expect(pool.slotsOf('orders')[3]).toBe(first);
    expect(pool.slotsOf('unknown')).toEqual([]);
  });

  it('starts over when full; objects already handed out stay valid', () => {
    const pool = new TopicPartitionPool(2);
    const a = pool.get('a', 0);
    pool.get('b', 0);
    const c = pool.get('c', 0); // the third: the pool starts over with it
    expect(pool.get('c', 0)).toBe(c);
    expect(pool.get('a', 0)).not.toBe(a);
    expect(a).toEqual({ topic: 'a', partition: 0 });
    // More than the whole capacity in one topic: handed out fresh, never pooled.
    expect(pool.get('d', 5)).not.toBe(pool.get('d', 5));
  });

  it('counts gaps as held and does not pool a number far past the highest of its topic', () => {
    const pool = new TopicPartitionPool(5000);
    const lone = pool.get('t', 900_000);
    expect(lone).toEqual({ topic: 't', partition: 900_000 });
    expect(pool.get('t', 900_000)).not.toBe(lone);
    expect(pool.slotsOf('t').length).toBe(0);
    const near = pool.get('t', 1000); // a gap of 1,000 slots is fine
    expect(pool.get('t', 1000)).toBe(near);
    expect(pool.slotsOf('t').length).toBe(1001);
    const inGap = pool.get('t', 10);
    expect(pool.get('t', 10)).toBe(inGap);
  });

  it('does not pool numbers outside 0..2^20-1 or non-integers, and never confuses them', () => {
    const pool = new TopicPartitionPool(100);
    for (const odd of [-1, 1.5, 2 ** 20, Number.MAX_SAFE_INTEGER, NaN]) {
      const made = pool.get('t', odd);
      expect(made.partition).toBe(odd);
      expect(Object.isFrozen(made)).toBe(true);
      expect(pool.get('t', odd)).not.toBe(made);
    }
    // A string partition (from an untyped caller) is kept as given, not mapped to the number.
    const asString = pool.get('t', '7' as unknown as number);
    expect(asString.partition).toBe('7');
    expect(pool.get('t', 7).partition).toBe(7);
  });
});

describe('balance() result partitions', () => {
  const input = {
    members: [
      { memberId: 'a', instanceId: 'i1', topics: ['orders'] },
      { memberId: 'b', instanceId: 'i2', topics: ['orders'] },
    ],
    partitions: Array.from({ length: 6 }, (_, p) => ({ topic: 'orders', partition: p, weight: p + 1 })),
  };

  it('are frozen values shared between calls, in lists each call owns', () => {
    const first = balance(input);
    const second = balance(input);
    const listed = (r: ReturnType<typeof balance>): TopicPartition[] => [...r.assignments.values()].flat();
    for (const p of listed(first)) expect(Object.isFrozen(p)).toBe(true);
    expect(listed(second)).toEqual(listed(first));
    expect(listed(second)[0]).toBe(listed(first)[0]);
    // The lists are the caller's: changing one changes no other result.
    first.assignments.get('a')!.pop();
    expect(listed(balance(input))).toEqual(listed(second));
    expect(() => {
      (listed(second)[0] as { partition: number }).partition = 99;
    }).toThrow(TypeError);
    expect(sharedPartitions.get('orders', 0).partition).toBe(0);
  });

  it('unassignable partitions come from the same pool', () => {
    const result = balance({
      ...input,
      partitions: [...input.partitions, { topic: 'nobody', partition: 0, weight: 1 }],
    });
    expect(result.unassignable).toEqual([{ topic: 'nobody', partition: 0 }]);
    expect(result.unassignable[0]).toBe(sharedPartitions.get('nobody', 0));
  });
});
