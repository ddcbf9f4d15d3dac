/**
 * The latency-SLA experiment on one rate shape, in the order of Landau et al.'s argument: the
 * smallest group each assignor needs to hold p99 ≤ SLA (search.ts, one measured phase per size
 * tried), every assignor at load-aware's smallest size (equal consumer count), then a traffic
 * shift at that size (load-aware with its trigger), beside what `sizeGroup` answers for the
 * exact rates. Sizes whose busiest member would get more than it can process are passed over
 * unmeasured (plans.ts).
 */
import { DEFAULT_TARGET_UTILIZATION, sizeGroup, utilizationForLatency } from '@load-aware/assignor';
import { runSlaPhase, type PhaseContext, type PhaseResult } from './phase.js';
import { predictedUtilization, SLA_ASSIGNERS, type SlaAssigner } from './plans.js';
import { nextSearchStep } from './search.js';
import { createWorkload, type Shape, type Workload, type WorkloadOptions } from './workload.js';

/** A busiest member at or above its capacity cannot hold any latency bound. */
export const OVERLOADED_AT = 1;

/** Targets `sizeGroup` is also asked at, besides its default, to show where the measured size sits. */
export const SIZING_TARGETS: readonly number[] = [0.8, 0.9];

/** How long each kind of phase measures, and how far a search may go. */
export interface ExperimentTiming {
  measureSeconds: number;
  shiftBeforeSeconds: number;
  shiftAfterSeconds: number;
  /** Measured phases one assignor's search may take before it gives up. */
  maxSearchPhases: number;
}

/** What one shape gave. */
export interface ShapeResult {
  shape: Shape;
  workload: Workload;
  /** Busiest member ÷ capacity by the exact rates, per assignor, for every size from the lower bound. */
  predicted: Record<SlaAssigner, Record<string, number>>;
  /** Every fixed-rate phase, in the order run. */
  phases: PhaseResult[];
  /** Smallest size measured to hold p99 ≤ SLA; undefined when the search gave up. */
  smallest: Record<SlaAssigner, number | undefined>;
  /** load-aware's smallest size: where the assignors are compared at equal count and the shift runs. */
  equalMembers: number | undefined;
  /** The shift phases at `equalMembers`. */
  shift: PhaseResult[];
  /** `sizeGroup` for the exact rates at its default target utilization. */
  desiredMembers: number;
  targetUtilization: number;
  /** `sizeGroup` for the exact rates at other targets, by target: where the measured size sits. */
  desiredAt: Record<string, number>;
  /** The target the SLA allows at the exact work a message costs (`utilizationForLatency`), and `sizeGroup` there. */
  atSla: { targetUtilization: number; desiredMembers: number } | undefined;
}

/** Runs the experiment on `shape` (see the file comment). */
export async function runShape(
  shape: Shape,
  workloadOptions: Omit<WorkloadOptions, 'shape'>,
  timing: ExperimentTiming,
  withShift: boolean,
  ctx: PhaseContext,
): Promise<ShapeResult> {
  const workload = createWorkload({ ...workloadOptions, shape });
  const partitions = workload.before.length;
  const sizes = Array.from({ length: partitions - workload.lowerBound + 1 }, (_, i) => workload.lowerBound + i);
  const predicted = Object.fromEntries(
    SLA_ASSIGNERS.map((a) => [
      a,
      Object.fromEntries(
        sizes.map((n) => [String(n), predictedUtilization(a, workload.before, n, workload.memberRate)]),
      ),
    ]),
  ) as Record<SlaAssigner, Record<string, number>>;
  const weighted = workload.before.map((weight, partition) => ({ topic: 'sla', partition, weight }));
  const { desiredMembers } = sizeGroup({ partitions: weighted, memberCapacity: workload.memberRate });
  const desiredAt = Object.fromEntries(
    SIZING_TARGETS.map((target) => [
      String(target),
      sizeGroup({ partitions: weighted, memberCapacity: workload.memberRate, targetUtilization: target })
        .desiredMembers,
    ]),
  );
  const slaTarget = utilizationForLatency({
    slaSeconds: ctx.settings.slaMs / 1000,
    secondsPerMessage: 1 / workload.memberRate,
  });
  const atSla = slaTarget.ok
    ? {
        targetUtilization: slaTarget.utilization,
        desiredMembers: sizeGroup({
          partitions: weighted,
          memberCapacity: workload.memberRate,
          targetUtilization: slaTarget.utilization,
        }).desiredMembers,
      }
    : undefined;
  ctx.log(
    `\n== ${shape}: ${String(partitions)} partitions, ${workload.total.toFixed(0)} msg/s, ` +
      `${(workload.total / workload.memberRate).toFixed(2)} members' worth; sizeGroup at ` +
      `${String(DEFAULT_TARGET_UTILIZATION)}: ${String(desiredMembers)} members ==`,
  );

  const phases: PhaseResult[] = [];
  const measure = async (assigner: SlaAssigner, members: number): Promise<PhaseResult> => {
    const done = phases.find((p) => p.assigner === assigner && p.members === members);
    if (done !== undefined) return done;
    const utilization = predicted[assigner][String(members)] ?? Number.NaN;
    ctx.log(`${shape} ${assigner} × ${String(members)} (busiest at ${utilization.toFixed(2)} by the exact rates)...`);
    const result = await runSlaPhase(
      { assigner, members, workload, measureSeconds: timing.measureSeconds, trigger: false },
      ctx,
    );
    ctx.log(`  ${oneLine(result, ctx.settings.slaMs)}`);
    phases.push(result);
    return result;
  };
  const holds = (r: PhaseResult): boolean => r.window.withinSla >= 0.99;

  const smallest = {} as Record<SlaAssigner, number | undefined>;
  // load-aware first: its smallest size is where the others are compared.
  for (const assigner of ['load-aware', 'round-robin', 'sticky'] as const) {
    const measured = new Map<number, boolean>();
    smallest[assigner] = undefined;
    for (let tries = 0; tries <= timing.maxSearchPhases; tries++) {
      const step = nextSearchStep({
        from: workload.lowerBound,
        to: partitions,
        overloaded: (n) => (predicted[assigner][String(n)] ?? 0) >= OVERLOADED_AT,
        holds: measured,
      });
      if (step.kind === 'found') smallest[assigner] = step.members;
      if (step.kind !== 'measure') break;
      if (tries === timing.maxSearchPhases) {
        ctx.log(`${shape} ${assigner}: no size held within ${String(timing.maxSearchPhases)} measured phases`);
        break;
      }
      measured.set(step.members, holds(await measure(assigner, step.members)));
    }
  }

  const equalMembers = smallest['load-aware'];
  const shift: PhaseResult[] = [];
  if (equalMembers !== undefined) {
    for (const assigner of SLA_ASSIGNERS) await measure(assigner, equalMembers);
    for (const assigner of withShift ? SLA_ASSIGNERS : []) {
      ctx.log(`${shape} ${assigner} × ${String(equalMembers)}, traffic shift...`);
      const result = await runSlaPhase(
        {
          assigner,
          members: equalMembers,
          workload,
          measureSeconds: timing.shiftBeforeSeconds,
          shift: { beforeSeconds: timing.shiftBeforeSeconds, afterSeconds: timing.shiftAfterSeconds },
          trigger: assigner === 'load-aware',
        },
        ctx,
      );
      ctx.log(`  ${oneLine(result, ctx.settings.slaMs)}`);
      shift.push(result);
    }
  }
  return {
    shape,
    workload,
    predicted,
    phases,
    smallest,
    equalMembers,
    shift,
    desiredMembers,
    targetUtilization: DEFAULT_TARGET_UTILIZATION,
    desiredAt,
    atSla,
  };
}

/** A phase's progress line. */
export function oneLine(r: PhaseResult, slaMs: number): string {
  const w = r.afterShift ?? r.window;
  const at = (p: { ms: number; atLeast: boolean }): string => `${p.atLeast ? '≥' : ''}${(p.ms / 1000).toFixed(2)}`;
  return (
    `p50 ${at(w.p50)} p99 ${at(w.p99)} p99.9 ${at(w.p999)} s, ${(w.withinSla * 100).toFixed(1)}% within ` +
    `${(slaMs / 1000).toFixed(1)} s${r.afterShift === undefined ? '' : ' after the shift'}` +
    `${r.afterShift === undefined ? '' : ` (${(r.window.withinSla * 100).toFixed(1)}% before)`}; busiest ` +
    `${r.busiestAtStart.toFixed(2)} → ${r.busiestAtEnd.toFixed(2)}; ${String(r.joinsAfterForming)} joins, ` +
    `${String(r.triggerFiresAt.length)} fires; ${String(w.produced)} produced, ${String(w.unprocessed)} unprocessed; ` +
    `loop delay ≤ ${r.loopDelayMaxP99Ms.toFixed(0)} ms, load ${r.loadAverage.toFixed(1)}; ${r.seconds.toFixed(0)} s`
  );
}
