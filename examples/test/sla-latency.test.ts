import {
  bucketOf,
  bucketUpperMs,
  LatencyRecorder,
  mergeTallies,
  MIN_BUCKET,
  quantile,
  windowStats,
  type Tallies,
} from '../demo/sla/latency';

const SLA = 1000;

describe('bucketOf', () => {
  it('ends bucket 0 exactly at the SLA, so p99 ≤ SLA reads the same from buckets as from counts', () => {
    expect(bucketOf(SLA, SLA)).toBe(0);
    expect(bucketUpperMs(0, SLA)).toBe(SLA);
    expect(bucketOf(SLA + 0.5, SLA)).toBe(1);
    expect(bucketOf(SLA - 0.5, SLA)).toBe(0);
  });

  it('keeps every latency within 2% of its bucket’s upper edge', () => {
    for (const ms of [0.5, 3, 17, 250, 999, 1001, 4321, 123_456]) {
      const upper = bucketUpperMs(bucketOf(ms, SLA), SLA);
      expect(upper).toBeGreaterThanOrEqual(ms * (1 - 1e-9));
      expect(upper).toBeLessThan(ms * 1.02 + 1e-9);
    }
  });

  it('puts zero, negative and tiny latencies in the lowest bucket', () => {
    expect(bucketOf(0, SLA)).toBe(MIN_BUCKET);
    expect(bucketOf(-3, SLA)).toBe(MIN_BUCKET);
    expect(bucketOf(1e-6, SLA)).toBe(MIN_BUCKET);
  });
});

describe('quantile', () => {
  it('is the nearest-rank quantile: the upper edge of the bucket holding the ⌈q × n⌉-th value', () => {
    const done = { [String(bucketOf(10, SLA))]: 98, [String(bucketOf(2000, SLA))]: 2 };
    expect(quantile(done, {}, 0.98, SLA).ms).toBeCloseTo(bucketUpperMs(bucketOf(10, SLA), SLA), 9);
    expect(quantile(done, {}, 0.99, SLA).ms).toBeCloseTo(bucketUpperMs(bucketOf(2000, SLA), SLA), 9);
    expect(quantile(done, {}, 0.5, SLA).atLeast).toBe(false);
  });

  it('reports a quantile that reaches an unprocessed message as a lower bound', () => {
    const done = { [String(bucketOf(10, SLA))]: 990 };
    const censored = { [String(bucketOf(1500, SLA))]: 10 };
    expect(quantile(done, censored, 0.99, SLA)).toEqual({ ms: bucketUpperMs(bucketOf(10, SLA), SLA), atLeast: false });
    expect(quantile(done, censored, 0.999, SLA)).toEqual({
      ms: bucketUpperMs(bucketOf(1500, SLA), SLA),
      atLeast: true,
    });
  });

  it('is NaN for an empty window', () => {
    expect(quantile({}, {}, 0.99, SLA).ms).toBeNaN();
  });
});

describe('windowStats', () => {
  /** Tallies of `count` messages produced in `second`, each processed after `latencyMs`. */
  function tallied(entries: Array<[second: number, count: number, latencyMs: number]>): Tallies {
    const recorder = new LatencyRecorder(SLA);
    for (const [second, count, latency] of entries) {
      for (let i = 0; i < count; i++) recorder.record(second * 1000 + 500, second * 1000 + 500 + latency);
    }
    return recorder.drain();
  }

  it('reads only the produce seconds of the window, and the share within the SLA of what was produced', () => {
    const tallies = tallied([
      [99, 50, 5000],
      [100, 90, 20],
      [100, 10, 1500],
      [101, 100, 30],
      [102, 70, 9000],
    ]);
    const w = windowStats({
      tallies,
      produced: { '99': 50, '100': 100, '101': 100, '102': 70 },
      fromSecond: 100,
      toSecond: 102,
      stopAtMs: 110_000,
      slaMs: SLA,
    });
    expect(w).toMatchObject({ produced: 200, processed: 200, unprocessed: 0, withinSla: 190 / 200 });
    expect(w.p50.ms).toBeLessThan(40);
    expect(w.p99.ms).toBeGreaterThan(1500);
    expect(w.p99.atLeast).toBe(false);
  });

  it('counts what was produced but never processed as outside the SLA, waiting at least until the stop', () => {
    const tallies = tallied([[100, 60, 20]]);
    const w = windowStats({
      tallies,
      produced: { '100': 100 },
      fromSecond: 100,
      toSecond: 101,
      stopAtMs: 104_000,
      slaMs: SLA,
    });
    expect(w).toMatchObject({ produced: 100, processed: 60, unprocessed: 40, withinSla: 0.6 });
    // 40 messages waited at least 104 s − 101 s = 3 s.
    expect(w.p99).toEqual({ ms: bucketUpperMs(bucketOf(3000, SLA), SLA), atLeast: true });
  });

  it('never lets a duplicate hide a message of the same second that was not processed', () => {
    const tallies = tallied([[100, 120, 20]]);
    const w = windowStats({
      tallies,
      produced: { '100': 100 },
      fromSecond: 100,
      toSecond: 101,
      stopAtMs: 0,
      slaMs: SLA,
    });
    expect(w).toMatchObject({ produced: 100, processed: 100, withinSla: 1 });
  });
});

describe('mergeTallies', () => {
  it('adds counts and histograms second by second', () => {
    const a = new LatencyRecorder(SLA);
    const b = new LatencyRecorder(SLA);
    a.record(5_000, 5_010);
    b.record(5_200, 5_210);
    b.record(6_000, 8_000);
    const into: Tallies = {};
    mergeTallies(into, a.drain());
    mergeTallies(into, b.drain());
    expect(into['5']).toEqual({ processed: 2, withinSla: 2, histogram: { [String(bucketOf(10, SLA))]: 2 } });
    expect(into['6']).toMatchObject({ processed: 1, withinSla: 0 });
    expect(a.drain()).toEqual({});
  });
});
