import fc from 'fast-check';
import { deriveMemberCapacity, sizeGroup } from '@load-aware/assignor';

describe('deriveMemberCapacity', () => {
  it('gives events/s weights a capacity of slots ÷ seconds per message', () => {
    // 12 s of handler time for 1200 messages: 10 ms each, 100 messages/s per slot.
    const one = deriveMemberCapacity({ weights: 'events', measured: { busySeconds: 12, messages: 1200 } });
    expect(one).toEqual({ ok: true, memberCapacity: 100, secondsPerMessage: 0.01 });
    const four = deriveMemberCapacity({ weights: 'events', slots: 4, measured: { busySeconds: 12, messages: 1200 } });
    expect(four).toEqual({ ok: true, memberCapacity: 400, secondsPerMessage: 0.01 });
  });

  it('gives busy-time weights a capacity of one busy second per second per slot, measured or not', () => {
    expect(deriveMemberCapacity({ weights: 'busy' })).toEqual({
      ok: true,
      memberCapacity: 1,
      secondsPerMessage: undefined,
    });
    expect(
      deriveMemberCapacity({ weights: 'busy', slots: 3, measured: { busySeconds: Number.NaN, messages: 0 } }),
    ).toMatchObject({ ok: true, memberCapacity: 3 });
  });

  it('reports no samples before any message, and in a window without messages', () => {
    expect(deriveMemberCapacity({ weights: 'events' })).toMatchObject({ ok: false, problem: 'no_samples' });
    expect(deriveMemberCapacity({ weights: 'events', measured: { busySeconds: 0, messages: 0 } })).toMatchObject({
      ok: false,
      problem: 'no_samples',
    });
    // Time spent on messages that all failed: still nothing finished to divide by.
    expect(deriveMemberCapacity({ weights: 'events', measured: { busySeconds: 3, messages: 0 } })).toMatchObject({
      ok: false,
      problem: 'no_samples',
    });
  });

  it.each([
    [Number.NaN, 10],
    [1, Number.NaN],
    [Number.POSITIVE_INFINITY, 10],
    [1, Number.POSITIVE_INFINITY],
    [-1, 10],
    [1, -10],
    // Messages done in no time at all: an infinite capacity is no answer.
    [0, 10],
  ])('reports %p s over %p messages as invalid samples, without throwing', (busySeconds, messages) => {
    const derived = deriveMemberCapacity({ weights: 'events', measured: { busySeconds, messages } });
    expect(derived).toMatchObject({ ok: false, problem: 'invalid_samples' });
    expect(derived.ok ? '' : derived.reason).toMatch(/busy time|infinite/);
  });

  it('refuses slots that are not a positive integer', () => {
    for (const slots of [0, -1, 1.5, Number.NaN]) {
      expect(() => deriveMemberCapacity({ weights: 'busy', slots })).toThrow(RangeError);
    }
  });

  it('does not call a partition futile for a rounding error at the target load', () => {
    // 175 events/s at 4 ms a message is 0.7 busy s/s, which floating point makes 0.7000000000000001.
    const busy = sizeGroup({ partitions: [{ topic: 't', partition: 0, weight: 175 * 0.004 }], memberCapacity: 1 });
    expect(busy).toMatchObject({ futile: false, desiredMembers: 1 });
  });

  it('sizes a group alike in either unit: events at the derived capacity, or busy time at 1', () => {
    // The same load seen two ways: offset rates with a measured cost per message, and busy time
    // (rate × cost). The desired counts must not depend on which the weights are.
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 50 }),
        (rates, costMs) => {
          const seconds = costMs / 1000;
          const events = deriveMemberCapacity({
            weights: 'events',
            measured: { busySeconds: seconds * 1000, messages: 1000 },
          });
          const busy = deriveMemberCapacity({ weights: 'busy' });
          if (!events.ok || !busy.ok) return false;
          const byRate = sizeGroup({
            partitions: rates.map((weight, partition) => ({ topic: 't', partition, weight })),
            memberCapacity: events.memberCapacity,
          });
          const byBusy = sizeGroup({
            partitions: rates.map((rate, partition) => ({ topic: 't', partition, weight: rate * seconds })),
            memberCapacity: busy.memberCapacity,
          });
          return byRate.desiredMembers === byBusy.desiredMembers && byRate.futile === byBusy.futile;
        },
      ),
    );
  });
});
