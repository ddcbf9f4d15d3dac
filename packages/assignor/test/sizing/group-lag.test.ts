import fc from 'fast-check';
import { groupLag, lagOf, type LagMember, type PartitionLagReading } from '@load-aware/assignor/internal';

const tp = (partition: number) => ({ topic: 'orders', partition });
const member = (memberId: string, partitions: number[], instanceId = `pod-${memberId}`): LagMember => ({
  memberId,
  instanceId,
  assigned: partitions.map(tp),
});
const lags = (...values: Array<number | undefined>): PartitionLagReading[] =>
  values.map((lag, partition) => ({ ...tp(partition), lag }));
const rates = (...values: Array<number | undefined>) =>
  values.map((weight, partition) => (weight === undefined ? tp(partition) : { ...tp(partition), weight }));

describe('lagOf', () => {
  it('is end − committed, 0 when the commit is past the end, undefined without a commit', () => {
    expect(lagOf(40, 100)).toBe(60);
    expect(lagOf(120, 100)).toBe(0);
    expect(lagOf(-1, 100)).toBeUndefined();
    expect(lagOf(Number.NaN, 100)).toBeUndefined();
    expect(lagOf(0, Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('groupLag', () => {
  it('measures lag, seconds behind and time to drain per member and for the group', () => {
    // a: 600 + 200 messages at 10/s + 20/s; b: 50 at 50/s. Capacity 100/s.
    const lag = groupLag({
      members: [member('a', [0, 1]), member('b', [2])],
      lags: lags(600, 200, 50),
      rates: rates(10, 20, 50),
      memberCapacity: 100,
    });
    const [a, b] = lag.members;
    expect(a).toMatchObject({ lag: 800, arrivalRate: 30, lagSeconds: 60 }); // 600 ÷ 10 beats 200 ÷ 20
    expect(a!.drainSeconds).toBeCloseTo(800 / 70); // the capacity left after arrivals: 100 − 30
    expect(b).toMatchObject({ lag: 50, arrivalRate: 50, lagSeconds: 1, drainSeconds: 1 });
    expect(lag).toMatchObject({ lag: 850, lagSeconds: 60, unmeasured: { no_commit: 0, no_rate: 0, not_read: 0 } });
    expect(lag.drainSeconds).toBeCloseTo(800 / 70);
    expect(lag.slowest?.memberId).toBe('a');
    expect(lag.members[0]!.partitions[0]).toEqual({
      ...tp(0),
      lag: 600,
      rate: 10,
      lagSeconds: 60,
      unmeasured: undefined,
    });
  });

  it('gives no seconds, reported apart, for a partition with messages waiting and no arrival rate', () => {
    const lag = groupLag({ members: [member('a', [0, 1, 2])], lags: lags(30, 0, 10), rates: rates(0, 0, undefined) });
    expect(lag.members[0]!.partitions.map((p) => p.lagSeconds)).toEqual([undefined, 0, undefined]);
    expect(lag.unmeasured).toEqual({ no_commit: 0, no_rate: 2, not_read: 0 });
    // Partition 1 has no lag: 0 s behind whatever its rate. No Infinity, no NaN anywhere.
    expect(lag).toMatchObject({ lag: 40, lagSeconds: 0, drainSeconds: undefined });
  });

  it('has no seconds at all when every lagging partition lacks a rate', () => {
    const lag = groupLag({ members: [member('a', [0])], lags: lags(30), rates: rates(0), memberCapacity: 10 });
    expect(lag.lagSeconds).toBeUndefined();
    // Draining needs no arrival rate: 30 at 10/s with nothing arriving.
    expect(lag.drainSeconds).toBe(3);
  });

  it('leaves partitions without a committed offset out of the lag and counts them apart', () => {
    const lag = groupLag({
      members: [member('a', [0, 1])],
      lags: lags(undefined, 20),
      rates: rates(1000, 10),
      memberCapacity: 100,
    });
    expect(lag.members[0]!.partitions[0]).toMatchObject({
      lag: undefined,
      lagSeconds: undefined,
      unmeasured: 'no_commit',
    });
    expect(lag).toMatchObject({ lag: 20, lagSeconds: 2, unmeasured: { no_commit: 1, no_rate: 0, not_read: 0 } });
    // The uncommitted partition's arrivals still take the member's capacity: 1010/s ≥ 100/s.
    expect(lag.drainSeconds).toBe('never');
  });

  it('counts held partitions the read did not answer for as not read', () => {
    const lag = groupLag({ members: [member('a', [0, 1])], lags: lags(5), rates: rates(5, 5) });
    expect(lag.unmeasured).toEqual({ no_commit: 0, no_rate: 0, not_read: 1 });
    expect(lag).toMatchObject({ lag: 5, lagSeconds: 1 });
  });

  it('says never when a member receives at or above its capacity, and the group waits for it', () => {
    const lag = groupLag({
      members: [member('a', [0]), member('b', [1]), member('c', [2])],
      lags: lags(10, 10, 0),
      rates: rates(100, 50, 500),
      memberCapacity: 100,
    });
    expect(lag.members.map((m) => m.drainSeconds)).toEqual(['never', 0.2, 0]);
    expect(lag.drainSeconds).toBe('never');
    expect(lag.slowest?.memberId).toBe('a');
    // c is far above its capacity but has nothing waiting: nothing to drain.
    expect(lag.members[2]!.drainSeconds).toBe(0);
  });

  it('gives members without partitions no lag and nothing to drain', () => {
    const lag = groupLag({
      members: [member('idle', []), member('a', [0])],
      lags: lags(0),
      rates: rates(5),
      memberCapacity: 10,
    });
    expect(lag.members[0]).toMatchObject({ lag: 0, arrivalRate: 0, lagSeconds: undefined, drainSeconds: 0 });
    expect(lag).toMatchObject({ lag: 0, lagSeconds: 0, drainSeconds: 0, slowest: undefined });
    expect(groupLag({ members: [], lags: [], rates: [], memberCapacity: 10 })).toMatchObject({
      lag: 0,
      lagSeconds: undefined,
      drainSeconds: 0,
      slowest: undefined,
    });
  });

  it('without a capacity, names the member furthest behind in seconds', () => {
    const lag = groupLag({ members: [member('a', [0]), member('b', [1])], lags: lags(10, 10), rates: rates(10, 1) });
    expect(lag.drainSeconds).toBeUndefined();
    expect(lag.members.map((m) => m.drainSeconds)).toEqual([undefined, undefined]);
    expect(lag.slowest?.memberId).toBe('b');
  });

  it('takes the largest usable rate of a partition listed twice, and ignores unusable ones', () => {
    const lag = groupLag({
      members: [member('a', [0])],
      lags: lags(100),
      rates: [
        { ...tp(0), weight: 10 },
        { ...tp(0), weight: 50 },
        { ...tp(0), weight: Number.NaN },
        { ...tp(0), weight: -3 },
      ],
    });
    expect(lag.lagSeconds).toBe(2);
  });

  it('refuses a capacity that is not a positive number', () => {
    for (const memberCapacity of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => groupLag({ members: [], lags: [], rates: [], memberCapacity })).toThrow(RangeError);
    }
  });

  it('never answers Infinity or NaN, and the group figures bound every member', () => {
    const value = fc.option(fc.nat({ max: 10_000 }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(value, fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1000, noNaN: true }))), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.double({ min: 0.1, max: 2000, noNaN: true }),
        (cells, memberCount, memberCapacity) => {
          const members = Array.from({ length: memberCount }, (_, i) =>
            member(
              `m${String(i)}`,
              cells.flatMap((_, p) => (p % memberCount === i ? [p] : [])),
            ),
          );
          const lag = groupLag({
            members,
            lags: lags(...cells.map(([l]) => l)),
            rates: rates(...cells.map(([, r]) => r)),
            memberCapacity,
          });
          const finite = (v: number | 'never' | undefined) => v === undefined || v === 'never' || Number.isFinite(v);
          for (const m of lag.members) {
            expect(finite(m.lagSeconds) && finite(m.drainSeconds)).toBe(true);
            if (m.lagSeconds !== undefined) expect(lag.lagSeconds).toBeGreaterThanOrEqual(m.lagSeconds);
            if (typeof m.drainSeconds === 'number' && lag.drainSeconds !== 'never')
              expect(lag.drainSeconds).toBeGreaterThanOrEqual(m.drainSeconds);
          }
          expect(finite(lag.lagSeconds) && finite(lag.drainSeconds)).toBe(true);
          const counted = lag.unmeasured.no_commit + lag.unmeasured.no_rate + lag.unmeasured.not_read;
          expect(counted).toBeLessThanOrEqual(cells.length);
        },
      ),
    );
  });
});
