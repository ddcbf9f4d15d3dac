/**
 * `npm run demo -- --cross-group`: issue 13's comparison on a local broker (or `--brokers`). Two
 * consumer groups (`orders`, `payments`), each on its own skewed topic, run in three instance
 * processes (one consumer per group in each) under KafkaJS round-robin, load-aware with each group
 * balanced alone, then load-aware with `crossGroup` and the trigger. Each mode is judged by the
 * combined busiest instance ÷ ideal over both groups; the cross-group mode also counts proactive
 * rebalances during a steady window after convergence. The table is printed; chart.svg
 * (cross-group-chart.ts) and result.json go to the output folder.
 *
 * The modes live in the integration tests' support (test/support/cross-group-scenario.ts) so the
 * demo and the test that checks the targets run the very same code.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  formatCrossGroupComparison,
  runCrossGroupComparison,
  type CrossGroupMode,
} from '@load-aware/integration-tests/cross-group-scenario';
import { renderCrossGroupChart } from './cross-group-chart.js';
import { DemoUsageError, defaultOptions, outputStamp, parseNumberFlag, readModeFlags } from './options.js';
import { withBrokers } from './run.js';
import { LiveView } from './live-view.js';

/** The flag that selects this comparison instead of the round-robin vs load-aware phases. */
export const CROSS_GROUP_FLAG = '--cross-group';

const MODES: readonly CrossGroupMode[] = ['round-robin', 'off', 'on'];

export const CROSS_GROUP_USAGE = `Usage: npm run demo -- --cross-group [flags]

  --brokers host:port[,...]  use this cluster instead of starting a local broker
  --steady-minutes N         steady window after convergence, cross-group mode (default 5)
  --modes a,b,...            which of round-robin,off,on to run, in order (default all three)
  --out DIR                  where chart.svg and result.json go (default out/cross-group-<timestamp>)
  --help                     this text
`;

/** Options of the cross-group comparison. */
export interface CrossGroupDemoOptions {
  brokers: string[] | undefined;
  steadyMinutes: number;
  modes: CrossGroupMode[];
  /** Where chart.svg and result.json go; created if missing. */
  outDir: string;
}

/**
 * Parses the flags after `--cross-group`; throws {@link DemoUsageError} naming a bad one. `now`
 * stamps the default output folder.
 */
export function parseCrossGroupArgs(args: ReadonlyArray<string>, now = new Date()): CrossGroupDemoOptions | 'help' {
  // The main demo's out/demo-<timestamp>, with this comparison's name.
  const options: CrossGroupDemoOptions = {
    brokers: undefined,
    steadyMinutes: 5,
    modes: [...MODES],
    outDir: `out/cross-group-${outputStamp(now)}`,
  };
  const help = readModeFlags(args, CROSS_GROUP_FLAG, (flag, raw) => {
    if (flag === '--brokers') options.brokers = raw.split(',').map((b) => b.trim());
    else if (flag === '--steady-minutes') options.steadyMinutes = parseNumberFlag(flag, raw, 0.5, 120, false);
    else if (flag === '--modes') options.modes = modes(raw);
    else if (flag === '--out') options.outDir = raw;
    else throw new DemoUsageError(`Unknown flag ${flag} for --cross-group (see --cross-group --help)`);
  });
  return help ?? options;
}

function modes(raw: string): CrossGroupMode[] {
  const names = raw.split(',').map((m) => m.trim());
  const unknown = names.find((n) => !(MODES as readonly string[]).includes(n));
  if (unknown !== undefined || names.length === 0) {
    throw new DemoUsageError(`--modes ${raw}: expected some of ${MODES.join(',')}`);
  }
  return names as CrossGroupMode[];
}

/**
 * Runs the comparison, prints the table, writes chart.svg and result.json and prints their paths;
 * returns the exit code.
 */
export async function runCrossGroupDemo(args: ReadonlyArray<string>): Promise<number> {
  let options;
  try {
    options = parseCrossGroupArgs(args);
  } catch (err) {
    if (!(err instanceof DemoUsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(CROSS_GROUP_USAGE);
    return 0;
  }
  const outDir = resolve(options.outDir);
  // Before the run, so a folder that cannot be made fails now rather than after minutes of work.
  await mkdir(outDir, { recursive: true });
  const startedAt = new Date().toISOString();
  const view = new LiveView(process.stdout, false);
  const signal = new AbortController().signal;
  const { result, kafkaVersion } = await withBrokers(
    { ...defaultOptions(), brokers: options.brokers },
    signal,
    view,
    async ({ brokers, kafkaVersion }) => ({
      kafkaVersion,
      result: await runCrossGroupComparison({
        brokers,
        modes: options.modes,
        steadyMs: options.steadyMinutes * 60_000,
        // A longer quiet period than the test's: the demo can afford to be sure it converged.
        quietMs: 30_000,
        log: (line) => {
          view.line(line);
        },
      }),
    }),
  );
  const finishedAt = new Date().toISOString();
  view.line(`\n${formatCrossGroupComparison(result)}`);
  const chartPath = `${outDir}/chart.svg`;
  const resultPath = `${outDir}/result.json`;
  const kafka = kafkaVersion ?? 'external';
  await writeFile(resultPath, `${JSON.stringify({ startedAt, finishedAt, kafka, options, ...result }, null, 2)}\n`);
  await writeFile(chartPath, renderCrossGroupChart(result));
  view.line(`\nWritten: ${chartPath}\n         ${resultPath}`);
  return 0;
}
