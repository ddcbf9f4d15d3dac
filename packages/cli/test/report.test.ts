import { buildReport, checkGroup, CliError } from '@load-aware/cli/internal';
import { fakeGroup, fakeSnapshot } from './fakes';

describe('buildReport', () => {
  // a holds 0,1 (90 + 10), b holds 2,3 (10 + 10): total 120, ideal 60 per instance.
  const skewed = () =>
    fakeSnapshot(
      [
        { memberId: 'a', instanceId: 'pod-a', held: [0, 1] },
        { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
      ],
      [90, 10, 10, 10],
      [
        [0, 5],
        [2, 7],
      ],
    );

  it('gives per instance and member loads, shares, busiest ÷ ideal and lag', () => {
    const report = buildReport(skewed());
    expect(report.totalLoad).toBe(120);
    expect(report.idealLoad).toBe(60);
    expect(report.ratio).toBeCloseTo(100 / 60);
    expect(report.instances.map((i) => [i.instanceId, i.load, i.share, i.lag, i.source])).toEqual([
      ['pod-a', 100, 100 / 120, 5, 'userData'],
      ['pod-b', 20, 20 / 120, 7, 'userData'],
    ]);
    expect(report.members.map((m) => [m.memberId, m.partitions, m.load])).toEqual([
      ['a', ['t:0', 't:1'], 100],
      ['b', ['t:2', 't:3'], 20],
    ]);
    expect(report.totalLag).toBe(12);
    expect(report).toMatchObject({ partitionCount: 4, weighed: 4, defaulted: 0, membersWithoutUserData: 0 });
  });

  it('gives the member ratio the trigger judges: busiest member now ÷ planned, for instances of two members or more', () => {
    // pod-a's members hold 90 and 10 + 10: balance() keeps 90 alone, so the busiest stays 90.
    const even = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a1', instanceId: 'pod-a', held: [0] },
          { memberId: 'a2', instanceId: 'pod-a', held: [1, 2] },
          { memberId: 'b', instanceId: 'pod-b', held: [3] },
        ],
        [90, 10, 10, 10],
      ),
    );
    expect(even.memberRatio.ratio).toBe(1);
    // a1 holds 30 + 30, a2 nothing: the plan splits them, 60 ÷ 30.
    const skewedMembers = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a1', instanceId: 'pod-a', held: [0, 1] },
          { memberId: 'a2', instanceId: 'pod-a', held: [] },
          { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
        ],
        [30, 30, 30, 30],
      ),
    );
    expect(skewedMembers.memberRatio.instanceId).toBe('pod-a');
    expect(skewedMembers.memberRatio.ratio).toBeCloseTo(2);
    expect(buildReport(skewed()).memberRatio).toEqual({ ratio: 1, instanceId: undefined });
  });

  it("proposes balance()'s moves from the current owners, never worse than now", () => {
    const report = buildReport(skewed());
    expect(report.proposedRatio).toBeLessThanOrEqual(report.ratio);
    expect(report.proposedRatio).toBeCloseTo(90 / 60);
    expect(report.moves).toEqual([
      {
        partition: 't:1',
        weight: 10,
        from: { memberId: 'a', instanceId: 'pod-a' },
        to: { memberId: 'b', instanceId: 'pod-b' },
      },
    ]);
    expect(buildReport(skewed(), { maxMovesPerRebalance: 0 }).moves).toEqual([]);
  });

  it('keeps loads, shares and ratios in one unit when balance() scales weights against overflow', () => {
    const huge = Number.MAX_VALUE / 2;
    const report = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a', instanceId: 'pod-a', held: [0, 1] },
          { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
        ],
        [huge, huge, huge, huge],
      ),
    );
    expect(report.weightScale).toBeLessThan(1);
    expect(Number.isFinite(report.totalLoad)).toBe(true);
    expect(report.ratio).toBeCloseTo(1);
    expect(report.instances.map((i) => [i.share, i.ratio])).toEqual([
      [0.5, 1],
      [0.5, 1],
    ]);
    expect(report.instances[0]!.load).toBeCloseTo(report.totalLoad / 2);
  });

  it('leaves out topics the cluster does not know, from subscriptions and from held partitions', () => {
    const base = skewed();
    const snapshot = {
      ...base,
      group: {
        ...base.group,
        members: base.group.members.map((m) => ({
          ...m,
          topics: [...m.topics, 'gone'],
          assigned: [...m.assigned, { topic: 'gone', partition: m.memberId === 'a' ? 0 : 1 }],
        })),
      },
      missingTopics: ['gone'],
    };
    const report = buildReport(snapshot);
    expect(report.missingTopics).toEqual(['gone']);
    expect(report.partitionCount).toBe(4);
    expect(report.totalLoad).toBe(120);
    expect(report.members.map((m) => m.partitions)).toEqual([
      ['t:0', 't:1'],
      ['t:2', 't:3'],
    ]);
    expect(report.moves.every((m) => m.partition.startsWith('t:'))).toBe(true);
    expect(buildReport(skewed()).missingTopics).toEqual([]);
  });

  it('divides by capacity, the largest a member of the instance reports', () => {
    const report = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a', instanceId: 'big', capacity: 3, held: [0, 1, 2] },
          { memberId: 'b', instanceId: 'small', held: [3] },
        ],
        [10, 10, 10, 10],
      ),
    );
    expect(report.idealLoad).toBe(10);
    expect(report.instances.map((i) => [i.instanceId, i.capacity, i.ratio])).toEqual([
      ['big', 3, 1],
      ['small', 1, 1],
    ]);
    expect(report.ratio).toBe(1);
    expect(report.moves).toEqual([]);
  });

  it('groups members without load-aware userData by client host and says so', () => {
    const report = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a', held: [0], loadAware: false, host: '/10.0.0.1' },
          { memberId: 'b', held: [1], loadAware: false, host: '/10.0.0.1' },
          { memberId: 'c', held: [2], loadAware: false, host: '/10.0.0.2' },
        ],
        [1, 1, 1],
      ),
    );
    expect(report.membersWithoutUserData).toBe(3);
    expect(report.instances.map((i) => [i.instanceId, i.source, i.memberIds])).toEqual([
      ['host:10.0.0.1', 'clientHost', ['a', 'b']],
      ['host:10.0.0.2', 'clientHost', ['c']],
    ]);
  });

  it('groups them by client id instead when asked, for processes that share a host', () => {
    const report = buildReport(
      fakeSnapshot(
        [
          { memberId: 'a', held: [0, 1], loadAware: false },
          { memberId: 'b', held: [2], loadAware: false },
        ],
        [1, 1, 1],
      ),
      { instanceFrom: 'client-id' },
    );
    expect(report.instances.map((i) => [i.instanceId, i.source, i.memberIds])).toEqual([
      ['client:client-a', 'clientId', ['a']],
      ['client:client-b', 'clientId', ['b']],
    ]);
    // Two instances now, so the 2-vs-1 split shows: busiest 2 ÷ ideal 1.5.
    expect(report.ratio).toBeCloseTo(4 / 3, 10);
  });

  it("gives such instances the capacity asked for: a number, or their member count; never a load-aware one's", () => {
    // host 10.0.0.1 runs a and b, host 10.0.0.2 runs c; pod-d is load-aware with capacity 1.
    const snapshot = fakeSnapshot(
      [
        { memberId: 'a', held: [0], loadAware: false, host: '/10.0.0.1' },
        { memberId: 'b', held: [1], loadAware: false, host: '/10.0.0.1' },
        { memberId: 'c', held: [2], loadAware: false, host: '/10.0.0.2' },
        { memberId: 'd', instanceId: 'pod-d', held: [3] },
      ],
      [1, 1, 1, 1],
    );
    const capacities = (foreignCapacity?: number | 'members') =>
      buildReport(snapshot, { foreignCapacity }).instances.map((i) => [i.instanceId, i.capacity]);
    expect(capacities()).toEqual([
      ['host:10.0.0.1', 1],
      ['host:10.0.0.2', 1],
      ['pod-d', 1],
    ]);
    expect(capacities('members')).toEqual([
      ['host:10.0.0.1', 2],
      ['host:10.0.0.2', 1],
      ['pod-d', 1],
    ]);
    expect(capacities(4)).toEqual([
      ['host:10.0.0.1', 4],
      ['host:10.0.0.2', 4],
      ['pod-d', 1],
    ]);
    // By member count, two partitions on the two-member host is exactly its share.
    const byMembers = buildReport(snapshot, { foreignCapacity: 'members' });
    expect(byMembers.ratio).toBeCloseTo(1, 10);
  });

  it('counts unweighed partitions at the default weight and reports them', () => {
    const report = buildReport(fakeSnapshot([{ memberId: 'a', instanceId: 'p', held: [0, 1] }], [5, undefined]));
    expect(report).toMatchObject({ weighed: 1, defaulted: 1, totalLoad: 6 });
    expect(report.partitions).toEqual([
      { partition: 't:0', weight: 5, weighed: true, memberId: 'a', lag: undefined },
      { partition: 't:1', weight: 1, weighed: false, memberId: 'a', lag: undefined },
    ]);
  });

  it('refuses to judge without any weight', () => {
    expect(() => buildReport(fakeSnapshot([{ memberId: 'a', held: [0] }], [undefined]))).toThrow(
      new CliError("no weights: the weight source measured none of the group's 1 partitions"),
    );
  });
});

describe('checkGroup', () => {
  it('names a dead or unknown group, an empty one and one in a rebalance', () => {
    expect(() => {
      checkGroup(fakeGroup([], 'Dead'));
    }).toThrow("group 'g' does not exist (state Dead)");
    expect(() => {
      checkGroup(fakeGroup([], 'Empty'));
    }).toThrow("group 'g' has no members (state Empty)");
    expect(() => {
      checkGroup(fakeGroup([{ memberId: 'a', held: [] }], 'PreparingRebalance'));
    }).toThrow("group 'g' is rebalancing (state PreparingRebalance); try again");
    expect(() => {
      checkGroup(fakeGroup([{ memberId: 'a', held: [] }]));
    }).not.toThrow();
  });
});
