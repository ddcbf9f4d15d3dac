/**
 * The rolling-restart benchmark (`pnpm bench:rolling`): the demo's harness (instance processes,
 * skewed traffic, tracker) with four instances of 1/1/2/2 members, restarted one after another
 * as in a rolling deploy, first with KafkaJS round-robin, then with load-aware (README wiring:
 * offset-rate weights, LoadAwareAssigner first and round-robin second, a trigger on every
 * consumer, the demo's fast preset). Prints a per-step table per assigner and the totals, and
 * writes bench.md, result.json and chart.svg. Definitions: rolling-analysis.ts and BENCHMARKS.md.
 * `--static-membership` runs load-aware with static members (KIP-345) and deploy restarts
 * instead (BENCHMARKS.md, "Rolling restart"). With its own broker it also turns the group
 * coordinator's logging up and copies the broker's log, so every rebalance has the broker's reason.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startKafka, type KafkaCluster } from '@load-aware/integration-tests';
import { groupLog, raiseCoordinatorLogging, type GroupLog } from './broker-log.js';
import { renderRollingChart } from './rolling-chart.js';
import {
  processingTable,
  stepTable,
  summarizeRolling,
  targetsTable,
  totalsTable,
  type RollingRun,
} from './rolling-analysis.js';
import {
  parseRollingArgs,
  RollingHelpRequested,
  RollingUsageError,
  settleQuietMs,
  type RollingOptions,
} from './rolling-options.js';
import { RollingInterruptedError, runRolling } from './rolling.js';
import { createTraffic } from './traffic.js';
import { abortOnSignals, commit, loadAverage, machine, nodeAndCpus, parseCommandLine } from './bench-setup.js';

function setup(o: RollingOptions, kafkaVersion: string | undefined, load: string): string {
  const p = o.preset;
  const membership =
    o.membership === 'static'
      ? `Static membership (KIP-345): group instance ids <pod>.<n>, the same in every process of a pod; ` +
        `a restart is SIGTERM (disconnect, no LeaveGroup); session timeout ${String(o.sessionTimeoutSeconds)} s, ` +
        `rebalance timeout 10 s. `
      : `Dynamic members: a restart is a graceful stop (disconnect, LeaveGroup); session timeout ` +
        `${String(o.sessionTimeoutSeconds)} s, rebalance timeout 10 s. `;
  return (
    `Kafka ${kafkaVersion ?? 'external'}, ${nodeAndCpus()}, ` +
    `load average ${load}; commit ${commit()}. ` +
    `${String(o.partitions)} partitions, ${String(o.eventsPerSecond)} msg/s Zipf s=${String(o.zipfExponent)} ` +
    `seed ${String(o.seed)}; instances of ${o.instances.join('/')} members, ${String(o.workMs)} ms + ` +
    `${String(o.cpuMs)} ms CPU per message. ${membership}Restarts a, b, c, d in turn: stop, ` +
    `${String(o.restartDelaySeconds)} s pod restart delay, new process, wait until Stable and quiet for ` +
    `${String(settleQuietMs(p) / 1000)} s. load-aware: offset-rate weights (${String(p.rateIntervalMs / 1000)} s ` +
    `window, ${o.trackAllPartitions ? 'every partition tracked from process start' : 'README wiring, no pre-tracking'}), ` +
    `capacity = members, trigger every ${String(p.checkIntervalMs / 1000)} s (threshold ${String(p.threshold)}, ` +
    `${String(p.minViolatedChecks)} checks, cooldown ${String(p.cooldownMs / 1000)} s). After the last ` +
    `step the producer stops and the group drains (at most 60 s) before lost and duplicates are counted.`
  );
}

/** The broker's rebalances of one run's group, for the report. */
function brokerSection(log: GroupLog): string {
  const reasons = log.rebalances.map(
    (r, i) => `${String(i + 1)}. t=${r.t === null ? '?' : `${r.t.toFixed(1)} s`}: ${r.reason.slice(0, 300)}`,
  );
  return (
    `Broker log (group coordinator at INFO from the moment the group first formed; the end of the run ` +
    `leaves the group): ${String(log.rebalances.length)} rebalances prepared, generations ` +
    `${log.stabilized.length === 0 ? 'none' : log.stabilized.join(', ')} completed.` +
    (reasons.length === 0 ? '' : `\n\n${reasons.join('\n')}`)
  );
}

async function main(): Promise<number> {
  const parsed = parseCommandLine(
    () => parseRollingArgs(process.argv.slice(2)),
    RollingUsageError,
    RollingHelpRequested,
  );
  if ('exitCode' in parsed) return parsed.exitCode;
  const options: RollingOptions = parsed.options;
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const controller = abortOnSignals(log, 'the instances and the broker');
  const startedAt = new Date();
  const loadBefore = loadAverage();
  let cluster: KafkaCluster | undefined;
  let brokers = options.brokers;
  try {
    if (brokers === undefined) {
      log('Starting a local Kafka broker (the first run downloads it with Maven)...');
      cluster = await startKafka({
        logger: (line) => {
          log(`  ${line}`);
        },
      });
      brokers = cluster.brokers;
    }
    const kafka = new Kafka({ clientId: 'load-aware-bench-rolling', brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    // Once the group coordinator has loaded (the first group formed), its loggers exist to raise.
    let loggingRaised = false;
    const onGroupFormed = async (): Promise<void> => {
      if (cluster === undefined || loggingRaised) return;
      loggingRaised = true;
      for (const node of cluster.nodes) {
        const answers = await raiseCoordinatorLogging(admin, {
          host: '127.0.0.1',
          port: node.port,
          nodeId: node.nodeId,
        });
        const failed = Object.entries(answers).filter(([, error]) => error !== null);
        log(
          `  broker ${String(node.nodeId)}: ${String(Object.keys(answers).length - failed.length)} group coordinator ` +
            `loggers at INFO${failed.length === 0 ? '' : `, refused: ${failed.map(([name, error]) => `${name} (${error!})`).join(', ')}`}`,
        );
      }
    };
    const runs: RollingRun[] = [];
    // A failed assigner does not cost the other one's results: they are written, the exit code is 1.
    const failures: string[] = [];
    const rates = createTraffic({ ...options, hotspotShift: 0 }).before;
    try {
      for (const assigner of options.assigners) {
        log(`\n== ${assigner} ==`);
        const began = Date.now();
        try {
          runs.push(
            await runRolling(assigner, {
              brokers,
              kafka,
              admin,
              options,
              rates,
              signal: controller.signal,
              log,
              onGroupFormed,
            }),
          );
        } catch (err) {
          if (err instanceof RollingInterruptedError || controller.signal.aborted) throw err;
          const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
          failures.push(`${assigner}: ${message}`);
          log(`${assigner}: FAILED: ${message}`);
          continue;
        }
        log(`${assigner}: done in ${((Date.now() - began) / 1000).toFixed(0)} s`);
      }
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    if (runs.length === 0) throw new Error(`every assigner failed:\n${failures.join('\n')}`);
    const summaries = runs.map(summarizeRolling);
    const wallSeconds = (Date.now() - startedAt.getTime()) / 1000;
    const description = setup(options, cluster?.version, `${loadBefore} before, ${loadAverage()} after`);
    const outDir = resolve(options.outDir);
    await mkdir(outDir, { recursive: true });
    // The broker's own account of each group (its log is deleted with the broker's work dir).
    const brokerLogs: GroupLog[] = [];
    if (cluster !== undefined) {
      let text = '';
      for (const node of cluster.nodes) {
        const file = resolve(cluster.workDir, `node-${String(node.nodeId)}`, 'logs', 'server.log');
        const copy = resolve(outDir, `broker-${String(node.nodeId)}-server.log`);
        await copyFile(file, copy).catch(() => undefined);
        text += await readFile(file, 'utf8').catch(() => '');
      }
      for (const run of runs) {
        brokerLogs.push(groupLog(text, run.record.groupId, new Date(run.record.startedAt).getTime()));
      }
    }
    const sections = summaries.map((s, i) => {
      const processing = processingTable(s);
      const broker = brokerLogs[i];
      return (
        `### ${s.totals.label}\n\n${stepTable(s, options.partitions)}` +
        (processing === '' ? '' : `\n\nProcessing:\n\n${processing}`) +
        (broker === undefined ? '' : `\n\n${brokerSection(broker)}`)
      );
    });
    const totals = summaries.map((s) => s.totals);
    const report =
      `Rolling restart, ${startedAt.toISOString()} (${wallSeconds.toFixed(0)} s wall). ${description}\n\n` +
      `${sections.join('\n\n')}\n\n### Totals\n\n${totalsTable(totals)}\n\n` +
      `### Static-membership targets\n\n${targetsTable(totals)}\n` +
      failures.map((f) => `\nFAILED ${f.split('\n')[0]!}\n`).join('');
    const result = {
      startedAt: startedAt.toISOString(),
      wallSeconds,
      commit: commit(),
      machine: machine(loadBefore),
      kafka: { version: cluster?.version ?? 'external', brokers: cluster === undefined ? brokers : 'local' },
      options,
      rates,
      failures,
      runs: runs.map((run, i) => ({
        summary: summaries[i],
        run,
        ...(brokerLogs[i] === undefined ? {} : { broker: brokerLogs[i] }),
      })),
    };
    await writeFile(`${outDir}/result.json`, `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(`${outDir}/chart.svg`, renderRollingChart(runs, summaries));
    await writeFile(`${outDir}/bench.md`, report);
    log(`\n${report}\nWritten: ${outDir}/bench.md, result.json, chart.svg`);
    return failures.length === 0 ? 0 : 1;
  } catch (err) {
    if (err instanceof RollingInterruptedError) return 130;
    throw err;
  } finally {
    if (cluster !== undefined) {
      log('Stopping the local Kafka broker...');
      await cluster.stop();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
