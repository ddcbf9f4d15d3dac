/**
 * The latency-SLA benchmark (`pnpm bench:sla`): Landau et al.'s experiment ("Latency and
 * cost-aware consumer group autoscaling", JPDC 2025) on a real broker. For each rate shape
 * (sla/workload.ts), the smallest group holding p99 ≤ 1 s under KafkaJS's round-robin, a
 * count-balanced sticky assignment and load-aware; all three at load-aware's smallest group;
 * a traffic shift there; and what `sizeGroup` answers (sla/experiment.ts). Writes bench.md and
 * result.json; --quick is a smoke run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startKafka, type KafkaCluster } from '@load-aware/integration-tests';
import { abortOnSignals, commit, loadAverage, machine, nodeAndCpus, parseCommandLine } from './bench-setup.js';
import { runShape, type ShapeResult } from './sla/experiment.js';
import { parseSlaArgs, SLA_MS, SlaHelpRequested, SlaUsageError, WORK_MS, WORKLOAD } from './sla/options.js';
import { SlaInterruptedError } from './sla/phase.js';
import { judgeTargets, phasesTable, shiftTable, summaryTable, targetsList } from './sla/report.js';

async function main(): Promise<number> {
  const parsed = parseCommandLine(() => parseSlaArgs(process.argv.slice(2)), SlaUsageError, SlaHelpRequested);
  if ('exitCode' in parsed) return parsed.exitCode;
  const o = parsed.options;
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const controller = abortOnSignals(log, 'the members and the broker');
  const startedAt = new Date();
  const loadBefore = loadAverage();
  let cluster: KafkaCluster | undefined;
  const results: ShapeResult[] = [];
  try {
    let brokers = o.brokers;
    if (brokers === undefined) {
      log('Starting a local Kafka broker (the first run downloads it with Maven)...');
      cluster = await startKafka({
        logger: (line) => {
          log(`  ${line}`);
        },
      });
      brokers = cluster.brokers;
    }
    const kafka = new Kafka({ clientId: 'load-aware-bench-sla', brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const ctx = {
        brokers,
        kafka,
        admin,
        settings: { workMs: WORK_MS, slaMs: SLA_MS, preset: o.preset, warmSeconds: o.timing.warmSeconds },
        signal: controller.signal,
        log,
      };
      for (const shape of o.shapes) results.push(await runShape(shape, WORKLOAD, o.timing, o.shift, ctx));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  } catch (err) {
    if (!(err instanceof SlaInterruptedError) && !controller.signal.aborted) throw err;
  } finally {
    if (cluster !== undefined) {
      log('Stopping the local Kafka broker...');
      await cluster.stop();
    }
  }

  const wallSeconds = (Date.now() - startedAt.getTime()) / 1000;
  const setup =
    `Kafka ${cluster?.version ?? 'external'}, KafkaJS 2.2.4, ${nodeAndCpus()}, load average ${loadBefore} before, ` +
    `${loadAverage()} after; commit ${commit()}; ${wallSeconds.toFixed(0)} s${o.quick ? ' (--quick)' : ''}. ` +
    `${String(WORKLOAD.partitions)} partitions, heaviest at ${String(WORKLOAD.heaviestShare)} of a member; ` +
    `${String(WORK_MS)} ms a message (${String(WORKLOAD.memberRate)} msg/s a member); SLA ${String(SLA_MS / 1000)} s; ` +
    `windows of ${String(o.timing.measureSeconds)} s after ${String(o.timing.warmSeconds)} s; shift after ` +
    `${String(o.timing.shiftBeforeSeconds)} s, ${String(o.timing.shiftAfterSeconds)} s read.`;
  const sections = results.map((r) => {
    const head =
      `### ${r.shape}: ${r.workload.total.toFixed(0)} msg/s, ${(r.workload.total / r.workload.memberRate).toFixed(2)} ` +
      `members' capacity`;
    const shift =
      r.shift.length === 0 ? '' : `\n\nShift at ${String(r.equalMembers)} members:\n\n${shiftTable(r, SLA_MS)}`;
    return `${head}\n\n${phasesTable(r, SLA_MS)}${shift}`;
  });
  const report =
    `Latency SLA, ${startedAt.toISOString()}. ${setup}\n\n${summaryTable(results, o.timing.shiftAfterSeconds)}\n\n` +
    `${targetsList(judgeTargets(results))}\n\n${sections.join('\n\n')}\n`;
  const outDir = resolve(o.outDir);
  await mkdir(outDir, { recursive: true });
  const result = {
    startedAt: startedAt.toISOString(),
    wallSeconds,
    commit: commit(),
    machine: machine(loadBefore),
    kafka: cluster?.version ?? 'external',
    options: o,
    workload: WORKLOAD,
    shapes: results,
  };
  await writeFile(`${outDir}/result.json`, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(`${outDir}/bench.md`, report);
  log(`\n${report}\nWritten: ${outDir}/bench.md, result.json`);
  return controller.signal.aborted ? 130 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
