import { Pacer } from '../demo/sla/pacer';
import { busiestUtilization, predictedUtilization, roundRobinPlan, stickyGrowthPlan } from '../demo/sla/plans';
import { nextSearchStep } from '../demo/sla/search';
import { createWorkload, inverseNormal, permutation, rankShares } from '../demo/sla/workload';
import { WORKLOAD } from '../demo/sla/options';

describe('createWorkload', () => {
  it.each(['zipf', 'lognormal'] as const)(
    '%s: the heaviest partition at its share of a member, the same mix after the shift on other partitions',
    (shape) => {
      const w = createWorkload({ ...WORKLOAD, shape });
      expect(w.before).toHaveLength(32);
      expect(Math.max(...w.before)).toBeCloseTo(WORKLOAD.heaviestShare * WORKLOAD.memberRate, 9);
      expect([...w.after].sort((a, b) => a - b)).toEqual([...w.before].sort((a, b) => a - b));
      expect(w.after.indexOf(Math.max(...w.after))).not.toBe(w.before.indexOf(Math.max(...w.before)));
      expect(w.total).toBeCloseTo(
        w.before.reduce((a, b) => a + b, 0),
        9,
      );
      expect(w.lowerBound).toBe(Math.ceil(w.total / WORKLOAD.memberRate));
    },
  );

  it('is the same for the same seed and differs for another', () => {
    const a = createWorkload({ ...WORKLOAD, shape: 'zipf' });
    expect(createWorkload({ ...WORKLOAD, shape: 'zipf' }).before).toEqual(a.before);
    expect(createWorkload({ ...WORKLOAD, shape: 'zipf', seed: 7 }).before).not.toEqual(a.before);
  });

  it('ranks zipf as 1/k^s and the log-normal at evenly spaced quantiles, heaviest first', () => {
    expect(rankShares('zipf', 3, { zipfExponent: 1, sigma: 1 })).toEqual([1, 1 / 2, 1 / 3]);
    const ln = rankShares('lognormal', 4, { zipfExponent: 1, sigma: 1 });
    expect(ln[0]).toBeCloseTo(Math.exp(inverseNormal(7 / 8)), 12);
    expect(ln[1]! * ln[2]!).toBeCloseTo(1, 12); // symmetric quantiles multiply to e^0
    expect([...ln].sort((a, b) => b - a)).toEqual(ln);
  });

  it('draws a permutation of every partition', () => {
    expect([...permutation(32, 42)].sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, i) => i));
  });
});

describe('inverseNormal', () => {
  it('gives the standard normal quantiles', () => {
    expect(inverseNormal(0.5)).toBeCloseTo(0, 12);
    expect(inverseNormal(0.975)).toBeCloseTo(1.959964, 5);
    expect(inverseNormal(0.01)).toBeCloseTo(-2.326348, 5);
    expect(inverseNormal(0.999)).toBeCloseTo(3.090232, 5);
  });

  it('rejects p outside (0, 1)', () => {
    expect(() => inverseNormal(0)).toThrow(RangeError);
    expect(() => inverseNormal(1)).toThrow(RangeError);
  });
});

describe('plans', () => {
  it('deals round-robin as KafkaJS does on one topic: partition p to the (p mod N)-th member', () => {
    expect(roundRobinPlan(7, 3)).toEqual([
      [0, 3, 6],
      [1, 4],
      [2, 5],
    ]);
  });

  it('keeps the sticky plan count-balanced and every partition held once, as it grows', () => {
    for (const n of [1, 3, 5, 8, 13]) {
      const plan = stickyGrowthPlan(32, n);
      const counts = plan.map((ps) => ps.length);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      expect(plan.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, i) => i));
    }
  });

  it('moves only what the new member takes when the sticky plan grows by one', () => {
    const before = stickyGrowthPlan(32, 5);
    const after = stickyGrowthPlan(32, 6);
    const owner = (plan: number[][]): Map<number, number> => new Map(plan.flatMap((ps, m) => ps.map((p) => [p, m])));
    const was = owner(before);
    const moved = [...owner(after)].filter(([p, m]) => was.get(p) !== m).length;
    expect(moved).toBe(after[5]!.length);
  });

  it('measures the busiest member against its capacity', () => {
    expect(busiestUtilization([[0, 1], [2]], [10, 20, 25], 50)).toBeCloseTo(0.6, 12);
  });

  it('predicts load-aware no busier than round-robin or the sticky plan on a skewed workload', () => {
    const w = createWorkload({ ...WORKLOAD, shape: 'zipf' });
    for (const n of [w.lowerBound, w.lowerBound + 2, 10]) {
      const la = predictedUtilization('load-aware', w.before, n, w.memberRate);
      expect(la).toBeLessThanOrEqual(predictedUtilization('round-robin', w.before, n, w.memberRate) + 1e-9);
      expect(la).toBeLessThanOrEqual(predictedUtilization('sticky', w.before, n, w.memberRate) + 1e-9);
    }
  });
});

describe('nextSearchStep', () => {
  const never = (): boolean => false;

  it('measures the smallest size first', () => {
    expect(nextSearchStep({ from: 3, to: 10, overloaded: never, holds: new Map() })).toEqual({
      kind: 'measure',
      members: 3,
    });
  });

  it('passes over overloaded and failed sizes, and answers with the first that held', () => {
    const overloaded = (n: number): boolean => n === 3;
    expect(nextSearchStep({ from: 3, to: 10, overloaded, holds: new Map([[4, false]]) })).toEqual({
      kind: 'measure',
      members: 5,
    });
    expect(
      nextSearchStep({
        from: 3,
        to: 10,
        overloaded,
        holds: new Map([
          [4, false],
          [5, true],
        ]),
      }),
    ).toEqual({ kind: 'found', members: 5 });
  });

  it('answers with a smaller size that held even when a larger one failed (not a bisection)', () => {
    const holds = new Map([
      [4, true],
      [5, false],
    ]);
    expect(nextSearchStep({ from: 3, to: 10, overloaded: (n) => n === 3, holds })).toEqual({
      kind: 'found',
      members: 4,
    });
  });

  it('gives up when every size is overloaded or failed', () => {
    expect(nextSearchStep({ from: 3, to: 4, overloaded: (n) => n === 3, holds: new Map([[4, false]]) })).toEqual({
      kind: 'none',
    });
  });
});

describe('Pacer', () => {
  it('holds a member with queued work to exactly one message per workMs, catching up late timers', () => {
    const pacer = new Pacer(4);
    let now = 0;
    for (let i = 0; i < 100; i++) {
      now += pacer.start(now);
      // Every timer fires 0.7 ms late.
      now += 0.7;
      pacer.finished(now);
    }
    // 100 messages: 400 ms of work, and only the last timer's lateness left over.
    expect(now).toBeCloseTo(400.7, 6);
  });

  it('starts a message that arrives after an idle spell when it arrives', () => {
    const pacer = new Pacer(4);
    expect(pacer.start(0)).toBe(4);
    pacer.finished(4);
    expect(pacer.start(50)).toBe(4);
  });

  it('catches up at most MAX_CATCH_UP_MS of a stall', () => {
    const pacer = new Pacer(4);
    pacer.start(0);
    pacer.finished(100); // the process stalled 96 ms
    // Due at 4 + 4 = 8, but only 20 ms back from 100 is caught up: done at 84, so no wait.
    expect(pacer.start(100)).toBe(0);
    pacer.finished(100);
    expect(pacer.start(100)).toBe(0);
  });
});
