/**
 * `pnpm bench:quality`: how good are balance()'s placements, and how few partitions move?
 *
 * A seeded suite (see suite.ts) scored for three contenders: our balance(), the reference
 * greedy it starts from (referenceBalance()) and KafkaJS's own round-robin. For each case:
 * max instance load ÷ lower bound and ÷ the best known result (a proven optimum on the small
 * cases), compute time, and, for balance() given the previous assignment, the partitions that
 * move under ±10% weight noise and when one instance leaves (also as moved ÷ what it held). Prints Markdown tables for
 * BENCHMARKS.md and checks the targets. Informational: it always exits 0.
 *
 * Usage: node packages/assignor/.build/bench/quality/quality.bench.js [case-id ...]
 */
import { baseLoadTable, scoreWithBaseLoads, type BaseLoadReport } from './base-loads.js';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { balance, referenceBalance } from '@load-aware/assignor/internal';
import { optimum } from './exact.js';
import { moved, score, weightMap, type Assignment } from './judge.js';
import { createKafkaJsRoundRobin } from './kafkajs-round-robin.js';
import { createRng } from './rng.js';
import { buildCase, CASE_IDS, type QualityCase } from './suite.js';
import { markdownTable as markdown } from '@load-aware/test-support';
import { runTimed } from './timing.js';
import { racksTable, runRackCases } from './racks.js';
import { rackSweepTable, runRackSweep } from './rack-sweep.js';

/** The command line read once: the case ids. */
const ARGS = { wanted: process.argv.slice(2) };

/** Noise draws per case: each scales every weight by an independent factor in [0.9, 1.1). */
const NOISE_DRAWS = 3;

interface CaseReport {
  readonly c: QualityCase;
  /** balance()'s from-scratch placement, the start of every leave. */
  readonly ours0: Assignment;
  readonly lowerBound: number;
  readonly best: number;
  readonly exact: number | undefined;
  readonly ours: number;
  readonly greedy: number;
  readonly roundRobin: number;
  readonly roundRobinInvalid: number;
  readonly oursMs: number;
  readonly greedyMs: number;
  readonly roundRobinMs: number;
  readonly noise: {
    readonly oursMoved: number;
    readonly oursRatio: number;
    readonly greedyMoved: number;
    readonly stickyMs: number;
  };
  readonly leave: {
    readonly departedShare: number;
    readonly oursMoved: number;
    /** Partitions moved ÷ partitions the departed instance held (1 when only its own move). */
    readonly movedPerHeld: number;
    /** Busiest instance after the leave ÷ the best known placement of the smaller group. */
    readonly oursBest: number;
    readonly oursRatio: number;
    readonly greedyMoved: number;
    readonly roundRobinMoved: number;
  };
}

async function runCase(c: QualityCase): Promise<CaseReport> {
  const input = { members: c.members, partitions: c.partitions };
  const ours = runTimed(() => balance(input));
  const greedy = runTimed(() => referenceBalance(input));
  const rr = createKafkaJsRoundRobin(c);
  const rrResult = await runTimedAsync(rr);
  const exact = optimum(c);
  const oursMax = score(c, ours.value.assignments).maxLoad;
  const greedyMax = score(c, greedy.value.assignments).maxLoad;
  const rrScore = score(c, rrResult.value);
  const best = Math.min(oursMax, greedyMax, rrScore.invalid === 0 ? rrScore.maxLoad : Infinity, exact ?? Infinity);
  const P = c.partitions.length;

  const rng = createRng(7);
  let oursMovedNoise = 0;
  let oursRatioNoise = 0;
  let greedyMovedNoise = 0;
  let stickyMs = 0;
  for (let draw = 0; draw < NOISE_DRAWS; draw++) {
    const factors = c.partitions.map(() => 0.9 + 0.2 * rng.next());
    const noisy = {
      members: c.members,
      partitions: c.partitions.map((p, i) => ({ ...p, weight: p.weight * factors[i]! })),
    };
    const sticky = runTimed(() => balance({ ...noisy, previous: ours.value.assignments }));
    const weights = weightMap(c, (i) => factors[i]!);
    oursMovedNoise = Math.max(oursMovedNoise, moved(ours.value.assignments, sticky.value.assignments) / P);
    oursRatioNoise = Math.max(
      oursRatioNoise,
      score(c, sticky.value.assignments, weights).maxLoad / sticky.value.lowerBound,
    );
    greedyMovedNoise = Math.max(
      greedyMovedNoise,
      moved(greedy.value.assignments, referenceBalance(noisy).assignments) / P,
    );
    stickyMs = Math.max(stickyMs, sticky.ms);
  }

  const instances = [...new Set(c.members.map((m) => m.instanceId))].sort();
  const departed = instances[Math.floor(instances.length / 2)]!;
  const stayed = c.members.filter((m) => m.instanceId !== departed);
  const departedMembers = new Set(c.members.filter((m) => m.instanceId === departed).map((m) => m.memberId));
  const departedShare = countOf(ours.value.assignments, departedMembers) / P;
  const left = { members: stayed, partitions: c.partitions };
  const oursLeft = balance({ ...left, previous: ours.value.assignments });
  const reduced = { ...c, members: stayed };
  const oursLeftMax = score(reduced, oursLeft.assignments).maxLoad;
  // Best known for the smaller group: ours sticky, ours from scratch, or the greedy.
  const bestLeft = Math.min(
    oursLeftMax,
    score(reduced, balance(left).assignments).maxLoad,
    score(reduced, referenceBalance(left).assignments).maxLoad,
  );
  const held = countOf(ours.value.assignments, departedMembers);
  const movedLeft = moved(ours.value.assignments, oursLeft.assignments);
  return {
    c,
    ours0: ours.value.assignments,
    lowerBound: ours.value.lowerBound,
    best,
    exact,
    ours: oursMax,
    greedy: greedyMax,
    roundRobin: rrScore.maxLoad,
    roundRobinInvalid: rrScore.invalid,
    oursMs: ours.ms,
    greedyMs: greedy.ms,
    roundRobinMs: rrResult.ms,
    noise: { oursMoved: oursMovedNoise, oursRatio: oursRatioNoise, greedyMoved: greedyMovedNoise, stickyMs },
    leave: {
      departedShare,
      oursMoved: movedLeft / P,
      movedPerHeld: held === 0 ? 0 : movedLeft / held,
      oursBest: oursLeftMax / bestLeft,
      oursRatio: oursLeftMax / oursLeft.lowerBound,
      greedyMoved: moved(greedy.value.assignments, referenceBalance(left).assignments) / P,
      roundRobinMoved: moved(rrResult.value, await createKafkaJsRoundRobin(reduced)()) / P,
    },
  };
}

/** Moved ÷ held and busiest ÷ best known when instance `departed` leaves the group `ours` placed. */
function leaveOf(c: QualityCase, ours: Assignment, departed: string): { movedPerHeld: number; oursBest: number } {
  const stayed = c.members.filter((m) => m.instanceId !== departed);
  const gone = new Set(c.members.filter((m) => m.instanceId === departed).map((m) => m.memberId));
  const left = { members: stayed, partitions: c.partitions };
  const reduced = { ...c, members: stayed };
  const sticky = balance({ ...left, previous: ours }).assignments;
  const after = score(reduced, sticky).maxLoad;
  // Best known for the smaller group: ours sticky, ours from scratch, or the greedy.
  const best = Math.min(
    after,
    score(reduced, balance(left).assignments).maxLoad,
    score(reduced, referenceBalance(left).assignments).maxLoad,
  );
  const held = countOf(ours, gone);
  return { movedPerHeld: held === 0 ? 0 : moved(ours, sticky) / held, oursBest: after / best };
}

/**
 * Every instance of the case leaving in turn (from the same placement): the worst and the median
 * of moved ÷ held and of busiest ÷ best known, and how many leaves meet both targets. One leave
 * can be lucky; fifty cannot.
 */
function everyLeave(c: QualityCase, ours: Assignment): EveryLeave {
  const instances = [...new Set(c.members.map((m) => m.instanceId))].sort();
  const leaves = instances.map((i) => leaveOf(c, ours, i));
  const ratios = leaves.map((l) => l.movedPerHeld).sort((a, b) => a - b);
  const bests = leaves.map((l) => l.oursBest).sort((a, b) => a - b);
  return {
    count: leaves.length,
    worst: ratios[ratios.length - 1] ?? 0,
    median: ratios[Math.floor(ratios.length / 2)] ?? 0,
    worstBest: bests[bests.length - 1] ?? 0,
    medianBest: bests[Math.floor(bests.length / 2)] ?? 0,
    met: leaves.filter((l) => l.movedPerHeld <= 1.5 && l.oursBest <= 1.02).length,
  };
}

/** {@link everyLeave}'s summary over the leaves of every instance in turn. */
interface EveryLeave {
  readonly count: number;
  /** Moved ÷ held. */
  readonly worst: number;
  readonly median: number;
  /** Busiest ÷ best known. */
  readonly worstBest: number;
  readonly medianBest: number;
  /** Leaves within both targets (moved ≤ 1.5 × held, busiest ≤ 1.02 × best known). */
  readonly met: number;
}

async function runTimedAsync(run: () => Promise<Assignment>): Promise<{ value: Assignment; ms: number }> {
  await run();
  const times: number[] = [];
  let value: Assignment = new Map();
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    value = await run();
    times.push(performance.now() - started);
  }
  return { value, ms: times.sort((a, b) => a - b)[1]! };
}

function countOf(assignment: Assignment, members: ReadonlySet<string>): number {
  let n = 0;
  for (const [memberId, partitions] of assignment) if (members.has(memberId)) n += partitions.length;
  return n;
}

const ratio = (x: number): string => x.toFixed(3);
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const ms = (x: number): string => (x < 10 ? x.toFixed(2) : x.toFixed(0));

function report(rows: ReadonlyArray<CaseReport>): string {
  const quality = markdown(
    [
      'case',
      'P',
      'inst / members',
      'ours ÷ LB',
      'greedy ÷ LB',
      'RR ÷ LB',
      'ours ÷ best',
      'ours ms',
      'greedy ms',
      'RR ms',
    ],
    rows.map((r) => [
      `${r.c.id}: ${r.c.label}`,
      String(r.c.partitions.length),
      `${String(new Set(r.c.members.map((m) => m.instanceId)).size)} / ${String(r.c.members.length)}`,
      ratio(r.ours / r.lowerBound),
      ratio(r.greedy / r.lowerBound),
      r.roundRobinInvalid > 0
        ? `${ratio(r.roundRobin / r.lowerBound)} (${String(r.roundRobinInvalid)} invalid)`
        : ratio(r.roundRobin / r.lowerBound),
      `${ratio(r.ours / r.best)}${r.exact !== undefined ? ' (proven)' : ''}`,
      ms(r.oursMs),
      ms(r.greedyMs),
      ms(r.roundRobinMs),
    ]),
    new Set([1, 3, 4, 5, 6, 7, 8, 9]),
  );
  const moves = markdown(
    [
      'case',
      'noise: ours moved',
      'ours ÷ LB after',
      'greedy moved',
      'sticky ms',
      'leave: its share',
      'ours moved',
      'moved ÷ held',
      'ours ÷ LB after',
      'ours ÷ best after',
      'greedy moved',
      'RR moved',
    ],
    rows.map((r) => [
      r.c.id,
      pct(r.noise.oursMoved),
      ratio(r.noise.oursRatio),
      pct(r.noise.greedyMoved),
      ms(r.noise.stickyMs),
      pct(r.leave.departedShare),
      pct(r.leave.oursMoved),
      ratio(r.leave.movedPerHeld),
      ratio(r.leave.oursRatio),
      ratio(r.leave.oursBest),
      pct(r.leave.greedyMoved),
      pct(r.leave.roundRobinMoved),
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
  );
  return `${quality}\n\n${moves}`;
}

function targets(rows: ReadonlyArray<CaseReport>): string {
  const check = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  const worstBest = Math.max(...rows.map((r) => r.ours / r.best));
  const worseThanGreedy = rows.filter((r) => r.ours > r.greedy * (1 + 1e-9)).map((r) => r.c.id);
  const worstNoise = Math.max(...rows.map((r) => r.noise.oursMoved));
  const big = rows.filter((r) => r.c.partitions.length >= 100_000);
  const slowest = Math.max(0, ...big.map((r) => r.oursMs));
  const leave = rows.find((r) => r.c.id === 'leave-2k');
  const all = leave === undefined ? undefined : everyLeave(leave.c, leave.ours0);
  return [
    `- within 2% of the best known on every case: worst ${ratio(worstBest)} → ${check(worstBest <= 1.02)}`,
    `- never worse than the greedy: ${worseThanGreedy.length === 0 ? 'no case' : worseThanGreedy.join(', ')} → ${check(worseThanGreedy.length === 0)}`,
    `- at most 5% of partitions moved under ±10% noise: worst ${pct(worstNoise)} → ${check(worstNoise <= 0.05)}`,
    `- 100k partitions in under 1 s: slowest ${ms(slowest)} ms → ${check(slowest < 1000)}`,
    ...(leave === undefined
      ? []
      : [
          `- one of 50 instances leaves (leave-2k): moved ÷ held ${ratio(leave.leave.movedPerHeld)} (≤ 1.5), ` +
            `busiest ÷ best known ${ratio(leave.leave.oursBest)} (≤ 1.02) → ` +
            check(leave.leave.movedPerHeld <= 1.5 && leave.leave.oursBest <= 1.02),
          `- each of its 50 instances leaving in turn: moved ÷ held median ${ratio(all!.median)}, worst ` +
            `${ratio(all!.worst)}; busiest ÷ best known median ${ratio(all!.medianBest)}, worst ` +
            `${ratio(all!.worstBest)}; ${String(all!.met)} of ${String(all!.count)} leaves within both → ` +
            check(all!.worst <= 1.5 && all!.worstBest <= 1.02),
        ]),
  ].join('\n');
}

async function main(): Promise<void> {
  const { wanted } = ARGS;
  const started = performance.now();
  // `racks` (or a racks-… case id) runs only the rack-aware cases.
  if (wanted.length > 0 && wanted.every((w) => w === 'racks' || w.startsWith('racks-'))) {
    const rackRows = await runRackCases(wanted.filter((w) => w !== 'racks'));
    process.stdout.write(`Rack-aware placement (log-normal σ 1, 3 racks):\n\n${racksTable(rackRows)}\n\n`);
    if (wanted.includes('racks')) printRackSweep();
    printMachine(started);
    return;
  }
  const ids = wanted.length > 0 ? wanted : CASE_IDS;
  const rows: CaseReport[] = [];
  const based: BaseLoadReport[] = [];
  for (const [index, id] of ids.entries()) {
    process.stderr.write(`${id}…\n`);
    const c = buildCase(id);
    rows.push(await runCase(c));
    based.push(scoreWithBaseLoads(c, 5000 + index));
  }
  process.stdout.write(`${report(rows)}\n\nTargets:\n${targets(rows)}\n\n`);
  process.stdout.write(`With random base loads per instance (cross-group balancing):\n\n${baseLoadTable(based)}\n\n`);
  if (wanted.length === 0) {
    const rackRows = await runRackCases();
    process.stdout.write(`Rack-aware placement (log-normal σ 1, 3 racks):\n\n${racksTable(rackRows)}\n\n`);
    printRackSweep();
  }
  printMachine(started);
}

/** The weighted rack sweep (./rack-sweep.ts): 144 seeded groups, placed with racks and without. */
function printRackSweep(): void {
  process.stderr.write('rack sweep…\n');
  process.stdout.write(
    `Weighted racks, swept (log-normal σ 1, 12 seeds a row):\n\n${rackSweepTable(runRackSweep())}\n\n`,
  );
}

/** The machine line: Node, CPUs, load average, total time. */
function printMachine(started: number): void {
  const [one, five, fifteen] = loadavg();
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    `Node ${process.version}, ${String(availableParallelism())} × ${cpu}, load average ` +
      `${[one, five, fifteen].map((x) => x!.toFixed(2)).join(' ')}; ${((performance.now() - started) / 1000).toFixed(0)} s in all.\n`,
  );
}

void main();
