import { buildReport, partitionLags, renderJson, renderText } from '@load-aware/cli/internal';
import { fakeSnapshot } from './fakes';

test('lag is the end offset minus the commit; partitions without a commit have none', () => {
  const lags = partitionLags(
    [
      {
        topic: 't',
        partitions: [
          { partition: 0, offset: '40' },
          { partition: 1, offset: '-1' },
          { partition: 2, offset: '9' },
        ],
      },
    ],
    [
      {
        topic: 't',
        partitions: [
          { partition: 0, high: '100' },
          { partition: 1, high: '5' },
          { partition: 2, high: '7' },
        ],
      },
    ],
  );
  expect([...lags]).toEqual([
    ['t\u00000', 60],
    // A commit past the end (a truncated log) is no negative lag.
    ['t\u00002', 0],
  ]);
});

describe('lag in seconds and time to drain in the report', () => {
  // a holds 0,1 at 10/s and 20/s with 600 and 200 waiting; b holds 2 at 50/s with 50 waiting and
  // 3, never committed.
  const snapshot = () =>
    fakeSnapshot(
      [
        { memberId: 'a', instanceId: 'pod-a', held: [0, 1] },
        { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
      ],
      [10, 20, 50, 5],
      [
        [0, 600],
        [1, 200],
        [2, 50],
      ],
    );

  it('gives seconds behind per partition, member, instance and group, and counts apart what it cannot', () => {
    const report = buildReport(snapshot());
    expect(report.members.map((m) => [m.memberId, m.lag, m.lagSeconds, m.drainSeconds])).toEqual([
      ['a', 800, 60, undefined],
      ['b', 50, 1, undefined],
    ]);
    expect(report.instances.map((i) => i.lagSeconds)).toEqual([60, 1]);
    expect(report.partitions.map((p) => p.lagSeconds)).toEqual([60, 10, 1, undefined]);
    expect(report).toMatchObject({ totalLag: 850, lagSeconds: 60, lagUnmeasured: { no_commit: 1, no_rate: 0 } });
    expect(report.sizing).toBeUndefined();
    const text = renderText('inspect', report, { color: false, weightsLabel: 'test' });
    expect(text).toMatch(/INSTANCE +CAP +MEMBERS +PARTS +LOAD +SHARE +LOAD÷IDEAL +LAG +BEHIND/);
    expect(text).toMatch(/MEMBER .* LAG +BEHIND +LAST PAUSE/);
    expect(text).not.toContain('DRAIN');
    expect(text).toContain('total lag 850, 1m00s behind');
    expect(text).toContain('lag leaves out: 1 held partition(s) without a committed offset');
  });

  it('with a member capacity, estimates when each member and the group have drained', () => {
    const report = buildReport(snapshot(), { memberCapacity: 100 });
    // a: 800 ÷ (100 − 30); b: 50 ÷ (100 − 55), its uncommitted partition's arrivals count.
    expect(report.members[0]!.drainSeconds).toBeCloseTo(800 / 70);
    expect(report.members[1]!.drainSeconds).toBeCloseTo(50 / 45);
    expect(report.sizing?.drainSeconds).toBeCloseTo(800 / 70);
    expect(report.sizing?.slowest).toEqual({ memberId: 'a', instanceId: 'pod-a', arrivalRate: 30, lag: 800 });
    const text = renderText('inspect', report, { color: false, weightsLabel: 'test' });
    expect(text).toMatch(/LAG +BEHIND +DRAIN +LAST PAUSE/);
    expect(text).toContain('drains in 11s at 100% of the member capacity: slowest member a (pod-a), lag 800');
  });

  it('says never when a member receives at or above the capacity, and gives no seconds without a rate', () => {
    const report = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a', instanceId: 'pod-a', held: [0] },
          { memberId: 'b', instanceId: 'pod-b', held: [1] },
          { memberId: 'idle', instanceId: 'pod-c', held: [] },
        ],
        [40, 0],
        [
          [0, 100],
          [1, 7],
        ],
      ),
      { memberCapacity: 40 },
    );
    expect(report.members.map((m) => [m.memberId, m.lagSeconds, m.drainSeconds])).toEqual([
      ['a', 2.5, 'never'],
      ['b', undefined, 7 / 40],
      // Holds nothing: no seconds, nothing to drain.
      ['idle', undefined, 0],
    ]);
    expect(report.lagUnmeasured).toEqual({ no_commit: 0, no_rate: 1, not_read: 0 });
    expect(report.sizing?.drainSeconds).toBe('never');
    const text = renderText('inspect', report, { color: false, weightsLabel: 'test' });
    expect(text).toContain(
      'never drains at this load: member a (pod-a) receives 40, at or above the member capacity of 40',
    );
    expect(text).toContain('lag leaves out: 1 with messages waiting and no arrival rate (in LAG, not in BEHIND)');
    expect(JSON.parse(renderJson('inspect', report, 'test'))).toMatchObject({
      lagSeconds: 2.5,
      sizing: { drainSeconds: 'never' },
      members: [{ drainSeconds: 'never' }, { drainSeconds: 0.175 }, { drainSeconds: 0 }],
    });
  });

  it('formats durations as people read them', () => {
    const at = (lag: number) =>
      renderText(
        'inspect',
        buildReport(fakeSnapshot([{ memberId: 'a', instanceId: 'p', held: [0] }], [1], [[0, lag]])),
        {
          color: false,
          weightsLabel: 'test',
        },
      );
    expect(at(4)).toContain('total lag 4, 4.0s behind');
    expect(at(725)).toContain('total lag 725, 12m05s behind');
    expect(at(11_100)).toContain('total lag 11100, 3h05m behind');
  });
});
