import { manualClock } from '@load-aware/test-support';
import {
  createUnheldGuard,
  partitionsText,
  subscribedTopics,
  unheldPartitions,
  type ObservedMember,
} from '@load-aware/trigger/internal';

const member = (memberId: string, topics: string[], assigned: Array<[string, number]>): ObservedMember => ({
  memberId,
  instanceId: `pod-${memberId}`,
  topics,
  assigned: assigned.map(([topic, partition]) => ({ topic, partition })),
});

describe('unheldPartitions', () => {
  const members = [
    member(
      'a',
      ['orders'],
      [
        ['orders', 0],
        ['orders', 1],
      ],
    ),
    member(
      'b',
      ['orders', 'payments'],
      [
        ['orders', 2],
        ['orders', 3],
      ],
    ),
  ];

  it('lists the partitions the broker lists for subscribed topics and no member holds, sorted', () => {
    const listed = [
      { topic: 'payments', partitions: [1, 0] },
      { topic: 'orders', partitions: [0, 1, 2, 3, 5, 4] },
    ];
    expect(unheldPartitions(members, listed)).toEqual([
      { topic: 'orders', partition: 4 },
      { topic: 'orders', partition: 5 },
      { topic: 'payments', partition: 0 },
      { topic: 'payments', partition: 1 },
    ]);
  });

  it('ignores topics no member subscribes to, and is empty when every partition is held', () => {
    expect(
      unheldPartitions(members, [
        { topic: 'orders', partitions: [0, 1, 2, 3] },
        { topic: 'audit', partitions: [0] },
      ]),
    ).toEqual([]);
  });

  it('counts a partition held by a member that does not subscribe to its topic as held', () => {
    const odd = [member('a', ['orders'], [['payments', 0]]), member('b', ['payments'], [])];
    expect(unheldPartitions(odd, [{ topic: 'payments', partitions: [0] }])).toEqual([]);
  });
});

describe('subscribedTopics', () => {
  it('is the union of the subscriptions, sorted, each once', () => {
    expect(subscribedTopics([member('a', ['z', 'a'], []), member('b', ['a', 'm'], [])])).toEqual(['a', 'm', 'z']);
  });
});

describe('partitionsText', () => {
  it('names each topic with its partitions as ranges', () => {
    const ps = [0, 2, 4, 5, 6, 7].map((partition) => ({ topic: 'orders', partition }));
    expect(partitionsText([...ps, { topic: 'payments', partition: 9 }])).toBe('orders[0, 2, 4-7], payments[9]');
  });

  it('names at most 20 ranges of a topic, counting the rest', () => {
    const scattered = Array.from({ length: 30 }, (_, i) => ({ topic: 'orders', partition: 2 * i }));
    expect(partitionsText(scattered)).toMatch(/^orders\[0, 2, 4, .*, 38, … \+10\]$/);
  });

  it('stays one line for many topics', () => {
    const ps = Array.from({ length: 25 }, (_, i) => ({ topic: `t${String(i).padStart(2, '0')}`, partition: 0 }));
    expect(partitionsText(ps, 2)).toBe('t00[0], t01[0] and 23 more topics');
  });
});

describe('createUnheldGuard', () => {
  const added = [
    { topic: 'orders', partition: 4 },
    { topic: 'orders', partition: 5 },
  ];

  function setup() {
    const clock = manualClock(0);
    const guard = createUnheldGuard({ retryMs: 60_000, maxRetryMs: 300_000, monotonicNow: clock.now });
    return { clock, guard };
  }

  it('does nothing while every partition is held', () => {
    const { guard } = setup();
    expect(guard.observe([], 0)).toEqual({ kind: 'held', afterAttempts: 0 });
  });

  it('forces at once for partitions seen unheld the first time, with no hysteresis', () => {
    const { guard } = setup();
    expect(guard.observe(added, 0)).toEqual({ kind: 'force', attempt: 1, nextRetryMs: 60_000 });
  });

  it('waits, not forcing again, while the forced rebalance has not happened', () => {
    const { clock, guard } = setup();
    guard.observe(added, 0);
    clock.t += 3000;
    expect(guard.observe(added, 0)).toEqual({ kind: 'wait', attempt: 1, retryInMs: 57_000, failed: false });
  });

  it('reports once that a rebalance left them unheld, then retries with a doubling wait up to the maximum', () => {
    const { clock, guard } = setup();
    guard.observe(added, 0);
    clock.t += 3000;
    expect(guard.observe(added, 1)).toMatchObject({ kind: 'wait', failed: true });
    clock.t += 3000;
    expect(guard.observe(added, 1)).toMatchObject({ kind: 'wait', failed: false });
    const forces: number[] = [];
    for (let s = 6; s <= 1800; s += 3) {
      clock.t += 3000;
      if (guard.observe(added, 1).kind === 'force') forces.push(s + 3);
    }
    // 60 s, then 120, 240, then 300 s (the maximum) between attempts.
    expect(forces).toEqual([60, 180, 420, 720, 1020, 1320, 1620]);
  });

  it('forces at once for partitions added while it waits, and starts their retries over', () => {
    const { clock, guard } = setup();
    guard.observe(added, 0);
    clock.t += 3000;
    const more = [...added, { topic: 'orders', partition: 6 }];
    expect(guard.observe(more, 0)).toEqual({ kind: 'force', attempt: 1, nextRetryMs: 60_000 });
    clock.t += 3000;
    expect(guard.observe(more, 0)).toMatchObject({ kind: 'wait' });
  });

  it('ends the episode when all are held, reporting how many forces it took', () => {
    const { clock, guard } = setup();
    guard.observe(added, 0);
    clock.t += 60_000;
    guard.observe(added, 1);
    expect(guard.observe([], 2)).toEqual({ kind: 'held', afterAttempts: 2 });
    expect(guard.observe(added, 2)).toMatchObject({ kind: 'force', attempt: 1 });
  });
});
