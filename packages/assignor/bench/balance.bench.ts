/**
 * `pnpm bench`: how fast is balance(), and what does it cost next to KafkaJS's own round-robin?
 *
 * Every (scenario, path) case runs in a fresh child process started with `--expose-gc`, so the
 * JIT state, heap and resident-set high-water mark of one case never leak into the next. Inputs
 * are seeded, so two runs measure exactly the same groups. Informational only: nothing here
 * fails on a slow number.
 */
import { PATH_IDS, PATH_LABELS, prepareCase, RACK_PATHS, type PathId } from './cases.js';
import { median } from '@load-aware/assignor/internal';
import { judge, type AssignmentQuality } from './quality.js';
import {
  benchCaseArg,
  benchHeading,
  buildScenario,
  markdownTable,
  measure,
  measureAllocation,
  replyToBenchParent,
  runBenchChild,
  SCENARIO_IDS,
  type Allocation,
  type Measurement,
} from '@load-aware/test-support';

/**
 * Rounds of (racks RF 1, racks RF 2) children for the racks' ratio, each between two balance()
 * children: on a shared 2-core machine one child's median drifts by a third between minutes, so a
 * ratio of two children run a minute apart measures the machine. Each round's racks are divided
 * by the mean of the balance() children just before and just after them (drift that goes one way
 * cancels), and the ratio is the median of the rounds' ratios.
 */
const RACK_ROUNDS = 6;

/** The performance target this benchmark checks: 100k partitions in under a second. */
const TARGET_SCENARIO = 'b';
const TARGET_MS = 1000;

/**
 * Young generation of the allocation child: large enough that no collection runs during one
 * call, so everything the call allocates is still counted when it returns.
 */
const ALLOCATION_SEMI_SPACE_MB = 256;

interface CaseResult {
  readonly scenarioId: string;
  readonly scenarioLabel: string;
  readonly path: PathId;
  readonly measurement: Measurement;
  readonly quality: AssignmentQuality;
  /** From a separate child (see {@link ALLOCATION_SEMI_SPACE_MB}); undefined for KafkaJS's path. */
  readonly allocation?: Allocation | undefined;
}

/** Child side: build one scenario, judge one assignment, then time the path. */
async function runCase(scenarioId: string, path: PathId): Promise<CaseResult> {
  const scenario = buildScenario(scenarioId);
  const prepared = prepareCase(scenario, path);
  const quality = judge(scenario, await prepared.assignments());
  const measurement = await measure(() => prepared.run());
  return { scenarioId, scenarioLabel: scenario.label, path, measurement, quality };
}

/** Child side, allocation mode: build one scenario, measure what one warmed call allocates. */
async function runAllocationCase(scenarioId: string, path: PathId): Promise<Allocation> {
  const prepared = prepareCase(buildScenario(scenarioId), path);
  return measureAllocation(() => prepared.run());
}

/** Parent side: one child per case, sequentially (the machine has few cores; runs must not overlap). */
function runChild(scenarioId: string, path: PathId): Promise<CaseResult> {
  return runBenchChild<CaseResult>(__filename, ['--case', `${scenarioId}:${path}`]);
}

/** The allocation of one case, in a child of its own with a young generation no call fills. */
function runAllocationChild(scenarioId: string, path: PathId): Promise<Allocation> {
  const semi = String(ALLOCATION_SEMI_SPACE_MB);
  return runBenchChild<Allocation>(
    __filename,
    ['--allocation', `${scenarioId}:${path}`],
    [`--min-semi-space-size=${semi}`, `--max-semi-space-size=${semi}`],
  );
}

function describeInvalid(q: AssignmentQuality): string {
  const parts = [
    q.toNonSubscribers > 0 ? `${String(q.toNonSubscribers)} to non-subscribers` : '',
    q.missing > 0 ? `${String(q.missing)} unassigned` : '',
    q.duplicated > 0 ? `${String(q.duplicated)} duplicated` : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? '0' : parts.join(', ');
}

function report(results: ReadonlyArray<CaseResult>, rackRatios: ReadonlyMap<PathId, number>): string {
  const rows = results.map((r) => {
    const m = r.measurement;
    // Rack paths against balance() on the same group (the rounds' median), the others against round-robin.
    const baseline = results.find((b) => b.scenarioId === r.scenarioId && b.path === 'kafkajs-rr');
    const paired = rackRatios.get(r.path);
    const ratio =
      paired !== undefined
        ? `${paired.toFixed(2)} ²`
        : r.path === 'kafkajs-rr' || baseline === undefined
          ? '—'
          : (m.medianMs / baseline.measurement.medianMs).toFixed(2);
    const allocated =
      r.allocation === undefined ? '—' : `${r.allocation.exact ? '' : '≥ '}${r.allocation.allocatedMb.toFixed(1)}`;
    return [
      `(${r.scenarioId}) ${r.scenarioLabel}`,
      PATH_LABELS[r.path],
      String(m.runs),
      m.medianMs.toFixed(1),
      m.p95Ms.toFixed(1),
      ratio,
      m.heapDeltaMb.toFixed(1),
      allocated,
      `${m.rssBaseMb.toFixed(0)} → ${m.rssPeakMb.toFixed(0)}`,
      r.quality.maxToIdeal.toFixed(4),
      describeInvalid(r.quality),
    ];
  });
  const header = [
    'scenario',
    'path',
    'runs',
    'median ms',
    'p95 ms',
    'ours ÷ RR',
    'heap Δ MB',
    'allocated MB',
    'RSS base → peak MB',
    'max/ideal',
    'invalid',
  ];
  return markdownTable(header, rows, new Set([2, 3, 4, 5, 6, 7, 8, 9]));
}

function targetLine(results: ReadonlyArray<CaseResult>): string {
  const target = results.find((r) => r.scenarioId === TARGET_SCENARIO && r.path === 'balance');
  if (target === undefined) return 'Target: not measured.';
  const { medianMs, p95Ms } = target.measurement;
  const verdict = p95Ms < TARGET_MS ? 'met' : 'NOT met';
  return (
    `Target: balance() on 100k partitions under ${String(TARGET_MS)} ms: ${verdict} ` +
    `(median ${medianMs.toFixed(0)} ms, p95 ${p95Ms.toFixed(0)} ms).`
  );
}

async function main(): Promise<void> {
  const timed = benchCaseArg('--case', PATH_IDS);
  if (timed !== undefined) {
    replyToBenchParent(await runCase(timed.scenarioId, timed.path));
    return;
  }
  const allocated = benchCaseArg('--allocation', PATH_IDS);
  if (allocated !== undefined) {
    replyToBenchParent(await runAllocationCase(allocated.scenarioId, allocated.path));
    return;
  }
  console.log(benchHeading('balance() benchmark'));
  const results: CaseResult[] = [];
  for (const scenarioId of SCENARIO_IDS) {
    for (const path of PATH_IDS) {
      // Racks are timed on the 100k group only: the target they must keep is there.
      if (RACK_PATHS.has(path) && scenarioId !== TARGET_SCENARIO) continue;
      const timed = await runChild(scenarioId, path);
      const result =
        path === 'kafkajs-rr' ? timed : { ...timed, allocation: await runAllocationChild(scenarioId, path) };
      console.error(
        `  (${scenarioId}) ${PATH_LABELS[path]}: median ${result.measurement.medianMs.toFixed(1)} ms over ${String(result.measurement.runs)} runs`,
      );
      results.push(result);
    }
  }
  const rounds = await rackRounds();
  const rackRatios = new Map(
    [...RACK_PATHS].map((path) => [path, median(rounds.map((round) => round.get(path)!))!] as const),
  );
  console.log(report(results, rackRatios));
  console.log(
    '\n² the same group with racks (3, instances spread evenly), ÷ balance() on it without racks: the median of ' +
      `${String(rounds.length)} rounds, each ÷ the mean of the balance() runs just before and after it (${rounds
        .map((round) => [...RACK_PATHS].map((path) => round.get(path)!.toFixed(2)).join(' / '))
        .join(', ')}; RF 1 / RF 2).`,
  );
  console.log(`\n${targetLine(results)}`);
}

/**
 * The racks' ratios to balance() on the target group, round by round: {@link RACK_ROUNDS} rounds
 * of back-to-back children, each round's racks between two balance() children (the closing one
 * opens the next round).
 */
async function rackRounds(): Promise<Array<Map<PathId, number>>> {
  const plainMs = async (): Promise<number> => (await runChild(TARGET_SCENARIO, 'balance')).measurement.medianMs;
  const rounds: Array<Map<PathId, number>> = [];
  let before = await plainMs();
  for (let k = 0; k < RACK_ROUNDS; k++) {
    const racksMs = new Map<PathId, number>();
    for (const path of RACK_PATHS) racksMs.set(path, (await runChild(TARGET_SCENARIO, path)).measurement.medianMs);
    const after = await plainMs();
    const plain = (before + after) / 2;
    const round = new Map([...racksMs].map(([path, ms]) => [path, ms / plain] as const));
    console.error(`  racks round ${String(k + 1)}: ${[...round.values()].map((r) => r.toFixed(2)).join(' / ')}`);
    rounds.push(round);
    before = after;
  }
  return rounds;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
