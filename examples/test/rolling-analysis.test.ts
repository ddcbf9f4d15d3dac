import type { GenerationRecord, PhaseRecord, Sample } from '../demo/record';
import {
  imbalanceSeconds,
  isSettled,
  ownersOf,
  sampleRatio,
  stepTable,
  summarizeRolling,
  totalsTable,
  transition,
  type RollingRun,
} from '../demo/rolling-analysis';
import { parseRollingArgs, RollingHelpRequested, RollingUsageError, settleQuietMs } from '../demo/rolling-options';

type Members = Record<string, number[]>;

/** A generation whose members are `member id → partitions`; the instance is the id's prefix before '#'. */
function gen(generationId: number, t: number, members: Members, leader?: string): GenerationRecord {
  const leaderMemberId = leader ?? Object.keys(members)[0];
  return {
    generationId,
    t,
    leaderInstance: leaderMemberId?.split('#')[0],
    leaderMemberId,
    members: Object.entries(members).map(([memberId, partitions]) => ({
      memberId,
      instanceId: memberId.split('#')[0]!,
      partitions,
    })),
  };
}

describe('ownersOf', () => {
  it('maps every partition to its member when each is held exactly once', () => {
    expect(ownersOf(gen(1, 0, { 'a#1': [0, 2], 'b#1': [1] }), 3)).toEqual(
      new Map([
        [0, 'a#1'],
        [2, 'a#1'],
        [1, 'b#1'],
      ]),
    );
  });

  it('is undefined when a partition is missing, held twice or out of range', () => {
    expect(ownersOf(gen(1, 0, { 'a#1': [0], 'b#1': [1] }), 3)).toBeUndefined();
    expect(ownersOf(gen(1, 0, { 'a#1': [0, 1], 'b#1': [1, 2] }), 3)).toBeUndefined();
    expect(ownersOf(gen(1, 0, { 'a#1': [0, 1, 3] }), 3)).toBeUndefined();
  });
});

describe('transition: moved vs necessary', () => {
  const before = gen(1, 0, { 'a#1': [0, 1], 'b#1': [2, 3], 'c#1': [4, 5] });

  it('a sticky leave moves only the partitions whose owner left', () => {
    const after = gen(2, 1, { 'b#1': [2, 3, 0], 'c#1': [4, 5, 1] });
    expect(transition(before, after, 6)).toEqual({
      fromGeneration: 1,
      toGeneration: 2,
      cause: 'leave',
      moved: 2,
      necessary: 2,
    });
  });

  it('a reshuffling leave moves more than necessary', () => {
    const after = gen(2, 1, { 'b#1': [0, 2, 4], 'c#1': [1, 3, 5] });
    expect(transition(before, after, 6)).toMatchObject({ cause: 'leave', moved: 4, necessary: 2 });
  });

  it('a join needs as many moves as the new member gets, whoever gives them', () => {
    const shrunk = gen(2, 1, { 'b#1': [2, 3, 0], 'c#1': [4, 5, 1] });
    const sticky = gen(3, 2, { 'b#1': [2, 3], 'c#1': [4, 5], 'a#2': [0, 1] });
    const shuffled = gen(3, 2, { 'b#1': [0, 1], 'c#1': [2, 3], 'a#2': [4, 5] });
    expect(transition(shrunk, sticky, 6)).toMatchObject({ cause: 'join', moved: 2, necessary: 2 });
    expect(transition(shrunk, shuffled, 6)).toMatchObject({ cause: 'join', moved: 5, necessary: 2 });
  });

  it('uneven target counts: every member keeps min(old, new) of its partitions at best', () => {
    const after = gen(2, 1, { 'a#1': [0], 'b#1': [2, 3, 1], 'c#1': [4, 5] });
    expect(transition(before, after, 6)).toMatchObject({ cause: 'same members', moved: 1, necessary: 1 });
  });

  it('same members and counts: load-driven moves are all excess', () => {
    const after = gen(2, 1, { 'a#1': [0, 2], 'b#1': [1, 3], 'c#1': [4, 5] });
    expect(transition(before, after, 6)).toMatchObject({ cause: 'same members', moved: 2, necessary: 0 });
  });

  it('a member replaced in one rebalance is a leave and a join', () => {
    const after = gen(2, 1, { 'a#2': [0, 1], 'b#1': [2, 3], 'c#1': [4, 5] });
    expect(transition(before, after, 6)).toMatchObject({ cause: 'leave+join', moved: 2, necessary: 2 });
  });

  it('refuses incomplete generations', () => {
    expect(() => transition(before, gen(2, 1, { 'b#1': [2, 3] }), 6)).toThrow(/incomplete/);
  });
});

const instances = [
  { instanceId: 'a', members: 1 },
  { instanceId: 'b', members: 2 },
];

function sample(t: number, produced: number, a: [number, number, boolean], b: [number, number, boolean]): Sample {
  const inst = ([offered, partitions, running]: [number, number, boolean]) => ({
    consumedPerSec: offered,
    lag: 0,
    offeredPerSec: offered,
    partitions,
    running,
  });
  const held = (a[2] ? a[1] : 0) + (b[2] ? b[1] : 0);
  return {
    t,
    producedPerSec: produced,
    totalLag: t * 10,
    assignedPartitions: held,
    instances: { a: inst(a), b: inst(b) },
  };
}

describe('sampleRatio', () => {
  const record = { instances, partitions: 4 };

  it('is the busiest instance per member over the even share of the running members', () => {
    // ideal 300 / 3 = 100; a carries 150 on one member, b 150 on two.
    expect(sampleRatio(record, sample(1, 300, [150, 2, true], [150, 2, true]))).toBeCloseTo(1.5);
  });

  it('leaves a stopped instance out of the ideal', () => {
    // a stopped: b's two members carry everything, which is the ideal for them.
    expect(sampleRatio(record, sample(1, 300, [0, 0, false], [300, 4, true]))).toBeCloseTo(1);
  });

  it('has no value mid-rebalance (partitions unheld or held twice)', () => {
    expect(sampleRatio(record, sample(1, 300, [100, 1, true], [150, 2, true]))).toBeUndefined();
    const twice = sample(1, 300, [150, 3, true], [150, 2, true]);
    twice.assignedPartitions = 4;
    expect(sampleRatio(record, twice)).toBeUndefined();
  });
});

describe('imbalanceSeconds', () => {
  it('integrates the excess over 1 between samples, skipping samples without a ratio, gaps capped', () => {
    const record = {
      instances,
      partitions: 4,
      samples: [
        sample(0, 300, [150, 2, true], [150, 2, true]), // 1.5, the first sample has no interval
        sample(1, 300, [150, 2, true], [150, 2, true]), // 0.5 × 1
        sample(2, 300, [100, 1, true], [150, 2, true]), // no ratio
        sample(3, 300, [120, 2, true], [180, 2, true]), // 0.2 × 1
        sample(13, 300, [150, 2, true], [150, 2, true]), // 0.5 × 5 (gap capped)
      ],
    };
    expect(imbalanceSeconds(record, -1, 20)).toBeCloseTo(0.5 + 0.2 + 2.5);
    expect(imbalanceSeconds(record, 2, 3)).toBeCloseTo(0.2);
  });
});

describe('summarizeRolling', () => {
  function run(): RollingRun {
    const ratioSamples = Array.from({ length: 60 }, (_, i) => sample(i + 1, 300, [120, 2, true], [180, 2, true]));
    const record: PhaseRecord = {
      assigner: 'load-aware',
      topic: 't',
      groupId: 'g',
      startedAt: '2026-01-01T00:00:00.000Z',
      durationSeconds: 60,
      moveAtSeconds: 60,
      instances,
      partitions: 4,
      eventsPerSecond: 300,
      backlogMessages: 0,
      producedMessages: 0,
      consumedMessages: 0,
      samples: ratioSamples,
      generations: [
        gen(1, 2, { 'a#1': [0, 1], 'b#1': [2], 'b#2': [3] }),
        // a (the leader's instance) leaves, b#1 leads from scratch; then a comes back. Nobody
        // reported generation 3 (superseded at once).
        gen(2, 22, { 'b#1': [0, 1], 'b#2': [2, 3] }, 'b#1'),
        gen(4, 30, { 'b#1': [0], 'b#2': [2], 'a#2': [1, 3] }, 'b#1'),
      ],
      assignments: [
        { t: 2, instanceId: 'a', result: 'load_aware', durationMs: 1, defaulted: 4, previouslyOwned: 0 },
        { t: 22, instanceId: 'b', result: 'load_aware', durationMs: 1, defaulted: 4, previouslyOwned: 0 },
        { t: 30, instanceId: 'b', result: 'load_aware', durationMs: 1, defaulted: 0, previouslyOwned: 4 },
      ],
      triggers: [35],
      warnings: [],
    };
    return {
      record,
      warmedAt: 20,
      warmSettled: true,
      steps: [
        {
          index: 1,
          instanceId: 'a',
          stopAt: 20.1,
          stoppedAt: 21,
          startAt: 28,
          readyAt: 29,
          settledAt: 50,
          settled: true,
        },
      ],
    };
  }

  it('reports each step and the totals', () => {
    const s = summarizeRolling(run());
    expect(s.warmUp).toMatchObject({ index: 0, generations: [1], leaderChanged: false });
    expect(s.steps).toHaveLength(1);
    const step = s.steps[0]!;
    expect(step).toMatchObject({
      index: 1,
      instanceId: 'a',
      generations: [2, 3, 4],
      unreported: [3],
      leaderBefore: { instanceId: 'a', memberId: 'a#1' },
      leaderAfter: { instanceId: 'b', memberId: 'b#1' },
      leaderChanged: true,
      restartedLeader: true,
      triggerFires: 1,
      settled: true,
      durationSeconds: 30,
    });
    // Leave: 0 and 1 lost their owner (necessary 2); 2 also moved, from b#1 to b#2 → moved 3.
    // Join: a#2 gets 2 (necessary 2), 1 and 3 → moved 2.
    expect(step.transitions.map((t) => [t.cause, t.moved, t.necessary])).toEqual([
      ['leave', 3, 2],
      ['join', 2, 2],
    ]);
    // a carries 120 on one member against an even share of 300 / 3.
    expect(step.ratioAfter).toBeCloseTo(1.2);
    expect(s.totals).toMatchObject({
      restarts: 1,
      settledSteps: 1,
      rebalances: 3,
      moved: 5,
      necessary: 4,
      leaderChanges: 1,
      assignments: 2,
      assignmentsWithDefaults: 1,
      defaultedWeights: 4,
      triggerFires: 1,
      restartSeconds: 30,
    });
    expect(s.totals.peakLag).toBe(500);
  });

  it('with the produced rates: the fewest moves as balanced as each new generation, per rebalance and per step', () => {
    const s = summarizeRolling({ ...run(), rates: [100, 20, 100, 80] });
    const step = s.steps[0]!;
    // Leave: a's 0 and 1 must move (120 msg/s); b keeps 2 and 3 (b's 300 on 2 members meets 150).
    // Join: the new generation has 100 per member everywhere; b's 300 must shed one 100 → 1 move.
    expect(step.transitions.map((t) => t.weighted)).toEqual([
      { necessary: 2, necessaryWeight: 120, movedWeight: 220, limit: 150, exact: true },
      { necessary: 1, necessaryWeight: 100, movedWeight: 100, limit: 100, exact: true },
    ]);
    expect(step.weighted).toMatchObject({ necessary: 3, necessaryWeight: 220, movedWeight: 320 });
    expect(stepTable(s, 4)).toContain('| 5 | 4 | 3 | 1.67 | 1.45 (320/220) |');
    expect(s.totals).toMatchObject({ weightedNecessary: 3, stepsOverWeightedTarget: 1 });
  });

  it('renders the step and totals tables', () => {
    const s = summarizeRolling(run());
    const table = stepTable(s, 4);
    expect(table.split('\n')).toHaveLength(4);
    expect(table).toContain(
      '| 1 | a | 2 leave, 3 unreported, 4 join | a → b (restarted) | 5 | 4 | - | - | - | 4/0 (b), 0/4 (b) | 1 | 1.20 | 500 | 6.0 | 30 |',
    );
    const totals = totalsTable([s.totals]);
    expect(totals).toContain('| excess moves (moved − necessary) | 1 |');
    expect(totals).toContain('| weighted necessary moves (as balanced as the assigner, by the produced rates) | - |');
    expect(totals).toContain('| load-aware assignments with defaulted weights (defaulted partitions) | 1 of 2 (4) |');
  });
});

describe('isSettled', () => {
  const complete = gen(5, 0, { 'a#1': [0, 1], 'b#1': [2], 'b#2': [3] });
  const base = {
    groupState: 'Stable',
    groupMembers: 3,
    totalMembers: 3,
    partitions: 4,
    latest: complete,
    lastActivityAt: 0,
    now: 20_000,
    quietMs: 20_000,
  };

  it('needs Stable, every member in, a complete latest generation and the quiet time', () => {
    expect(isSettled(base)).toBe(true);
    expect(isSettled({ ...base, groupState: 'PreparingRebalance' })).toBe(false);
    expect(isSettled({ ...base, groupMembers: 2 })).toBe(false);
    expect(isSettled({ ...base, latest: undefined })).toBe(false);
    expect(isSettled({ ...base, latest: gen(5, 0, { 'a#1': [0, 1], 'b#1': [2, 3] }) })).toBe(false);
    expect(isSettled({ ...base, now: 19_999 })).toBe(false);
  });
});

describe('parseRollingArgs', () => {
  it('defaults to the scenario: 1/1/2/2 members, 24 partitions, 15 s restarts, both assigners', () => {
    const o = parseRollingArgs([], new Date('2026-01-02T03:04:05.678Z'));
    expect(o).toMatchObject({
      brokers: undefined,
      outDir: 'out/bench-rolling-2026-01-02_03-04-05',
      assigners: ['round-robin', 'load-aware'],
      instances: [1, 1, 2, 2],
      restartDelaySeconds: 15,
      partitions: 24,
      eventsPerSecond: 1300,
      trackAllPartitions: false,
    });
    expect(settleQuietMs(o.preset)).toBe(20_000);
  });

  it('takes --brokers, --restart-delay, --fast, --out, --assigners, --track-all', () => {
    expect(parseRollingArgs(['--brokers', 'h:1,k:2', '--restart-delay', '7.5', '--out', 'x'])).toMatchObject({
      brokers: ['h:1', 'k:2'],
      restartDelaySeconds: 7.5,
      outDir: 'x',
    });
    expect(parseRollingArgs(['--fast']).restartDelaySeconds).toBe(2);
    expect(parseRollingArgs(['--assigners', 'load-aware', '--track-all'])).toMatchObject({
      assigners: ['load-aware'],
      trackAllPartitions: true,
    });
  });

  it('answers --help with the usage and rejects bad flags and values', () => {
    expect(() => parseRollingArgs(['--help'])).toThrow(RollingHelpRequested);
    expect(() => parseRollingArgs(['--nope'])).toThrow(/unknown flag --nope/);
    expect(() => parseRollingArgs(['--restart-delay', '-1'])).toThrow(RollingUsageError);
    expect(() => parseRollingArgs(['--restart-delay'])).toThrow(/expected a value/);
    expect(() => parseRollingArgs(['--brokers', 'nohost'])).toThrow(/host:port/);
    expect(() => parseRollingArgs(['--assigners', 'sticky'])).toThrow(/round-robin and\/or load-aware/);
  });
});
