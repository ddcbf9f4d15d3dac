/**
 * The end-to-end benchmark (`pnpm bench:e2e`): the demo's harness with fixed seeds and sizes and
 * 90 s phases, KafkaJS round-robin then load-aware in one run, reported side by side and as
 * ratios in a Markdown table (also written to bench.md next to result.json and chart.svg).
 * With --sustainable a second stage follows on the same broker: each assigner's sustainable
 * throughput, by bisection over the produce rate (sustainable.ts); --sustainable-only runs that
 * stage alone (`pnpm bench:e2e:sustainable`), --quick shortens its probes for a smoke run.
 * Sizes are fixed; only where it runs can be changed: --brokers, --out, --no-live.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { defaultOptions, DemoHelpRequested, DemoUsageError, parseArgs, type DemoOptions } from './options.js';
import { LiveView } from './live-view.js';
import { markdownTable } from './report.js';
import { parseCommandLine } from './bench-setup.js';
import { DemoInterruptedError, runDemo, throwIfInterrupted, withBrokers, type Brokers } from './run.js';
import {
  runSustainable,
  SUSTAINABLE_DEFAULT,
  SUSTAINABLE_QUICK,
  sustainableMarkdown,
  type SustainableResult,
  type SustainableSettings,
} from './sustainable.js';

// --assigners too: which assigners, not how big; the sustainable stage always adds the oracle.
const LOCATION_FLAGS = new Set(['--brokers', '--out', '--no-live', '--assigners']);
const STAGE_FLAGS = new Set(['--sustainable', '--sustainable-only', '--quick', '--load-aware-pinned']);

const BENCH_USAGE = `Usage: pnpm bench:e2e [--sustainable | --sustainable-only] [--quick]
                      [--brokers host:port[,...]] [--out DIR] [--no-live]

Runs KafkaJS round-robin and load-aware for 90 s each on the demo's fixed workload and prints the
comparison as a Markdown table (also written to DIR/bench.md, with DIR/result.json and chart.svg).
About 3 minutes.

  --sustainable       then, on the same broker, find each assigner's sustainable throughput: the
                      highest produce rate at which consumer lag stays bounded, by bisection over
                      the rate (same instances and skew; fresh topic and group per probe; the two
                      assigners' probes take turns; about 60 s per probe, 5 probes per assigner:
                      about 10 more minutes). A probe is
                      bounded when the sum of the members' positive lag slopes over its window is
                      at most 1 % of the rate and the final lag at most 10 s of traffic. Adds a
                      probe table per assigner and the ratio to bench.md, "sustainable" to
                      result.json.
  --sustainable-only  that stage alone (also: pnpm bench:e2e:sustainable)
  --load-aware-pinned the sustainable stage also probes load-aware's own plan for the exact
                      rates, pinned (beside the oracle's): its plan apart from how it runs live
  --quick             shorter probes (5 s settle, 15 s window) and 3 per assigner: a smoke run
                      of the sustainable stage, about 3 minutes; its numbers are rough
  --assigners a,b     round-robin and/or load-aware (default both)
  --brokers host:port use this cluster instead of starting a local broker
  --out DIR           output folder (default out/bench-e2e-<timestamp>)
  --no-live           no live table, only progress lines and the summary
  --help              this text
`;

/** What to run besides the fixed-rate comparison. */
interface Stages {
  fixed: boolean;
  sustainable: SustainableSettings | undefined;
  /** The sustainable stage also probes `load-aware-pinned`. */
  pinned: boolean;
}

function benchOptions(argv: readonly string[]): { options: DemoOptions; stages: Stages } {
  if (argv.includes('--help') || argv.includes('-h')) throw new DemoHelpRequested(BENCH_USAGE);
  const flag = argv.find((a) => a.startsWith('--') && !LOCATION_FLAGS.has(a) && !STAGE_FLAGS.has(a));
  if (flag !== undefined) {
    throw new DemoUsageError(
      `${flag}: the benchmark's sizes are fixed; only --sustainable, --sustainable-only, --quick, ` +
        `--load-aware-pinned, --assigners, --brokers, --out and --no-live apply\n\n${BENCH_USAGE}`,
    );
  }
  const only = argv.includes('--sustainable-only');
  const sustainable = only || argv.includes('--sustainable');
  const quick = argv.includes('--quick');
  if (quick && !sustainable) throw new DemoUsageError('--quick applies to --sustainable or --sustainable-only');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
  const options = parseArgs(
    argv.filter((a) => !STAGE_FLAGS.has(a)),
    { ...defaultOptions(), phaseSeconds: 90, outDir: `out/bench-e2e-${stamp}` },
  );
  const settings = quick ? SUSTAINABLE_QUICK : SUSTAINABLE_DEFAULT;
  const pinned = argv.includes('--load-aware-pinned');
  if (pinned && !sustainable)
    throw new DemoUsageError('--load-aware-pinned applies to --sustainable or --sustainable-only');
  return { options, stages: { fixed: !only, sustainable: sustainable ? settings : undefined, pinned } };
}

function setup(o: DemoOptions, kafkaVersion: string | undefined, fixed = true): string {
  const machine = `Kafka ${kafkaVersion ?? 'external'}, Node ${process.version}, ${String(cpus().length)} CPUs; `;
  const members = `instances of ${o.instances.join('/')} members, ${String(o.workMs)} ms + ${String(o.cpuMs)} ms CPU per message`;
  if (!fixed) {
    return (
      machine +
      `${String(o.partitions)} partitions, Zipf s=${String(o.zipfExponent)} seed ${String(o.seed)} (first ranking, ` +
      `no hotspot move); ${members}.`
    );
  }
  return (
    machine +
    `${String(o.partitions)} partitions, ${String(o.eventsPerSecond)} msg/s Zipf s=${String(o.zipfExponent)} ` +
    `seed ${String(o.seed)}, hotspot shift ${String(o.hotspotShift)} at ${String(o.phaseSeconds / 2)} s; ` +
    `${members}; ${String(o.backlogSeconds)} s backlog; ${String(o.phaseSeconds)} s per assigner.`
  );
}

/** The sustainable stage on `where`, with its own clients. */
async function sustainableStage(
  options: DemoOptions,
  where: Brokers,
  settings: SustainableSettings,
  pinned: boolean,
  signal: AbortSignal,
  view: LiveView,
): Promise<SustainableResult> {
  const kafka = new Kafka({ clientId: 'load-aware-bench', brokers: where.brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const log = (line: string): void => {
      view.line(line);
    };
    return await runSustainable(
      { brokers: where.brokers, kafka, admin, options, signal, log },
      // The oracle last: its pinned best static plan is the ceiling the others are measured against.
      [...options.assigners, ...(pinned ? (['load-aware-pinned'] as const) : []), 'oracle'],
      settings,
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function main(): Promise<number> {
  const parsed = parseCommandLine(() => benchOptions(process.argv.slice(2)), DemoUsageError, DemoHelpRequested);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { options, stages } = parsed.options;
  const view = new LiveView(process.stdout, options.live);
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  });
  try {
    await withBrokers(options, controller.signal, view, async (where) => {
      const sections: string[] = [];
      let result: Record<string, unknown> = {
        startedAt: new Date().toISOString(),
        kafka: { version: where.kafkaVersion ?? 'external' },
        options,
      };
      let outDir = resolve(options.outDir);
      const written = ['bench.md', 'result.json'];
      if (stages.fixed) {
        const run = await runDemo(options, controller.signal, view, where);
        sections.push(`${setup(options, where.kafkaVersion)}\n\n${markdownTable(run.rows)}`);
        result = run.result;
        outDir = run.outDir;
        written.push('chart.svg', 'summary.txt');
      }
      if (stages.sustainable !== undefined) {
        const sustainable = await sustainableStage(
          options,
          where,
          stages.sustainable,
          stages.pinned,
          controller.signal,
          view,
        );
        throwIfInterrupted(controller.signal);
        if (!stages.fixed) sections.push(setup(options, where.kafkaVersion, false));
        sections.push(sustainableMarkdown(sustainable));
        result = { ...result, sustainable };
      }
      await mkdir(outDir, { recursive: true });
      await writeFile(`${outDir}/result.json`, `${JSON.stringify(result, null, 2)}\n`);
      const report = `${sections.join('\n\n')}\n`;
      await writeFile(`${outDir}/bench.md`, report);
      view.line(`\n${report}\nWritten to ${outDir}: ${written.join(', ')}`);
    });
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
