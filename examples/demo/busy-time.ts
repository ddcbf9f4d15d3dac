/**
 * `npm run demo -- --busy-time`: issue 16's comparison on a local broker (or `--brokers`) and a
 * real Prometheus. Per-message cost differs 10× between partitions (a seeded cost map, printed),
 * produce rates do not follow it; three instances run round-robin, load-aware with offset-rate
 * weights, then load-aware with busy-time weights (Prometheus busy time blended with offset
 * rates), each judged by the busiest instance's busy time ÷ its fair share, with the lag. The
 * table is printed; chart.svg (busy-time-chart.ts) and result.json go to the output folder.
 *
 * The phases live in the integration tests' support (test/support/busy-time-scenario.ts) so the
 * demo and the test that checks the target run the very same code.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatBusyTimeComparison, runBusyTimeComparison } from '@load-aware/integration-tests/busy-time-scenario';
import { renderBusyTimeChart } from './busy-time-chart.js';
import { DemoUsageError, defaultOptions, outputStamp, parseNumberFlag, readModeFlags } from './options.js';
import { withBrokers } from './run.js';
import { LiveView } from './live-view.js';

/** The flag that selects this comparison instead of the round-robin vs load-aware phases. */
export const BUSY_TIME_FLAG = '--busy-time';

export const BUSY_TIME_USAGE = `Usage: npm run demo -- --busy-time [flags]

  --brokers host:port[,...]  use this cluster instead of starting a local broker
  --seed N                   seed of the cost map and the rates (default 1)
  --window-seconds N         measurement window of each phase (default 20)
  --out DIR                  where chart.svg and result.json go (default out/busy-time-<timestamp>)
  --help                     this text

Needs a Prometheus binary (Debian package prometheus; PROMETHEUS_BIN overrides).
`;

/** Options of the busy-time comparison. */
export interface BusyTimeDemoOptions {
  brokers: string[] | undefined;
  seed: number;
  windowSeconds: number;
  /** Where chart.svg and result.json go; created if missing. */
  outDir: string;
}

/**
 * Parses the flags after `--busy-time`; throws {@link DemoUsageError} naming a bad one. `now`
 * stamps the default output folder.
 */
export function parseBusyTimeArgs(args: ReadonlyArray<string>, now = new Date()): BusyTimeDemoOptions | 'help' {
  // The main demo's out/demo-<timestamp>, with this comparison's name.
  const options: BusyTimeDemoOptions = {
    brokers: undefined,
    seed: 1,
    windowSeconds: 20,
    outDir: `out/busy-time-${outputStamp(now)}`,
  };
  const help = readModeFlags(args, BUSY_TIME_FLAG, (flag, raw) => {
    if (flag === '--brokers') options.brokers = raw.split(',').map((b) => b.trim());
    else if (flag === '--seed') options.seed = parseNumberFlag(flag, raw, 0, 2 ** 31, true);
    else if (flag === '--window-seconds') options.windowSeconds = parseNumberFlag(flag, raw, 5, 600, true);
    else if (flag === '--out') options.outDir = raw;
    else throw new DemoUsageError(`Unknown flag ${flag} for --busy-time (see --busy-time --help)`);
  });
  return help ?? options;
}

/**
 * Runs the comparison, prints the cost map and the table, writes chart.svg and result.json and
 * prints their paths; returns the exit code.
 */
export async function runBusyTimeDemo(args: ReadonlyArray<string>): Promise<number> {
  let options;
  try {
    options = parseBusyTimeArgs(args);
  } catch (err) {
    if (!(err instanceof DemoUsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(BUSY_TIME_USAGE);
    return 0;
  }
  const { seed, windowSeconds } = options;
  const outDir = resolve(options.outDir);
  // Before the run, so a folder that cannot be made fails now rather than after minutes of work.
  await mkdir(outDir, { recursive: true });
  const startedAt = new Date().toISOString();
  const view = new LiveView(process.stdout, false);
  const signal = new AbortController().signal;
  const result = await withBrokers({ ...defaultOptions(), brokers: options.brokers }, signal, view, ({ brokers }) =>
    runBusyTimeComparison({
      brokers,
      seed,
      windowMs: windowSeconds * 1000,
      log: (line) => {
        view.line(line);
      },
    }),
  );
  view.line(`\n${formatBusyTimeComparison(result)}`);
  const chartPath = `${outDir}/chart.svg`;
  const resultPath = `${outDir}/result.json`;
  // scenario is the cost map (seed, per-partition cost and rate); phases and measuredMs the numbers.
  await writeFile(resultPath, `${JSON.stringify({ startedAt, options, ...result }, null, 2)}\n`);
  await writeFile(chartPath, renderBusyTimeChart(result));
  view.line(`\nWritten: ${chartPath}\n         ${resultPath}`);
  return 0;
}
