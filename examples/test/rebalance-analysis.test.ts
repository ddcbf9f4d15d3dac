import { Histogram, Registry } from 'prom-client';
import {
  analyzeWindow,
  gapsAround,
  groupLongestGapMs,
  heartbeatPhases,
  memberGapStats,
  normalGapMs,
  processingSteadily,
  rebalanceCount,
  spread,
  type MemberSeries,
} from '../demo/rebalance/analysis';
import { PAUSE_METRIC, pauseObservationsBetween, readPauseMetric } from '../demo/rebalance/member-metrics';
import {
  parseRebalanceArgs,
  RebalanceHelpRequested,
  RebalanceUsageError,
  runPlans,
  CAUSES,
} from '../demo/rebalance/options';
import { countCell, secondsCell } from '../demo/rebalance/report';

/** Messages every `step` ms from `from` to `to` inclusive. */
function steady(from: number, to: number, step: number): number[] {
  const times: number[] = [];
  for (let t = from; t <= to; t += step) times.push(t);
  return times;
}

/** A member processing every 10 ms from 0 to 10 000 except for a pause from `pauseFrom` to `pauseTo`. */
function pausedMember(instanceId: string, pauseFrom: number, pauseTo: number): MemberSeries {
  return { instanceId, times: [...steady(0, pauseFrom, 10), ...steady(pauseTo, 10_000, 10)] };
}

const window = { causeAt: 5000, endAt: 9000, baselineMs: 4000, thresholdMs: 200 };

describe('gapsAround', () => {
  it('starts with the gap that spans the cause and ends with the open gap to the window end', () => {
    expect(gapsAround([100, 200, 400, 700], 250, 800)).toEqual([
      [200, 400],
      [400, 700],
      [700, 800],
    ]);
  });

  it('starts at the cause when nothing was processed before it, and ignores messages after the window', () => {
    expect(gapsAround([300, 500, 900], 100, 600)).toEqual([
      [100, 300],
      [300, 500],
      [500, 600],
    ]);
  });

  it('spans the whole window for a member that processed nothing', () => {
    expect(gapsAround([], 100, 600)).toEqual([[100, 600]]);
  });
});

describe('memberGapStats', () => {
  it('measures the longest gap from the last message before the rebalance to the first after it', () => {
    const stats = memberGapStats(pausedMember('a', 5100, 6160), window);
    expect(stats.longestGapMs).toBe(1060);
    expect(stats.longestFrom).toBe(5100);
    expect(stats.longestTo).toBe(6160);
  });

  it('counts as paused only gaps above the threshold, less the normal gap of the baseline', () => {
    // Baseline 1000..5000: 400 messages 10 ms apart, so the normal gap is 10 ms.
    const stats = memberGapStats(pausedMember('a', 5100, 6160), window);
    expect(stats.normalGapMs).toBe(10);
    expect(stats.pausedMs).toBe(1050);
    const short = memberGapStats(pausedMember('b', 5100, 5250), window);
    expect(short.longestGapMs).toBe(150);
    expect(short.pausedMs).toBe(0);
  });

  it('counts a gap that started before the cause but ends after it', () => {
    const stats = memberGapStats(pausedMember('c', 4900, 5500), window);
    expect(stats.longestGapMs).toBe(600);
    // The baseline holds 390 messages in 4 s: a normal gap of 10.26 ms.
    expect(stats.pausedMs).toBeCloseTo(600 - 4000 / 390, 6);
  });

  it('reports gaps above the threshold inside the baseline as noise, apart from the window', () => {
    const times = [...steady(0, 2000, 10), ...steady(2500, 10_000, 10)];
    const stats = memberGapStats({ instanceId: 'a', times }, window);
    expect(stats.baselineGapsOverThreshold).toBe(1);
    expect(stats.baselinePausedMs).toBeGreaterThan(480);
    expect(stats.pausedMs).toBe(0);
  });
});

describe('normalGapMs', () => {
  it('is the span divided by the messages in it, and 0 without any', () => {
    expect(normalGapMs(steady(0, 1000, 5), 0, 1000)).toBe(5);
    expect(normalGapMs([], 0, 1000)).toBe(0);
  });
});

describe('analyzeWindow', () => {
  it('sums the members paused time into paused member-seconds and finds the group gap where nobody processed', () => {
    const members = [pausedMember('a', 5100, 7180), pausedMember('b', 5100, 6180), pausedMember('c', 5900, 6000)];
    const result = analyzeWindow(members, window);
    expect(result.members.map((m) => m.longestGapMs)).toEqual([2080, 1080, 100]);
    expect(result.pausedMemberSeconds).toBeCloseTo((2070 + 1070) / 1000, 6);
    // c processed until 5900 and from 6000; a and b were both stopped in between.
    expect(result.groupLongestGapMs).toBe(100);
  });

  it('gives the group gap of a whole-group stop', () => {
    expect(groupLongestGapMs([pausedMember('a', 5000, 7000), pausedMember('b', 5200, 7100)], window)).toBe(1800);
  });
});

describe('processingSteadily', () => {
  const recent = { instanceId: 'a', times: steady(0, 10_000, 20) };

  it('holds when every member processed with no gap above the threshold over the span', () => {
    expect(processingSteadily([recent], 10_000, 3000, 200)).toBe(true);
  });

  it('fails on a gap inside the span, on a member silent at its start, and on one silent at its end', () => {
    expect(processingSteadily([pausedMember('b', 8000, 8500)], 10_000, 3000, 200)).toBe(false);
    expect(processingSteadily([{ instanceId: 'c', times: steady(7500, 10_000, 20) }], 10_000, 3000, 200)).toBe(false);
    expect(processingSteadily([recent], 10_500, 3000, 200)).toBe(false);
  });
});

describe('rebalanceCount', () => {
  const hb = (instanceId: string, generationId: number, at: number) => ({ instanceId, generationId, at });

  it('is the highest generation by the window end minus the highest before the cause', () => {
    const heartbeats = [hb('a', 3, 100), hb('b', 3, 200), hb('a', 4, 1500), hb('b', 5, 2500), hb('a', 6, 9999)];
    expect(rebalanceCount(heartbeats, 1000, 3000)).toBe(2);
  });

  it('is 0 when the generation did not change, and unknown without a heartbeat before the cause', () => {
    expect(rebalanceCount([hb('a', 3, 100), hb('a', 3, 2000)], 1000, 3000)).toBe(0);
    expect(rebalanceCount([hb('a', 3, 2000)], 1000, 3000)).toBeUndefined();
  });
});

describe('heartbeatPhases', () => {
  it('gives each member its phase relative to the first and when its next heartbeat was due', () => {
    const heartbeats = [
      { instanceId: 'a', generationId: 1, at: 0 },
      { instanceId: 'b', generationId: 1, at: 1100 },
      { instanceId: 'c', generationId: 1, at: 2200 },
      { instanceId: 'a', generationId: 1, at: 3000 },
    ];
    expect(heartbeatPhases(heartbeats, ['a', 'b', 'c', 'd'], 3500, 3000)).toEqual([
      { instanceId: 'a', phaseMs: 0, dueInMs: 2500 },
      { instanceId: 'b', phaseMs: 1100, dueInMs: 600 },
      { instanceId: 'c', phaseMs: 2200, dueInMs: 1700 },
      { instanceId: 'd', phaseMs: undefined, dueInMs: undefined },
    ]);
  });
});

describe('spread and its cells', () => {
  it('gives the median and range, the mean of the middle two for an even count', () => {
    expect(spread([2.08, 1.06, 1.5])).toEqual({ median: 1.5, min: 1.06, max: 2.08, n: 3 });
    expect(spread([1, 3])?.median).toBe(2);
    expect(spread([])).toBeUndefined();
  });

  it('prints seconds and counts with their range, without one for a single run', () => {
    expect(secondsCell(spread([2.08, 1.06, 1.5]))).toBe('1.50 s (1.06–2.08)');
    expect(secondsCell(spread([0.06]))).toBe('0.06 s');
    expect(countCell(spread([1, 1, 2]))).toBe('1 (1–2)');
    expect(countCell(undefined)).toBe('n/a');
  });
});

describe('parseRebalanceArgs', () => {
  it('runs every cause, both assigners and both tunings three times by default', () => {
    const o = parseRebalanceArgs([]);
    expect(o.causes).toEqual([...CAUSES]);
    expect(o.assigners).toEqual(['load-aware', 'round-robin']);
    expect(o.tunings).toEqual(['defaults', 'tuned']);
    expect(o.repeats).toBe(3);
  });

  it('keeps causes in report order whatever order the flag lists them in', () => {
    expect(parseRebalanceArgs(['--causes', 'metadata,join']).causes).toEqual(['join', 'metadata']);
  });

  it('with --client platformatic compares load-aware eager and cooperative platformatic members through a join and a fire', () => {
    const o = parseRebalanceArgs(['--client', 'platformatic']);
    expect(o.assigners).toEqual(['platformatic-eager', 'platformatic-cooperative']);
    expect(o.causes).toEqual(['join', 'fire']);
    // Explicit lists win, in any order of the flags.
    const mixed = parseRebalanceArgs([
      '--assigners',
      'load-aware,platformatic-cooperative',
      '--client',
      'platformatic',
    ]);
    expect(mixed.assigners).toEqual(['load-aware', 'platformatic-cooperative']);
    expect(() => parseRebalanceArgs(['--client', 'rdkafka'])).toThrow(/--client rdkafka/);
  });

  it('names the flag and the value it refuses', () => {
    expect(() => parseRebalanceArgs(['--causes', 'joins'])).toThrow(RebalanceUsageError);
    expect(() => parseRebalanceArgs(['--causes', 'joins'])).toThrow(/--causes joins/);
    expect(() => parseRebalanceArgs(['--repeats', '0'])).toThrow(/--repeats 0/);
    expect(() => parseRebalanceArgs(['--bogus', '1'])).toThrow(/unknown flag --bogus/);
    expect(() => parseRebalanceArgs(['--help'])).toThrow(RebalanceHelpRequested);
  });
});

describe('runPlans', () => {
  it('skips the proactive fire for round-robin and orders runs tuning, repeat, cause, assigner', () => {
    const o = parseRebalanceArgs(['--repeats', '2', '--tunings', 'defaults']);
    const plans = runPlans(o, ['join', 'fire']);
    expect(plans.map((p) => `${String(p.repeat)} ${p.cause} ${p.assigner}`)).toEqual([
      '1 join load-aware',
      '1 join round-robin',
      '1 fire load-aware',
      '2 join load-aware',
      '2 join round-robin',
      '2 fire load-aware',
    ]);
  });
});

describe('readPauseMetric', () => {
  it('answers unavailable when nothing registered the pause histogram', async () => {
    expect(await readPauseMetric(new Registry())).toEqual({ available: false, series: [] });
  });

  it('reads the count and sum of every label set of the histogram', async () => {
    const registry = new Registry();
    const histogram = new Histogram({
      name: PAUSE_METRIC,
      help: 'pause',
      labelNames: ['group', 'cause'],
      registers: [registry],
    });
    histogram.observe({ group: 'g', cause: 'join' }, 1.5);
    histogram.observe({ group: 'g', cause: 'join' }, 0.5);
    histogram.observe({ group: 'g', cause: 'fire' }, 2);
    const { available, series } = await readPauseMetric(registry);
    expect(available).toBe(true);
    expect(series).toEqual(
      expect.arrayContaining([
        { labels: { group: 'g', cause: 'join' }, count: 2, sumSeconds: 2 },
        { labels: { group: 'g', cause: 'fire' }, count: 1, sumSeconds: 2 },
      ]),
    );
    expect(series).toHaveLength(2);
  });
});

describe('pauseObservationsBetween', () => {
  const reading = (...series: Array<[string, number, number]>) => ({
    available: true,
    series: series.map(([cause, count, sumSeconds]) => ({ labels: { group: 'g', cause }, count, sumSeconds })),
  });

  it('sums what each member observed between its two readings, by cause', () => {
    const a = [reading(['join', 1, 0.5]), reading(['join', 2, 1.5], ['fire', 1, 2])] as const;
    const b = [reading(['join', 3, 3]), reading(['join', 3, 3])] as const;
    expect(pauseObservationsBetween([a, b])).toEqual({ count: 2, sumSeconds: 3, byCause: { join: 1, fire: 1 } });
  });

  it('counts a histogram missing before the window as empty, and gives nothing when a member lacks it at the end', () => {
    expect(pauseObservationsBetween([[undefined, reading(['leave', 1, 0.25])]])?.count).toBe(1);
    expect(pauseObservationsBetween([[reading(), { available: false, series: [] }]])).toBeUndefined();
  });
});
