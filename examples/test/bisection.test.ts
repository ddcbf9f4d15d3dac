import { bisectInterleaved, bisectionDone, initialBracket, narrow, nextRate } from '../demo/bisection.js';

describe('bisection over the rate', () => {
  const limits = { precision: 0.05, maxProbes: 6 };

  it('probes the geometric midpoint and narrows the side the verdict rules out', () => {
    const b = initialBracket(1000, 4000);
    expect(nextRate(b)).toBe(2000);
    expect(narrow(b, 2000, true)).toEqual({ low: 2000, high: 4000, lowVerified: true, highVerified: false });
    expect(narrow(b, 2000, false)).toEqual({ low: 1000, high: 2000, lowVerified: false, highVerified: true });
  });

  it('stops within the precision, at the probe budget, or when whole rates cannot split the bracket', () => {
    expect(bisectionDone(initialBracket(1000, 1049), 0, limits)).toBe(true);
    expect(bisectionDone(initialBracket(1000, 1100), 0, limits)).toBe(false);
    expect(bisectionDone(initialBracket(1000, 1100), 6, limits)).toBe(true);
    expect(bisectionDone(initialBracket(3, 4), 0, { precision: 0, maxProbes: 9 })).toBe(true);
  });

  it('brackets each threshold within 5 % in five probes from 861..2460, the keys taking turns', async () => {
    const thresholds = [900, 1414, 2168, 2400];
    const order: number[] = [];
    const result = await bisectInterleaved(thresholds, initialBracket(861, 2460), limits, (threshold, rate) => {
      order.push(threshold);
      return Promise.resolve(rate <= threshold);
    });
    expect(order).toEqual(Array.from({ length: 5 }, () => thresholds).flat());
    for (const threshold of thresholds) {
      const { bracket, rates } = result.get(threshold)!;
      expect(rates).toHaveLength(5);
      expect(bracket.low).toBeLessThanOrEqual(threshold);
      expect(bracket.high).toBeGreaterThan(threshold);
      expect(bracket.high / bracket.low).toBeLessThanOrEqual(1.05);
    }
  });

  it('probes nothing once within the precision, and reports an assumed bound as unverified', async () => {
    const probed: string[] = [];
    const narrowAlready = await bisectInterleaved(['a'], initialBracket(1000, 1040), limits, (key) => {
      probed.push(key);
      return Promise.resolve(false);
    });
    expect(probed).toEqual([]);
    expect(narrowAlready.get('a')!.bracket).toMatchObject({ low: 1000, high: 1040, lowVerified: false });
    const never = await bisectInterleaved(['a'], initialBracket(861, 2460), limits, () => Promise.resolve(false));
    expect(never.get('a')!.bracket).toMatchObject({ low: 861, lowVerified: false, highVerified: true });
  });

  it('rejects a bracket that is empty or not positive', () => {
    expect(() => initialBracket(0, 10)).toThrow(RangeError);
    expect(() => initialBracket(10, 10)).toThrow(RangeError);
  });
});
