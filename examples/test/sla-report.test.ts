import type { ShapeResult } from '../demo/sla/experiment';
import type { WindowStats } from '../demo/sla/latency';
import type { PhaseResult } from '../demo/sla/phase';
import { judgeTargets, p99Ratio } from '../demo/sla/report';
import { createWorkload } from '../demo/sla/workload';
import { WORKLOAD } from '../demo/sla/options';

function window(p99Ms: number, atLeast: boolean, withinSla = 0.5): WindowStats {
  const p = { ms: p99Ms, atLeast };
  return { produced: 100, processed: 100, unprocessed: 0, withinSla, p50: p, p99: p, p999: p };
}

function phase(
  assigner: PhaseResult['assigner'],
  members: number,
  w: WindowStats,
  fromBusyTime?: PhaseResult['fromBusyTime'],
): PhaseResult {
  return {
    assigner,
    members,
    trigger: false,
    window: w,
    busiestAtStart: 1,
    busiestAtEnd: 1,
    joinsAfterForming: 0,
    triggerFiresAt: [],
    measuredDesiredMembers: undefined,
    fromBusyTime,
    loopDelayMaxP99Ms: 0,
    loadAverage: 0,
    warnings: [],
    seconds: 1,
  };
}

/** What the members' busy time sized the group at: `desiredMembers` at a derived 0.98. */
function derived(desiredMembers: number): PhaseResult['fromBusyTime'] {
  return { desiredMembers, memberCapacity: 245, targetUtilization: 0.98, secondsPerMessage: 0.0041 };
}

function shape(
  loadAware: WindowStats,
  roundRobin: WindowStats,
  fromBusyTime: PhaseResult['fromBusyTime'] = derived(5),
): ShapeResult {
  return {
    shape: 'zipf',
    workload: createWorkload({ ...WORKLOAD, shape: 'zipf' }),
    predicted: { 'round-robin': {}, sticky: {}, 'load-aware': {} },
    phases: [phase('load-aware', 4, loadAware, fromBusyTime), phase('round-robin', 4, roundRobin)],
    smallest: { 'load-aware': 4, 'round-robin': 7, sticky: 8 },
    equalMembers: 4,
    shift: [],
    desiredMembers: 5,
    targetUtilization: 0.7,
    desiredAt: {},
    atSla: { targetUtilization: 0.98, desiredMembers: 4 },
  };
}

describe('judgeTargets', () => {
  it('meets the p99 target when load-aware is under a tenth of round-robin’s lower bound', () => {
    const [p99] = judgeTargets([shape(window(400, false), window(8000, true))]);
    expect(p99!.shapes[0]!.met).toBe(true);
  });

  it('decides nothing when the ratio is over a tenth only because round-robin’s p99 is a lower bound', () => {
    const [p99] = judgeTargets([shape(window(804, false), window(7997, true))]);
    expect(p99!.shapes[0]!.met).toBeUndefined();
  });

  it('fails the p99 target on exact figures over a tenth', () => {
    const [p99] = judgeTargets([shape(window(804, false), window(7997, false))]);
    expect(p99!.shapes[0]!.met).toBe(false);
  });

  it('counts fewer consumers against round-robin and the sticky plan', () => {
    const [, fewer, sizing] = judgeTargets([shape(window(400, false), window(8000, true))]);
    expect(fewer!.shapes[0]).toMatchObject({ met: true }); // 4 vs 7: 43% fewer, and fewer than 8
    expect(sizing!.shapes[0]).toMatchObject({ met: true }); // desired 5 from busy time, measured 4
  });

  it('judges sizing by what the SLA and busy time answered, and decides nothing without it', () => {
    const fast = window(400, false);
    const slow = window(8000, true);
    expect(judgeTargets([shape(fast, slow, derived(6))])[2]!.shapes[0]).toMatchObject({ met: false });
    const none = shape(fast, slow);
    none.phases[0]!.fromBusyTime = undefined;
    const unmeasured = judgeTargets([none])[2]!.shapes[0]!;
    expect(unmeasured.met).toBeUndefined();
    expect(unmeasured.figures).toContain('default target 0.7: 5');
  });
});

describe('p99Ratio', () => {
  it('marks a ratio over a lower bound as an upper bound, and two lower bounds as no ratio', () => {
    expect(p99Ratio(window(400, false), window(8000, true))).toBe('≤ 0.05');
    expect(p99Ratio(window(9000, true), window(8000, true))).toBe('both ≥');
  });
});
