/**
 * The benchmark's second measure: the sustainable throughput of each assigner, the highest
 * offered rate at which the consumers keep lag bounded (lag-verdict.ts), found by bisection over
 * the rate (bisection.ts), one probe (probe.ts) per rate, on the demo's skewed workload.
 */
import { balance } from '@load-aware/assignor';
import { bestStaticPlan, type OraclePlan } from './oracle.js';
import { instanceIds } from './phase.js';
import { LAG_RULE, type LagRule } from './lag-verdict.js';
import { bisectInterleaved, initialBracket, type BisectionLimits, type Bracket } from './bisection.js';
import type { DemoOptions } from './options.js';
import { runProbe, type ProbeContext, type ProbeResult, type ProbeTiming } from './probe.js';
import type { AssignerKind } from './protocol.js';
import { createTraffic } from './traffic.js';

/** How long the probes are and when the bisection stops. */
export interface SustainableSettings {
  mode: 'default' | 'quick';
  timing: ProbeTiming;
  limits: BisectionLimits;
  /** The low bound of the bracket, as a fraction of the ceiling (see {@link capacityModel}). */
  lowFraction: number;
}

/** Default: ~60 s per probe with set-up and clean-up; five probes per assigner reach 5 %. */
export const SUSTAINABLE_DEFAULT: Readonly<SustainableSettings> = Object.freeze({
  mode: 'default',
  timing: { stableDeadlineSeconds: 45, settleSeconds: 15, windowSeconds: 40 },
  limits: { precision: 0.05, maxProbes: 6 },
  lowFraction: 0.35,
});

/** `--quick`: a smoke run, short probes and three of them per assigner (a bracket of ~15 %). */
export const SUSTAINABLE_QUICK: Readonly<SustainableSettings> = Object.freeze({
  mode: 'quick',
  timing: { stableDeadlineSeconds: 30, settleSeconds: 5, windowSeconds: 15 },
  limits: { precision: 0.05, maxProbes: 3 },
  lowFraction: 0.35,
});

/** What the work per message and the traffic's skew allow, whatever the assigner. */
export interface CapacityModel {
  /** Nominal msg/s of one member: 1000 / (workMs + cpuMs), one message at a time. */
  memberRate: number;
  members: number;
  /** memberRate × members. */
  groupRate: number;
  /** Share of the total rate on the hottest partition. */
  hottestShare: number;
  /**
   * memberRate × min(members, 1 / hottestShare): above it the group, or the one member holding
   * the hottest partition (a partition is consumed by one member at a time), cannot keep up.
   */
  ceiling: number;
  /**
   * The best static assignment of the workload's known per-partition rates over the members
   * (equal capacities, one message at a time each), found exactly by {@link bestStaticPlan}:
   * the oracle's pinned plan, and `memberRate ÷ busiestShare`, the rate at which its busiest
   * member is saturated (the ceiling no static assignment beats, as opposed to `ceiling`, which
   * only counts the hottest partition).
   */
  oracle: { plan: number[][]; busiestShare: number; ceiling: number; exact: boolean; nodes: number };
  /**
   * The plan load-aware's `balance()` makes of the same exact rates (capacity = members, as the
   * demo wires it), by member slot in layout order, and its busiest member's share: what
   * `load-aware-pinned` holds.
   */
  loadAwarePlan: { plan: number[][]; busiestShare: number };
}

/**
 * load-aware's plan for `rates` on the demo's layout: members `instance-<letter>-<n>` of
 * capacity = their instance's members, slots in layout order (the order of the member ids the
 * demo's processes get: their client id, the instance id, starts them).
 */
function loadAwarePlan(options: DemoOptions, rates: readonly number[]): CapacityModel['loadAwarePlan'] {
  const members = instanceIds(options).flatMap(({ instanceId, members: n }) =>
    Array.from({ length: n }, (_, k) => ({
      memberId: `${instanceId}-${String(k)}`,
      instanceId,
      topics: ['t'],
      capacity: n,
    })),
  );
  const { assignments } = balance({
    members,
    partitions: rates.map((weight, partition) => ({ topic: 't', partition, weight })),
  });
  const plan = members.map((m) => (assignments.get(m.memberId) ?? []).map((p) => p.partition).sort((a, b) => a - b));
  const total = rates.reduce((a, b) => a + b, 0);
  const busiest = Math.max(...plan.map((ps) => ps.reduce((n, p) => n + rates[p]!, 0)));
  return { plan, busiestShare: total > 0 ? busiest / total : 0 };
}

/** The capacity model of the demo's workload (pure). */
export function capacityModel(options: DemoOptions): CapacityModel {
  const memberRate = 1000 / (options.workMs + options.cpuMs);
  const members = options.instances.reduce((a, b) => a + b, 0);
  const { before } = createTraffic(options);
  const total = before.reduce((a, b) => a + b, 0);
  const hottestShare = total > 0 ? Math.max(...before) / total : 1;
  const best: OraclePlan = bestStaticPlan(
    before.map((r) => (total > 0 ? r / total : 0)),
    Array.from({ length: members }, () => 1),
  );
  return {
    memberRate,
    members,
    groupRate: memberRate * members,
    hottestShare,
    ceiling: memberRate * Math.min(members, 1 / hottestShare),
    loadAwarePlan: loadAwarePlan(options, before),
    oracle: {
      plan: best.plan,
      busiestShare: best.busiest,
      ceiling: best.busiest > 0 ? memberRate / best.busiest : memberRate * members,
      exact: best.exact,
      nodes: best.nodes,
    },
  };
}

/** A probe as the report keeps it: the result and its wall time with set-up and clean-up. */
export type ProbeRecord = ProbeResult & { wallSeconds: number };

/** The bisection of one assigner. */
export interface AssignerSustainable {
  assigner: AssignerKind;
  probes: ProbeRecord[];
  bracket: Bracket;
  /** The bracket's lower end: the highest rate judged (or assumed, if unverified) sustainable. */
  sustainableRate: number;
}

/** Everything the sustainable stage measured. */
export interface SustainableResult {
  settings: SustainableSettings;
  rule: LagRule;
  model: CapacityModel;
  start: Bracket;
  assigners: AssignerSustainable[];
  /** load-aware's sustainable rate ÷ round-robin's, and the range the two brackets allow. */
  ratio: { point: number; min: number; max: number } | null;
  /** Each live assigner's sustainable rate ÷ the oracle's (when the oracle ran), and the brackets' range. */
  ofOracle: Array<{ assigner: AssignerKind; point: number; min: number; max: number }>;
  wallSeconds: number;
}

function pct(rate: number, model: CapacityModel): string {
  return `${((100 * rate) / model.groupRate).toFixed(0)} %`;
}

/** The busiest member of a probe's last generation: its share of the rate and label; "-" without one. */
function busiestMember(p: ProbeRecord): string {
  const top = [...(p.members ?? [])].sort((a, b) => b.share - a.share)[0];
  return top === undefined ? '-' : `${(100 * top.share).toFixed(1)} % (${top.member})`;
}

function describeProbe(p: ProbeRecord): string {
  const v = p.verdict;
  if (v === undefined) return `unsettled (no stable group within the deadline)`;
  return (
    `busiest member ${busiestMember(p)}; ` +
    `${p.outcome}: growth ${v.growth.toFixed(1)} msg/s (limit ${v.growthLimit.toFixed(1)}), total slope ` +
    `${v.totalSlope.toFixed(1)} msg/s, final lag ${v.finalLag.toFixed(0)} (limit ${v.finalLagLimit.toFixed(0)})`
  );
}

/**
 * Bisects every assigner's sustainable rate, their probes interleaved (round-robin's, then
 * load-aware's, then round-robin's again...), on the brokers of `ctx`: one broker for all probes,
 * every probe with its own topic and group, so no lag carries over.
 */
export async function runSustainable(
  ctx: ProbeContext,
  assigners: readonly AssignerKind[],
  settings: SustainableSettings,
): Promise<SustainableResult> {
  const started = Date.now();
  const model = capacityModel(ctx.options);
  const start = initialBracket(Math.round(settings.lowFraction * model.ceiling), Math.round(model.ceiling));
  const { timing } = settings;
  ctx.log(
    `\n== Sustainable throughput (${settings.mode}) ==\n` +
      `Nominal capacity ${model.groupRate.toFixed(0)} msg/s (${String(model.members)} members × ` +
      `${model.memberRate.toFixed(0)}); the hottest partition carries ${(100 * model.hottestShare).toFixed(1)} % ` +
      `of the rate, so no assigner sustains more than ${model.ceiling.toFixed(0)} msg/s. Bisection from ` +
      `${String(start.low)} to ${String(start.high)} msg/s until within ${String(100 * settings.limits.precision)} % ` +
      `(at most ${String(settings.limits.maxProbes)} probes per assigner); each probe: stable group, ` +
      `${String(timing.settleSeconds)} s settle, ${String(timing.windowSeconds)} s window. ${oracleText(model)}`,
  );
  const probeCtx: ProbeContext = {
    ...ctx,
    pinnedPlans: { oracle: model.oracle.plan, 'load-aware-pinned': model.loadAwarePlan.plan },
  };
  const probes = new Map(assigners.map((a) => [a, [] as ProbeRecord[]]));
  const brackets = await bisectInterleaved(assigners, start, settings.limits, async (assigner, rate) => {
    const done = probes.get(assigner)!;
    ctx.log(
      `  ${assigner} probe ${String(done.length + 1)} at ${String(rate)} msg/s (${pct(rate, model)} of nominal)...`,
    );
    const probeStarted = Date.now();
    const result = await runProbe(assigner, rate, timing, probeCtx);
    const record = { ...result, wallSeconds: Math.round((Date.now() - probeStarted) / 100) / 10 };
    done.push(record);
    ctx.log(`    ${describeProbe(record)} [${String(record.wallSeconds)} s]`);
    return result.sustainable;
  });
  const results: AssignerSustainable[] = assigners.map((assigner) => {
    const { bracket } = brackets.get(assigner)!;
    ctx.log(`  ${assigner}: sustainable ≥ ${String(bracket.low)}, < ${String(bracket.high)} msg/s`);
    return { assigner, probes: probes.get(assigner)!, bracket, sustainableRate: bracket.low };
  });
  const rr = results.find((r) => r.assigner === 'round-robin');
  const la = results.find((r) => r.assigner === 'load-aware');
  const between = (a: Bracket, b: Bracket): { point: number; min: number; max: number } => ({
    point: a.low / b.low,
    min: a.low / b.high,
    max: a.high / b.low,
  });
  const ratio = rr === undefined || la === undefined ? null : between(la.bracket, rr.bracket);
  const oracle = results.find((r) => r.assigner === 'oracle');
  const ofOracle =
    oracle === undefined
      ? []
      : results
          .filter((r) => r.assigner !== 'oracle')
          .map((r) => ({ assigner: r.assigner, ...between(r.bracket, oracle.bracket) }));
  return {
    settings,
    rule: { ...LAG_RULE },
    model,
    start,
    assigners: results,
    ratio,
    ofOracle,
    wallSeconds: Math.round((Date.now() - started) / 1000),
  };
}

/** The oracle's plan in one sentence: busiest member's share, the rate that saturates it, each member's partitions. */
function oracleText(model: CapacityModel): string {
  const { oracle, loadAwarePlan } = model;
  const slots = (plan: number[][]): string => plan.map((ps) => `[${ps.join(',')}]`).join(' ');
  return (
    `The oracle (best static plan, ${oracle.exact ? 'exact' : 'best found, search cut'}, ${String(oracle.nodes)} search nodes): ` +
    `busiest member ${(100 * oracle.busiestShare).toFixed(1)} % of the rate, saturated at ${oracle.ceiling.toFixed(0)} msg/s; ` +
    `members in layout order ${slots(oracle.plan)}. load-aware's own plan for the exact rates (load-aware-pinned): ` +
    `busiest member ${(100 * loadAwarePlan.busiestShare).toFixed(1)} %; ${slots(loadAwarePlan.plan)}.`
  );
}

function bound(rate: number, verified: boolean): string {
  return verified ? String(rate) : `${String(rate)} (assumed, not probed)`;
}

/** The stage as Markdown: the rule, a probe table per assigner, then the summary. */
export function sustainableMarkdown(r: SustainableResult): string {
  const { model, rule, settings } = r;
  const lines = [
    `## Sustainable throughput (${settings.mode} mode, ${String(r.wallSeconds)} s)`,
    '',
    `Nominal capacity ${model.groupRate.toFixed(0)} msg/s (${String(model.members)} members × ${model.memberRate.toFixed(0)} msg/s); ` +
      `hottest partition ${(100 * model.hottestShare).toFixed(1)} % of the rate, ceiling ${model.ceiling.toFixed(0)} msg/s. ` +
      `Bisection from ${String(r.start.low)} to ${String(r.start.high)} msg/s, until within ` +
      `${String(100 * settings.limits.precision)} % or ${String(settings.limits.maxProbes)} probes. Each probe: fresh ` +
      `topic and group, stable group, ${String(settings.timing.settleSeconds)} s settle, ` +
      `${String(settings.timing.windowSeconds)} s window. Bounded: the sum of the members' positive lag slopes ≤ ` +
      `${String(100 * rule.maxGrowthFraction)} % of the rate, and the final lag ≤ ${String(rule.maxFinalLagSeconds)} s of traffic.`,
    '',
    oracleText(model),
  ];
  for (const a of r.assigners) {
    lines.push(
      '',
      `### ${a.assigner}`,
      '',
      '| # | rate (msg/s) | of nominal | busiest member (share of the rate) | growth (msg/s) | limit | total lag slope (msg/s) | final lag | consumed (msg/s) | verdict |',
      '| -: | -: | -: | --- | -: | -: | -: | -: | -: | --- |',
    );
    a.probes.forEach((p, i) => {
      const v = p.verdict;
      const cells = [
        String(i + 1),
        String(p.rate),
        pct(p.rate, model),
        busiestMember(p),
        v === undefined ? '-' : v.growth.toFixed(1),
        v === undefined ? '-' : v.growthLimit.toFixed(1),
        v === undefined ? '-' : v.totalSlope.toFixed(1),
        v === undefined ? '-' : v.finalLag.toFixed(0),
        p.consumedPerSec === null ? '-' : p.consumedPerSec.toFixed(0),
        p.sustainable ? 'bounded' : `not (${p.outcome})`,
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    });
  }
  lines.push(
    '',
    '| assigner | sustainable rate (msg/s) | not sustainable at (msg/s) | probes |',
    '| --- | -: | -: | -: |',
  );
  for (const a of r.assigners) {
    lines.push(
      `| ${a.assigner} | ${bound(a.bracket.low, a.bracket.lowVerified)} | ${bound(a.bracket.high, a.bracket.highVerified)} | ${String(a.probes.length)} |`,
    );
  }
  if (r.ratio !== null) {
    lines.push(
      '',
      `load-aware ÷ round-robin: ${r.ratio.point.toFixed(2)} (the brackets allow ${r.ratio.min.toFixed(2)}–${r.ratio.max.toFixed(2)}).`,
    );
  }
  for (const o of r.ofOracle) {
    lines.push(
      '',
      `${o.assigner} ÷ oracle: ${o.point.toFixed(2)} (the brackets allow ${o.min.toFixed(2)}–${o.max.toFixed(2)}).`,
    );
  }
  return lines.join('\n');
}
