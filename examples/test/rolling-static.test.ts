import { groupLog } from '../demo/broker-log';
import { ProcessingMonitor } from '../demo/processing';
import type { PhaseObserver } from '../demo/phase';
import { emptyPhaseRecord, type PhaseRecord } from '../demo/record';
import {
  processingTable,
  stepProcessing,
  summarizeRolling,
  targetChecks,
  totalsTable,
  transition,
  type RollingRun,
} from '../demo/rolling-analysis';
import { parseRollingArgs } from '../demo/rolling-options';
import { ProcessingCollector, type ProcessingRecord } from '../demo/rolling-processing';
import { PhaseTracker } from '../demo/tracker';

const quiet: PhaseObserver = { sample: () => undefined, note: () => undefined };

describe('ProcessingMonitor', () => {
  it('reports pauses per member and per process, the first message and the processed ranges', () => {
    const m = new ProcessingMonitor(500, 2);
    m.ready(1000);
    m.processed(0, 3, 10, 1100);
    m.processed(0, 3, 11, 1200);
    // Member 1 waited 1.5 s from ready for its first message; the process did not pause.
    m.processed(1, 5, 0, 2500);
    m.processed(0, 3, 13, 2600);
    const first = m.report(2700);
    expect(first).toEqual({
      memberPauses: [
        { member: 1, from: 1000, to: 2500 },
        { member: 0, from: 1200, to: 2600 },
      ],
      instancePauses: [{ from: 1200, to: 2500 }],
      longestGapMs: 1300,
      firstProcessedAt: 1100,
      processed: {
        '3': [
          [10, 12],
          [13, 14],
        ],
        '5': [[0, 1]],
      },
    });
    // Nothing since: both members and the process are pausing, reported open; ranges are cleared.
    const second = m.report(3500);
    expect(second.memberPauses).toEqual([
      { member: 0, from: 2600, to: 3500, open: true },
      { member: 1, from: 2500, to: 3500, open: true },
    ]);
    expect(second.instancePauses).toEqual([{ from: 2600, to: 3500, open: true }]);
    expect(second.processed).toEqual({});
    expect(second.longestGapMs).toBe(0);
  });

  it('reports no open pause before the process is ready', () => {
    const m = new ProcessingMonitor(500, 1);
    expect(m.report(10_000)).toEqual({ memberPauses: [], instancePauses: [], longestGapMs: 0, processed: {} });
  });
});

describe('ProcessingCollector', () => {
  const since = (at: number): number => at / 1000;
  const report = (processed: Record<string, Array<[number, number]>>) => ({
    memberPauses: [],
    instancePauses: [],
    longestGapMs: 0,
    processed,
  });

  it('counts duplicates when ranges overlap what was processed, and lost offsets at the end', () => {
    const c = new ProcessingCollector(500, since);
    c.report('a', 0, 1000, report({ '0': [[0, 10]], '1': [[0, 5]] }));
    // After a restart from an older committed offset: 7, 8, 9 of partition 0 again.
    c.report('b', 0, 2000, report({ '0': [[7, 12]] }));
    expect(
      c.unprocessed([
        { partition: 0, offset: '12' },
        { partition: 1, offset: '6' },
      ]),
    ).toBe(1);
    const record = c.finish({
      ends: [
        { partition: 0, offset: '12' },
        { partition: 1, offset: '6' },
      ],
      drained: false,
      drainSeconds: 60,
    });
    expect(record.duplicates).toEqual([{ t: 2, instanceId: 'b', count: 3 }]);
    expect(record.delivery).toEqual({
      produced: 18,
      processed: 20,
      unique: 17,
      duplicates: 3,
      lost: 1,
      drained: false,
      drainSeconds: 60,
    });
  });

  it('keeps one pause reported open and then closed, with its latest end', () => {
    const c = new ProcessingCollector(500, since);
    c.ready('a', 1, 1000);
    c.report('a', 1, 2000, {
      ...report({}),
      memberPauses: [{ member: 0, from: 1000, to: 2000, open: true }],
      instancePauses: [{ from: 1000, to: 2000, open: true }],
    });
    c.report('a', 1, 3000, {
      ...report({ '0': [[0, 1]] }),
      memberPauses: [{ member: 0, from: 1000, to: 2400 }],
      instancePauses: [{ from: 1000, to: 2400 }],
      firstProcessedAt: 2400,
    });
    const record = c.finish();
    expect(record.memberPauses).toEqual([{ instanceId: 'a', process: 1, member: 0, from: 1, to: 2.4, open: false }]);
    expect(record.instancePauses).toHaveLength(1);
    expect(record.processes).toEqual([{ instanceId: 'a', process: 1, readyAt: 1, firstProcessedAt: 2.4 }]);
    expect(record.delivery).toBeUndefined();
  });
});

describe('PhaseTracker with static members', () => {
  function tracker(): PhaseTracker {
    const record = emptyPhaseRecord({
      assigner: 'load-aware',
      topic: 't',
      groupId: 'g',
      startedAt: '',
      durationSeconds: 0,
      moveAtSeconds: 0,
      instances: [
        { instanceId: 'a', members: 1 },
        { instanceId: 'b', members: 1 },
      ],
      partitions: 2,
      eventsPerSecond: 1,
    });
    return new PhaseTracker(record, 0, Infinity, 1000, quiet);
  }
  const generation = (instanceId: string, memberId: string, partitions: number[], isLeader = false) => ({
    event: 'generation' as const,
    instanceId,
    memberId,
    generationId: 3,
    isLeader,
    groupInstanceId: `${instanceId}.0`,
    joinedAt: 1000,
    partitions,
    at: 1000,
  });

  it('replaces a static member that took its place back, leadership included', () => {
    const t = tracker();
    t.onEvent(generation('a', 'a.0-old', [0], true));
    t.onEvent(generation('b', 'b.0-1', [1]));
    t.onEvent({ ...generation('a', 'a.0-new', [0]), joinedAt: 30_000, at: 30_000 });
    const [g] = t.generationsSoFar();
    expect(g!.members.map((m) => m.memberId)).toEqual(['a.0-new', 'b.0-1']);
    expect(g!.leaderMemberId).toBe('a.0-new');
    expect(g!.t).toBe(1);
    expect(t.record.staticRejoins).toEqual([
      { t: 30, instanceId: 'a', groupInstanceId: 'a.0', generationId: 3, samePartitions: true },
    ]);
  });

  it('adds dynamic members as before', () => {
    const t = tracker();
    const { groupInstanceId: _, ...dynamic } = generation('a', 'a-1', [0]);
    t.onEvent(dynamic);
    t.onEvent({ ...dynamic, memberId: 'a-2' });
    expect(t.generationsSoFar()[0]!.members).toHaveLength(2);
    expect(t.record.staticRejoins).toBeUndefined();
  });
});

describe('transition with static members', () => {
  it('counts nothing as moved when a static member kept its partitions under a new member id', () => {
    const g = (generationId: number, aId: string) => ({
      generationId,
      t: generationId,
      leaderInstance: 'a',
      leaderMemberId: aId,
      members: [
        { memberId: aId, instanceId: 'a', partitions: [0], groupInstanceId: 'a.0' },
        { memberId: 'b-1', instanceId: 'b', partitions: [1], groupInstanceId: 'b.0' },
      ],
    });
    expect(transition(g(1, 'a-old'), g(2, 'a-new'), 2)).toMatchObject({
      moved: 0,
      necessary: 0,
      cause: 'same members',
    });
  });
});

describe('stepProcessing and the static targets', () => {
  const processing: ProcessingRecord = {
    thresholdMs: 500,
    processes: [
      { instanceId: 'a', process: 0, readyAt: 1, firstProcessedAt: 1.2 },
      { instanceId: 'a', process: 1, readyAt: 40, firstProcessedAt: 41.5 },
      { instanceId: 'b', process: 0, readyAt: 1, firstProcessedAt: 1.1 },
    ],
    memberPauses: [
      // a's old process, cut by its stop (25): only 24..25 counts, the rest is its own downtime.
      { instanceId: 'a', process: 0, member: 0, from: 24, to: 30, open: true },
      // a's new process waiting for its first message: counts.
      { instanceId: 'a', process: 1, member: 0, from: 40, to: 41.5, open: false },
      { instanceId: 'b', process: 0, member: 0, from: 26, to: 26.8, open: false },
    ],
    instancePauses: [{ instanceId: 'b', process: 0, from: 26, to: 26.8, open: false }],
    duplicates: [{ t: 42, instanceId: 'a', count: 7 }],
    gaps: [
      { t: 27, instanceId: 'b', process: 0, seconds: 0.8 },
      { t: 50, instanceId: 'b', process: 0, seconds: 0.3 },
    ],
    delivery: { produced: 100, processed: 107, unique: 100, duplicates: 7, lost: 0, drained: true, drainSeconds: 3 },
  };
  const window = {
    index: 1,
    instanceId: 'a',
    from: 20,
    to: 60,
    settled: true,
    restart: { stopAt: 25, process: 1 },
  };

  it('measures the other instances, the restarted one and the paused member-seconds', () => {
    const p = stepProcessing(processing, ['a', 'b'], window);
    expect(Object.keys(p.longest)).toEqual(['b']);
    expect(p.longest['b']).toBeCloseTo(0.8);
    expect(p.resume).toBeCloseTo(1.5);
    expect(p.downtime).toBeCloseTo(15);
    expect(p.pausedMemberSeconds).toBeCloseTo(1 + 1.5 + 0.8);
    expect(p.duplicates).toBe(7);
  });

  it('summarizes a static run: no rebalance, no move, every target checked', () => {
    const record: PhaseRecord = {
      ...emptyPhaseRecord({
        assigner: 'load-aware',
        topic: 't',
        groupId: 'g',
        startedAt: '',
        durationSeconds: 70,
        moveAtSeconds: 0,
        instances: [
          { instanceId: 'a', members: 1 },
          { instanceId: 'b', members: 1 },
        ],
        partitions: 2,
        eventsPerSecond: 1,
      }),
      generations: [
        {
          generationId: 2,
          t: 2,
          leaderInstance: 'a',
          leaderMemberId: 'a.0-new',
          members: [
            { memberId: 'a.0-new', instanceId: 'a', partitions: [0], groupInstanceId: 'a.0' },
            { memberId: 'b.0-1', instanceId: 'b', partitions: [1], groupInstanceId: 'b.0' },
          ],
        },
      ],
      staticRejoins: [{ t: 40, instanceId: 'a', groupInstanceId: 'a.0', generationId: 2, samePartitions: true }],
    };
    const run: RollingRun = {
      record,
      warmedAt: 20,
      warmSettled: true,
      membership: 'static',
      processing,
      steps: [
        {
          index: 1,
          instanceId: 'a',
          stopAt: 25,
          stoppedAt: 26,
          startAt: 38,
          readyAt: 40,
          settledAt: 60,
          settled: true,
          process: 1,
        },
      ],
    };
    const s = summarizeRolling(run);
    expect(s.totals).toMatchObject({ label: 'load-aware (static)', rebalances: 0, moved: 0, staticRejoins: 1 });
    expect(s.totals.processing).toMatchObject({ longestAt: 'b, step 1', duplicates: 7 });
    expect(s.totals.processing?.longest).toBeCloseTo(0.8);
    expect(targetChecks(s.totals).map((c) => c.met)).toEqual([true, true, true, true, true]);
    expect(processingTable(s)).toContain('| 1 | a | 0 | 1 | 0 | b 0.8 | 15.0 | 1.50 | 3.3 | 0 | 0.0 | 7 |');
    expect(totalsTable([s.totals])).toContain('| lost / duplicates (run) | 0 / 7 |');
  });
});

describe('parseRollingArgs: --static-membership', () => {
  it('runs load-aware alone with a 45 s session timeout; dynamic keeps 10 s', () => {
    expect(parseRollingArgs([])).toMatchObject({ membership: 'dynamic', sessionTimeoutSeconds: 10 });
    expect(parseRollingArgs(['--static-membership'])).toMatchObject({
      membership: 'static',
      assigners: ['load-aware'],
      sessionTimeoutSeconds: 45,
    });
    expect(parseRollingArgs(['--static-membership', '--session-timeout', '30']).sessionTimeoutSeconds).toBe(30);
  });

  it('refuses round-robin with static membership and a session timeout out of the broker range', () => {
    expect(() => parseRollingArgs(['--static-membership', '--assigners', 'round-robin,load-aware'])).toThrow(
      /round-robin has no static membership/,
    );
    expect(() => parseRollingArgs(['--session-timeout', '5'])).toThrow(/6\.\.1800/);
  });
});

describe('groupLog', () => {
  it("takes the broker's reasons, parentheses inside them included, and the completed generations", () => {
    const t0 = new Date(2026, 11, 1, 22, 6, 30, 0).getTime();
    const log = [
      '[2026-12-01 22:06:40,502] INFO [GroupCoordinator id=1] Preparing to rebalance group g-1 in state ' +
        'PreparingRebalance with old generation 2 (reason: explicit `LeaveGroup` request for (a.0-x) members.). ' +
        '(org.apache.kafka.coordinator.group.GroupMetadataManager)',
      '[2026-12-01 22:06:41,000] INFO Stabilized group g-1 generation 3 with 6 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)',
      '[2026-12-01 22:06:42,000] INFO Preparing to rebalance group g-2 in state X (reason: other) (kafka.coordinator.group.GroupCoordinator)',
    ].join('\n');
    expect(groupLog(log, 'g-1', t0)).toMatchObject({
      rebalances: [{ t: 10.5, reason: 'explicit `LeaveGroup` request for (a.0-x) members.' }],
      stabilized: [3],
    });
  });
});
