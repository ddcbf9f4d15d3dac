/**
 * The demo: KafkaJS's round-robin assigner against load-aware, on real processes and a real
 * broker. Three consumer instances (separate processes with 1, 2 and 3 members) do real
 * per-message work on a topic with skewed traffic and a backlog; the hotspot moves midway. The
 * terminal shows each instance's throughput, lag and rebalances live; at the end a summary
 * table, and result.json + chart.svg in the output folder.
 *
 * Usage: npm run demo -- [--brokers host:port] [--phase-seconds 75] [--out DIR] (--help for all)
 * Without --brokers it fetches (first run only) and starts a local broker, and always stops it.
 * `npm run demo -- --busy-time` runs the busy-time comparison instead (demo/busy-time.ts);
 * `npm run demo -- --cross-group` the cross-group comparison (demo/cross-group.ts).
 * `--client platformatic` runs the same phases with @platformatic/kafka consumers (Node >= 22.22).
 */
import { platformaticNode } from '@load-aware/integration-tests';
import { DemoHelpRequested, DemoUsageError, parseArgs } from './demo/options.js';
import { DemoInterruptedError, runDemo } from './demo/run.js';
import { LiveView } from './demo/live-view.js';
import { textTable } from './demo/report.js';
import { BUSY_TIME_FLAG, runBusyTimeDemo } from './demo/busy-time.js';
import { CROSS_GROUP_FLAG, runCrossGroupDemo } from './demo/cross-group.js';
import { abortOnSignals, parseCommandLine } from './demo/bench-setup.js';

async function main(): Promise<number> {
  if (process.argv.includes(BUSY_TIME_FLAG)) return runBusyTimeDemo(process.argv.slice(2));
  if (process.argv.includes(CROSS_GROUP_FLAG)) return runCrossGroupDemo(process.argv.slice(2));
  const parsed = parseCommandLine(() => parseArgs(process.argv.slice(2)), DemoUsageError, DemoHelpRequested);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { options } = parsed;
  if (options.client === 'platformatic' && !platformaticNode().supported) {
    process.stderr.write(
      `--client platformatic: @platformatic/kafka needs Node >= 22.22 or >= 24.6, this is ${process.version}; ` +
        'run the demo with such a node (scripts/lib/toolchain.sh ensure_node24 installs Node 24 into .cache/)\n',
    );
    return 2;
  }
  const view = new LiveView(process.stdout, options.live);
  // First Ctrl-C: finish cleanly (instances, topic, broker). Second: leave now.
  const controller = abortOnSignals((line) => {
    view.line(line);
  }, 'the instances and the broker');
  try {
    const run = await runDemo(options, controller.signal, view);
    view.line(`\n${textTable(run.rows)}`);
    view.line(`\nWritten: ${run.outDir}/result.json, ${run.outDir}/chart.svg, ${run.outDir}/summary.txt`);
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
