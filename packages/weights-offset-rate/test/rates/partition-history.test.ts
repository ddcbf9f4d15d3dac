import fc from 'fast-check';
import { MAX_SAMPLES_PER_WINDOW, PartitionHistory, type RateWindow } from '@load-aware/weights-offset-rate/internal';

const window: RateWindow = { rateIntervalMs: 60_000, slackMs: 7_500, smoothingHalfLifeMs: 0 };

describe('PartitionHistory', () => {
  it('has no rate before two samples', () => {
    const h = new PartitionHistory(window);
    expect(h.rate()).toBeUndefined();
    h.record(0, 10n);
    expect(h.rate()).toBeUndefined();
    h.record(1000, 110n);
    expect(h.rate()).toBe(100);
  });

  it('measures from the oldest sample within rateIntervalMs (plus slack) of the newest', () => {
    const h = new PartitionHistory(window);
    h.record(0, 0n);
    h.record(30_000, 3000n);
    h.record(67_000, 3000n); // 0 is 67 s old: within 60 s + 7.5 s slack
    expect(h.rate()).toBeCloseTo(3000 / 67, 9);
    h.record(68_000, 3000n); // 0 falls out; 30 s is the oldest
    expect(h.rate()).toBe(0);
  });

  it('starts over when the offset goes backwards, giving no rate until the next sample', () => {
    const h = new PartitionHistory(window);
    h.record(0, 5000n);
    h.record(15_000, 6500n);
    expect(h.record(30_000, 20n)).toBe('reset');
    expect(h.rate()).toBeUndefined();
    expect(h.record(45_000, 170n)).toBe('recorded');
    expect(h.rate()).toBe(10);
  });

  it('computes exactly with int64 offsets beyond 2^53', () => {
    const h = new PartitionHistory(window);
    const big = 2n ** 62n;
    h.record(0, big);
    h.record(2000, big + 3n);
    expect(h.rate()).toBe(1.5);
  });

  it('keeps the later reading when two samples share a timestamp', () => {
    const h = new PartitionHistory(window);
    h.record(0, 0n);
    h.record(1000, 100n);
    h.record(1000, 200n);
    expect(h.size).toBe(2);
    expect(h.rate()).toBe(200);
  });

  it('holds a bounded number of samples however densely it is fed', () => {
    const h = new PartitionHistory({ rateIntervalMs: 3_600_000, slackMs: 500, smoothingHalfLifeMs: 0 });
    for (let t = 0; t <= 7_200_000; t += 1000) h.record(t, BigInt(t));
    expect(h.size).toBeLessThanOrEqual(MAX_SAMPLES_PER_WINDOW + 2);
    expect(h.rate()).toBeCloseTo(1000, 9);
  });

  it('measures the slope of steadily growing offsets exactly, whatever the sampling jitter (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(fc.integer({ min: 1000, max: 30_000 }), { minLength: 1, maxLength: 40 }),
        (perSecond, gaps) => {
          const h = new PartitionHistory(window);
          let t = 0;
          h.record(t, 0n);
          for (const gap of gaps) {
            t += gap;
            // Offsets exactly proportional to time (per ms), so every window must see the slope.
            h.record(t, BigInt(perSecond) * BigInt(t));
          }
          const rate = h.rate();
          return rate !== undefined && Math.abs(rate - perSecond * 1000) <= 1e-6 * Math.max(1, perSecond * 1000);
        },
      ),
    );
  });

  describe('with smoothing', () => {
    const smoothed: RateWindow = { ...window, smoothingHalfLifeMs: 60_000 };

    it('starts from the first rate, never from 0', () => {
      const h = new PartitionHistory(smoothed);
      h.record(0, 0n);
      h.record(15_000, 15_000n);
      expect(h.weight()).toBe(1000);
    });

    it('moves half-way to a new steady rate per half-life, and starts over after a reset', () => {
      const h = new PartitionHistory({ ...smoothed, rateIntervalMs: 15_000 });
      h.record(0, 0n);
      h.record(15_000, 15_000n); // 1000/s
      h.record(75_000, 15_000n); // window 15 s holds only the newest: no new rate yet
      h.record(90_000, 15_000n); // window rate 0, 75 s after the last smoothed value
      expect(h.weight()).toBeCloseTo(1000 * Math.pow(2, -75 / 60), 9);
      h.record(105_000, 0n);
      expect(h.weight()).toBeUndefined();
    });
  });
});
