/**
 * The threshold trigger's share of `pnpm bench`: what one check costs on a Stable group that
 * holds what balance() gives it, the check a trigger runs every `checkIntervalMs` while nothing is
 * wrong. A check runs balance() on the group and then on each instance's members, so it is timed
 * beside balance() on the same seeded scenarios and printed as a ratio of it.
 *
 * Every case runs in a fresh child process (see `runBenchChild`). Informational only: nothing
 * here fails on a slow number.
 */
import { balance } from '@load-aware/assignor';
import {
  benchCaseArg,
  benchHeading,
  buildScenario,
  markdownTable,
  measure,
  replyToBenchParent,
  runBenchChild,
  SCENARIO_IDS,
  scenarioPartitions,
  type Measurement,
} from '@load-aware/test-support';
import { createThresholdTrigger } from '@load-aware/trigger';

/** What is timed: the pure core alone (the baseline), or one whole trigger check. */
type PathId = 'balance' | 'trigger';
const PATH_IDS: ReadonlyArray<PathId> = ['balance', 'trigger'];
const PATH_LABELS: Readonly<Record<PathId, string>> = {
  balance: 'balance()',
  trigger: 'threshold trigger evaluate',
};

interface CaseResult {
  readonly scenarioId: string;
  readonly scenarioLabel: string;
  readonly path: PathId;
  readonly measurement: Measurement;
  /** Whether the check would fire: on a group already holding balance()'s answer it must not. */
  readonly fires: boolean;
}

/** Child side: build the scenario and the Stable group outside the timing, then time one path. */
async function runCase(scenarioId: string, path: PathId): Promise<CaseResult> {
  const scenario = buildScenario(scenarioId);
  const partitions = scenarioPartitions(scenario);
  const input = { members: scenario.members, partitions };
  const held = balance(input).assignments;
  const observation = {
    state: 'Stable',
    members: scenario.members.map((m) => ({ ...m, assigned: held.get(m.memberId) ?? [] })),
    partitions,
  };
  // A fresh trigger per call, so hysteresis state never changes what one call does.
  const evaluate = () => createThresholdTrigger().evaluate(observation);
  const fires = evaluate().outcome === 'fired';
  const measurement = await measure(path === 'balance' ? () => balance(input) : evaluate);
  return { scenarioId, scenarioLabel: scenario.label, path, measurement, fires };
}

function report(results: ReadonlyArray<CaseResult>): string {
  const rows = results.map((r) => {
    const m = r.measurement;
    const baseline = results.find((b) => b.scenarioId === r.scenarioId && b.path === 'balance');
    const ratio =
      r.path === 'balance' || baseline === undefined ? '—' : (m.medianMs / baseline.measurement.medianMs).toFixed(2);
    return [
      `(${r.scenarioId}) ${r.scenarioLabel}`,
      PATH_LABELS[r.path],
      String(m.runs),
      m.medianMs.toFixed(1),
      m.p95Ms.toFixed(1),
      ratio,
      m.heapDeltaMb.toFixed(1),
      `${m.rssBaseMb.toFixed(0)} → ${m.rssPeakMb.toFixed(0)}`,
      r.path === 'trigger' ? (r.fires ? 'yes' : 'no') : '—',
    ];
  });
  const header = [
    'scenario',
    'path',
    'runs',
    'median ms',
    'p95 ms',
    '÷ balance()',
    'heap Δ MB',
    'RSS base → peak MB',
    'fires',
  ];
  return markdownTable(header, rows, new Set([2, 3, 4, 5, 6, 7]));
}

async function main(): Promise<void> {
  const timed = benchCaseArg('--case', PATH_IDS);
  if (timed !== undefined) {
    replyToBenchParent(await runCase(timed.scenarioId, timed.path));
    return;
  }
  console.log(benchHeading('threshold trigger benchmark'));
  const results: CaseResult[] = [];
  for (const scenarioId of SCENARIO_IDS) {
    for (const path of PATH_IDS) {
      const result = await runBenchChild<CaseResult>(__filename, ['--case', `${scenarioId}:${path}`]);
      console.error(
        `  (${scenarioId}) ${PATH_LABELS[path]}: median ${result.measurement.medianMs.toFixed(1)} ms over ${String(result.measurement.runs)} runs`,
      );
      results.push(result);
    }
  }
  console.log(report(results));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
