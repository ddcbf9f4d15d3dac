import { judgeLag, LAG_RULE, leastSquaresSlope } from '../demo/lag-verdict.js';

const t = Array.from({ length: 40 }, (_, i) => i);
/** A series starting at `start` and changing by `slope` per second, with a ±`saw` batch sawtooth. */
const line = (start: number, slope: number, saw = 0): number[] =>
  t.map((s) => Math.max(0, start + slope * s + (s % 2 === 0 ? saw : -saw)));

describe('leastSquaresSlope', () => {
  it('recovers the slope of a line, and is 0 without a spread of times', () => {
    expect(leastSquaresSlope(t, line(100, 3))).toBeCloseTo(3, 10);
    expect(leastSquaresSlope(t, line(5000, -40))).toBeCloseTo(-40, 10);
    expect(leastSquaresSlope([1], [5])).toBe(0);
    expect(leastSquaresSlope([2, 2, 2], [1, 5, 9])).toBe(0);
  });
});

describe('judgeLag (1 % growth, 10 s final lag, 8 samples)', () => {
  const rate = 2000; // growth limit 20 msg/s, final lag limit 20,000

  it('is bounded when every member holds or drains its lag, sawtooth and all', () => {
    const v = judgeLag(t, { a: line(800, 0, 150), b: line(3000, -60), c: line(400, 0.5, 80) }, rate);
    expect(v).toMatchObject({ bounded: true, reason: 'bounded', growthLimit: 20, finalLagLimit: 20_000 });
    expect(v.growth).toBeLessThan(1);
  });

  it('is not bounded when one member falls behind, even while the others drain so the total falls', () => {
    const v = judgeLag(t, { hot: line(1000, 30), b: line(6000, -80), c: line(6000, -80) }, rate);
    expect(v.totalSlope).toBeLessThan(0);
    expect(v.growth).toBeCloseTo(30, 5);
    expect(v).toMatchObject({ bounded: false, reason: 'growing' });
  });

  it('tolerates growth up to 1 % of the rate', () => {
    expect(judgeLag(t, { a: line(1000, 19) }, rate).bounded).toBe(true);
    expect(judgeLag(t, { a: line(1000, 21) }, rate).reason).toBe('growing');
  });

  it('is not bounded when flat but more than 10 s of traffic behind', () => {
    expect(judgeLag(t, { a: line(25_000, 0) }, rate)).toMatchObject({ bounded: false, reason: 'final-lag' });
  });

  it('gives no verdict on fewer samples than the rule asks for', () => {
    const few = t.slice(0, LAG_RULE.minSamples - 1);
    expect(judgeLag(few, { a: few.map(() => 0) }, rate)).toMatchObject({ bounded: false, reason: 'too-few-samples' });
  });
});
