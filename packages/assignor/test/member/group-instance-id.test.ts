import { claimPlace, groupInstanceIdOf } from '../../src/member/group-instance-id';

describe('groupInstanceIdOf', () => {
  it('keeps an id Kafka accepts as it is, with the place after a dot', () => {
    expect(groupInstanceIdOf('orders-7', 0)).toBe('orders-7.0');
    expect(groupInstanceIdOf('orders-7', 12)).toBe('orders-7.12');
  });

  it('rewrites ids Kafka would refuse, and keeps two of them apart by a hash', () => {
    const a = groupInstanceIdOf('pod/ä 1', 0);
    const b = groupInstanceIdOf('pod/ö 1', 0);
    for (const id of [a, b]) expect(id).toMatch(/^[A-Za-z0-9._-]{1,249}$/);
    expect(a).not.toBe(b);
    expect(a.startsWith('pod___1.h')).toBe(true);
  });

  it('stays within 249 characters for the longest instance ids', () => {
    const id = groupInstanceIdOf('x'.repeat(255), 999_999);
    expect(id.length).toBeLessThanOrEqual(249);
    expect(id).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it('is the same in every process for the same instance id and place', () => {
    expect(groupInstanceIdOf('é-pod', 3)).toBe(groupInstanceIdOf('é-pod', 3));
  });
});

describe('claimPlace', () => {
  it('numbers the consumers of one group in creation order, each group on its own', () => {
    const a = claimPlace('claim-1', 'g');
    const b = claimPlace('claim-1', 'g');
    const other = claimPlace('claim-1', 'h');
    expect([a.ordinal, b.ordinal, other.ordinal]).toEqual([0, 1, 0]);
  });

  it('gives a replacement consumer the place its predecessor freed', () => {
    const a = claimPlace('claim-2', 'g');
    const b = claimPlace('claim-2', 'g');
    a.release();
    const c = claimPlace('claim-2', 'g');
    expect(c.ordinal).toBe(0);
    expect(b.ordinal).toBe(1);
  });

  it('takes its own place back on reconnect when still free, else the lowest free one', () => {
    const a = claimPlace('claim-3', 'g');
    const b = claimPlace('claim-3', 'g');
    b.release();
    b.reclaim();
    expect(b.ordinal).toBe(1);
    a.release();
    const c = claimPlace('claim-3', 'g'); // takes 0 while a is away
    a.reclaim();
    expect([c.ordinal, a.ordinal]).toEqual([0, 2]);
    a.reclaim(); // idempotent
    expect(a.ordinal).toBe(2);
  });
});
