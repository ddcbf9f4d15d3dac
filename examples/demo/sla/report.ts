/**
 * The latency-SLA benchmark's Markdown: per shape, every measured phase with its p99 as a ratio
 * to round-robin's at the same size; then one summary side by side for both shapes, and the
 * issue's targets, each marked met or not from the figures. Pure: no clock, no I/O.
 */
import type { ShapeResult } from './experiment.js';
import type { Percentile, WindowStats } from './latency.js';
import type { PhaseResult } from './phase.js';
import { ASSIGNER_LABEL, SLA_ASSIGNERS, type SlaAssigner } from './plans.js';

/** A percentile in seconds; "≥" when unprocessed messages reach down to it. */
export function seconds(p: Percentile): string {
  if (Number.isNaN(p.ms)) return '-';
  const s = p.ms / 1000;
  return `${p.atLeast ? '≥ ' : ''}${s < 10 ? s.toFixed(2) : s.toFixed(1)}`;
}

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(header: readonly string[], align: readonly ('l' | 'r')[], rows: readonly string[][]): string {
  const rule = align.map((a) => (a === 'r' ? '---:' : '---'));
  return [row(header), row(rule), ...rows.map(row)].join('\n');
}

/** The p99 of `r` as a ratio to `base`'s; "≤" or "≥" when either is only a bound. */
export function p99Ratio(r: WindowStats, base: WindowStats | undefined): string {
  if (base === undefined || Number.isNaN(base.p99.ms) || Number.isNaN(r.p99.ms)) return '-';
  if (r === base) return '1.00';
  const ratio = r.p99.ms / base.p99.ms;
  // A lower bound over a lower bound says nothing; over an exact value it is a lower bound too.
  if (r.p99.atLeast && base.p99.atLeast) return 'both ≥';
  const bound = r.p99.atLeast ? '≥ ' : base.p99.atLeast ? '≤ ' : '';
  return `${bound}${ratio < 0.01 ? ratio.toFixed(4) : ratio.toFixed(2)}`;
}

/** Every fixed-rate phase of one shape, by size then assignor. */
export function phasesTable(result: ShapeResult, slaMs: number): string {
  const phases = [...result.phases].sort(
    (a, b) => a.members - b.members || SLA_ASSIGNERS.indexOf(a.assigner) - SLA_ASSIGNERS.indexOf(b.assigner),
  );
  const rows = phases.map((p) => {
    const base = result.phases.find((q) => q.members === p.members && q.assigner === 'round-robin');
    return [
      String(p.members),
      ASSIGNER_LABEL[p.assigner],
      p.busiestAtStart.toFixed(2),
      seconds(p.window.p50),
      seconds(p.window.p99),
      seconds(p.window.p999),
      percent(p.window.withinSla),
      p99Ratio(p.window, base?.window),
      machineLoad(p),
    ];
  });
  return table(
    [
      'members',
      'assignor',
      'busiest ÷ capacity',
      'p50 (s)',
      'p99 (s)',
      'p99.9 (s)',
      `within ${String(slaMs / 1000)} s`,
      'p99 ÷ round-robin',
      'loop delay (ms), load',
    ],
    ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    rows,
  );
}

/** The shift phases of one shape. */
export function shiftTable(result: ShapeResult, slaMs: number): string {
  const rows = result.shift.map((p) => [
    `${ASSIGNER_LABEL[p.assigner]}${p.trigger ? ' (trigger)' : ''}`,
    percent(p.window.withinSla),
    percent(p.afterShift?.withinSla ?? Number.NaN),
    seconds(p.afterShift?.p99 ?? { ms: Number.NaN, atLeast: false }),
    `${p.busiestAtStart.toFixed(2)} → ${p.busiestAtEnd.toFixed(2)}`,
    p.triggerFiresAt.length === 0 ? '-' : p.triggerFiresAt.map((s) => `${s.toFixed(1)} s`).join(', '),
    machineLoad(p),
  ]);
  const sla = `${String(slaMs / 1000)} s`;
  return table(
    [
      'assignor',
      `within ${sla} before`,
      `within ${sla}, after the shift`,
      'p99 after (s)',
      'busiest ÷ capacity',
      'trigger fires after the shift',
      'loop delay (ms), load',
    ],
    ['l', 'r', 'r', 'r', 'r', 'l', 'r'],
    rows,
  );
}

/**
 * The member processes' worst event-loop delay p99 over the window and the machine's load
 * average at the phase's end: how far the machine, not the assignment, held the members back.
 */
function machineLoad(p: PhaseResult): string {
  return `${p.loopDelayMaxP99Ms.toFixed(0)}, ${p.loadAverage.toFixed(1)}`;
}

function phaseAt(result: ShapeResult, assigner: SlaAssigner, members: number | undefined): PhaseResult | undefined {
  return result.phases.find((p) => p.assigner === assigner && p.members === members);
}

/** What each target compares, per shape. */
export interface TargetVerdict {
  target: string;
  /** Per shape: the figures and whether they meet it (undefined: not measured, or a bound decides nothing). */
  shapes: Array<{ shape: string; figures: string; met: boolean | undefined }>;
}

/** The issue's four targets, judged from the figures. */
export function judgeTargets(results: readonly ShapeResult[]): TargetVerdict[] {
  const per = (
    target: string,
    judge: (r: ShapeResult) => { figures: string; met: boolean | undefined },
  ): TargetVerdict => ({ target, shapes: results.map((r) => ({ shape: r.shape, ...judge(r) })) });
  return [
    per('at equal N, load-aware p99 ≤ 1/10 of round-robin’s', (r) => {
      const la = phaseAt(r, 'load-aware', r.equalMembers);
      const rr = phaseAt(r, 'round-robin', r.equalMembers);
      if (la === undefined || rr === undefined) return { figures: 'not measured', met: undefined };
      const ratio = la.window.p99.ms / rr.window.p99.ms;
      // A lower bound on round-robin's p99 only makes the true ratio smaller, one on load-aware's
      // larger: a ratio on the wrong side of a bound decides nothing.
      const met =
        (la.window.p99.atLeast && ratio <= 0.1) || (rr.window.p99.atLeast && ratio > 0.1) ? undefined : ratio <= 0.1;
      return {
        figures: `N = ${String(r.equalMembers)}: ${seconds(la.window.p99)} s vs ${seconds(rr.window.p99)} s (${p99Ratio(la.window, rr.window)})`,
        met,
      };
    }),
    per('load-aware needs ≥ 35% fewer consumers than round-robin, and fewer than sticky', (r) => {
      const { 'load-aware': la, 'round-robin': rr, sticky } = r.smallest;
      if (la === undefined || rr === undefined) return { figures: `${show(la)} vs ${show(rr)}`, met: undefined };
      const fewer = 1 - la / rr;
      const vsSticky = sticky === undefined ? undefined : la < sticky;
      return {
        figures: `${String(la)} vs ${String(rr)} (${(fewer * 100).toFixed(0)}% fewer); sticky ${show(sticky)}`,
        met: vsSticky === undefined ? undefined : fewer >= 0.35 && vsSticky,
      };
    }),
    per('desired members (latencySla, capacity from busy time) within ±1 of load-aware’s measured smallest N', (r) => {
      const la = r.smallest['load-aware'];
      const derived = atLoadAwareN(r)?.fromBusyTime;
      const atDefault = `default target ${String(r.targetUtilization)}: ${String(r.desiredMembers)}`;
      if (derived === undefined) return { figures: `not measured (${atDefault})`, met: undefined };
      return {
        figures:
          `desired ${String(derived.desiredMembers)} (target ${derived.targetUtilization.toFixed(3)} at ` +
          `${(derived.secondsPerMessage * 1000).toFixed(2)} ms a message), measured ${show(la)}; ${atDefault}`,
        met: la === undefined ? undefined : Math.abs(derived.desiredMembers - la) <= 1,
      };
    }),
    per('after the shift, load-aware within SLA ≥ 10 points above round-robin', (r) => {
      const la = r.shift.find((p) => p.assigner === 'load-aware')?.afterShift;
      const rr = r.shift.find((p) => p.assigner === 'round-robin')?.afterShift;
      if (la === undefined || rr === undefined) return { figures: 'not measured', met: undefined };
      const points = (la.withinSla - rr.withinSla) * 100;
      return {
        figures: `${percent(la.withinSla)} vs ${percent(rr.withinSla)} (${points >= 0 ? '+' : ''}${points.toFixed(1)} points)`,
        met: points >= 10,
      };
    }),
  ];
}

/** load-aware's fixed-rate phase at its smallest N: where the sizing it measured is read. */
function atLoadAwareN(r: ShapeResult): PhaseResult | undefined {
  return r.phases.find((p) => p.assigner === 'load-aware' && p.members === r.equalMembers);
}

function show(n: number | undefined): string {
  return n === undefined ? 'none found' : String(n);
}

/** Both shapes side by side, then the targets. */
export function summaryTable(results: readonly ShapeResult[], shiftAfterSeconds: number): string {
  const smallest = SLA_ASSIGNERS.map((a) => [
    `smallest N holding p99 ≤ SLA, ${ASSIGNER_LABEL[a]}`,
    ...results.map((r) => {
      const rr = r.smallest['round-robin'];
      const n = r.smallest[a];
      return n === undefined || rr === undefined || a === 'round-robin'
        ? show(n)
        : `${String(n)} (${(n / rr).toFixed(2)}×)`;
    }),
  ]);
  const atEqual = SLA_ASSIGNERS.map((a) => [
    `p99 at load-aware's N, ${ASSIGNER_LABEL[a]} (s)`,
    ...results.map((r) => {
      const p = phaseAt(r, a, r.equalMembers);
      return p === undefined ? '-' : seconds(p.window.p99);
    }),
  ]);
  const afterShift = SLA_ASSIGNERS.map((a) => [
    `within SLA ${String(shiftAfterSeconds)} s after the shift, ${ASSIGNER_LABEL[a]}${a === 'load-aware' ? ' (trigger)' : ''}`,
    ...results.map((r) => {
      const p = r.shift.find((q) => q.assigner === a);
      return p?.afterShift === undefined ? '-' : percent(p.afterShift.withinSla);
    }),
  ]);
  const rows = [
    ['lower bound ⌈total ÷ capacity⌉', ...results.map((r) => String(r.workload.lowerBound))],
    ...smallest,
    [
      'sizeGroup desired members (exact rates, default target)',
      ...results.map((r) => `${String(r.desiredMembers)} (at ${String(r.targetUtilization)})`),
    ],
    [
      'sizeGroup desired members at other targets',
      ...results.map((r) =>
        Object.entries(r.desiredAt)
          .map(([target, n]) => `${String(n)} (at ${target})`)
          .join(', '),
      ),
    ],
    [
      'sizeGroup desired members (rates load-aware measured)',
      ...results.map((r) => {
        const la = atLoadAwareN(r);
        return la?.measuredDesiredMembers === undefined ? '-' : String(la.measuredDesiredMembers);
      }),
    ],
    [
      'sizeGroup at the SLA’s target (exact rates and work)',
      ...results.map((r) =>
        r.atSla === undefined ? '-' : `${String(r.atSla.desiredMembers)} (at ${r.atSla.targetUtilization.toFixed(3)})`,
      ),
    ],
    [
      'desired members, latencySla on measured rates and busy time',
      ...results.map((r) => {
        const derived = atLoadAwareN(r)?.fromBusyTime;
        return derived === undefined
          ? '-'
          : `${String(derived.desiredMembers)} (at ${derived.targetUtilization.toFixed(3)}, ` +
              `capacity ${derived.memberCapacity.toFixed(0)}/s)`;
      }),
    ],
    ...atEqual,
    ...afterShift,
  ];
  return table(['', ...results.map((r) => r.shape)], ['l', ...results.map(() => 'r' as const)], rows);
}

/** The targets as a list, each marked. */
export function targetsList(verdicts: readonly TargetVerdict[]): string {
  const mark = (met: boolean | undefined): string => (met === undefined ? 'not determined' : met ? 'met' : 'NOT met');
  return verdicts
    .map((v) => `- ${v.target}: ${v.shapes.map((s) => `${s.shape} ${s.figures}: **${mark(s.met)}**`).join('; ')}`)
    .join('\n');
}
