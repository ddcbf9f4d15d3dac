/**
 * The end-to-end benchmark (`pnpm bench:e2e`): the demo's harness with fixed seeds and sizes and
 * 90 s phases, KafkaJS round-robin then load-aware in one run, reported side by side and as
 * ratios in a Markdown table (also written to bench.md next to result.json and chart.svg).
 * Only where it runs can be changed: --brokers, --out, --no-live.
 */
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { defaultOptions, DemoHelpRequested, DemoUsageError, parseArgs, type DemoOptions } from './options.js';
import { LiveView } from './live-view.js';
import { markdownTable } from './report.js';
import { DemoInterruptedError, runDemo } from './run.js';

const ALLOWED = new Set(['--brokers', '--out', '--no-live']);

const BENCH_USAGE = `Usage: pnpm bench:e2e [--brokers host:port[,...]] [--out DIR] [--no-live]

Runs KafkaJS round-robin and load-aware for 90 s each on the demo's fixed workload and prints the
comparison as a Markdown table (also written to DIR/bench.md).
`;

function benchOptions(argv: readonly string[]): DemoOptions {
  if (argv.includes('--help') || argv.includes('-h')) throw new DemoHelpRequested(BENCH_USAGE);
  const flag = argv.find((a) => a.startsWith('--') && !ALLOWED.has(a));
  if (flag !== undefined) {
    throw new DemoUsageError(`${flag}: the benchmark's sizes are fixed; only --brokers, --out and --no-live apply`);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
  return parseArgs(argv, { ...defaultOptions(), phaseSeconds: 90, outDir: `out/bench-e2e-${stamp}` });
}

function setup(o: DemoOptions, kafkaVersion: string | undefined): string {
  return (
    `Kafka ${kafkaVersion ?? 'external'}, Node ${process.version}, ${String(cpus().length)} CPUs; ` +
    `${String(o.partitions)} partitions, ${String(o.eventsPerSecond)} msg/s Zipf s=${String(o.zipfExponent)} ` +
    `seed ${String(o.seed)}, hotspot shift ${String(o.hotspotShift)} at ${String(o.phaseSeconds / 2)} s; ` +
    `instances of ${o.instances.join('/')} members, ${String(o.workMs)} ms + ${String(o.cpuMs)} ms CPU per message; ` +
    `${String(o.backlogSeconds)} s backlog; ${String(o.phaseSeconds)} s per assigner.`
  );
}

async function main(): Promise<number> {
  let options: DemoOptions;
  try {
    options = benchOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof DemoHelpRequested) {
      process.stdout.write(err.message);
      return 0;
    }
    if (!(err instanceof DemoUsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  const view = new LiveView(process.stdout, options.live);
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  });
  try {
    const run = await runDemo(options, controller.signal, view);
    const report = `${setup(options, run.kafkaVersion)}\n\n${markdownTable(run.rows)}\n`;
    await writeFile(`${run.outDir}/bench.md`, report);
    view.line(`\n${report}\nWritten: ${run.outDir}/bench.md, result.json, chart.svg`);
    return 0;
  } catch (err) {
    if (err instanceof DemoInterruptedError) return 130;
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
