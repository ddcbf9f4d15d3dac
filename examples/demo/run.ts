import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startKafka, type KafkaCluster } from '@load-aware/integration-tests';
import { summarize, type PhaseSummary } from './analysis.js';
import { renderChart } from './chart.js';
import { LiveView } from './live-view.js';
import type { DemoOptions } from './options.js';
import { runPhase } from './phase.js';
import type { PhaseRecord } from './record.js';
import { compare, textTable, type ComparisonRow } from './report.js';
import { createTraffic } from './traffic.js';

/** What a run leaves behind. */
export interface DemoRun {
  outDir: string;
  records: PhaseRecord[];
  summaries: PhaseSummary[];
  rows: ComparisonRow[];
  kafkaVersion: string | undefined;
  /** What result.json holds. */
  result: Record<string, unknown>;
}

/** Thrown when the run was interrupted (Ctrl-C) after cleaning up. */
export class DemoInterruptedError extends Error {
  override readonly name = 'DemoInterruptedError';
}

export function throwIfInterrupted(signal: AbortSignal): void {
  if (signal.aborted) throw new DemoInterruptedError('interrupted');
}

function describe(options: DemoOptions, view: LiveView): void {
  const memberRate = 1000 / (options.workMs + options.cpuMs);
  const members = options.instances.reduce((a, b) => a + b, 0);
  const { preset } = options;
  view.line(
    `Instances: ${options.instances.map((m, i) => `instance-${String.fromCharCode(97 + i)} with ${String(m)} member(s)`).join(', ')}` +
      ` (separate processes). Each member handles one message at a time, ${String(options.workMs)} ms + ` +
      `${String(options.cpuMs)} ms CPU each: at most ~${memberRate.toFixed(0)} msg/s per member, ` +
      `~${(memberRate * members).toFixed(0)} msg/s for the group.`,
  );
  view.line(
    `Traffic: ${String(options.eventsPerSecond)} msg/s over ${String(options.partitions)} partitions, ` +
      `Zipf s=${String(options.zipfExponent)} (seed ${String(options.seed)}); ${String(options.backlogSeconds)} s of ` +
      `backlog before the consumers start; the hotspot moves after ${String(options.phaseSeconds / 2)} s.`,
  );
  view.line(
    `Phases of ${String(options.phaseSeconds)} s: ${options.assigners.join(', then ')}. load-aware runs offset-rate ` +
      `weights (${String(preset.rateIntervalMs / 1000)} s window) and the trigger every ` +
      `${String(preset.checkIntervalMs / 1000)} s (threshold ${String(preset.threshold)}, ` +
      `${String(preset.minViolatedChecks)} checks, cooldown ${String(preset.cooldownMs / 1000)} s), capacity = members.`,
  );
}

/** Where a run's clients connect: a local broker this run started, or `--brokers`. */
export interface Brokers {
  brokers: string[];
  /** The local broker's Kafka version; undefined for `--brokers`. */
  kafkaVersion: string | undefined;
}

/**
 * Runs `fn` with brokers: `options.brokers`, or a local broker started for it (fetched with
 * Maven on first use) and always stopped afterwards, also when `fn` throws.
 */
export async function withBrokers<T>(
  options: DemoOptions,
  signal: AbortSignal,
  view: LiveView,
  fn: (brokers: Brokers) => Promise<T>,
): Promise<T> {
  if (options.brokers !== undefined) return fn({ brokers: options.brokers, kafkaVersion: undefined });
  view.line('Starting a local Kafka broker (the first run downloads it with Maven)...');
  const cluster: KafkaCluster = await startKafka({
    logger: (line) => {
      view.line(`  ${line}`);
    },
  });
  try {
    throwIfInterrupted(signal);
    return await fn({ brokers: cluster.brokers, kafkaVersion: cluster.version });
  } finally {
    view.line('Stopping the local Kafka broker...');
    await cluster.stop();
  }
}

/**
 * Runs the demo: a broker (unless `options.brokers`, or `where` from {@link withBrokers}), one
 * phase per assigner, then the summary table, result.json, chart.svg and summary.txt in
 * `options.outDir`. Always stops what it started, also when `signal` aborts (then it throws
 * {@link DemoInterruptedError}).
 */
export async function runDemo(
  options: DemoOptions,
  signal: AbortSignal,
  view: LiveView,
  where?: Brokers,
): Promise<DemoRun> {
  if (where === undefined) return withBrokers(options, signal, view, (b) => runDemo(options, signal, view, b));
  describe(options, view);
  const { brokers, kafkaVersion } = where;
  const startedAt = new Date().toISOString();
  throwIfInterrupted(signal);
  const kafka = new Kafka({ clientId: 'load-aware-demo', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const traffic = createTraffic(options);
    const records: PhaseRecord[] = [];
    for (const [index, assigner] of options.assigners.entries()) {
      const layout = options.instances.map((members, i) => ({
        instanceId: `instance-${String.fromCharCode(97 + i)}`,
        members,
      }));
      view.line(`\n== Phase ${String(index + 1)}/${String(options.assigners.length)}: ${assigner} ==`);
      const observer = view.phase(assigner, index, options.assigners.length, layout, options.phaseSeconds);
      const record = await runPhase(assigner, { brokers, kafka, admin, options, traffic, signal, observer });
      view.release();
      throwIfInterrupted(signal);
      records.push(record);
    }
    const summaries = records.map(summarize);
    const planCheck = comparePlan(records);
    if (planCheck !== undefined) view.line(`\n${planCheck.text}`);
    const rows = compare(
      summaries.find((s) => s.assigner === 'round-robin'),
      summaries.find((s) => s.assigner === 'load-aware'),
    );
    const outDir = resolve(options.outDir);
    await mkdir(outDir, { recursive: true });
    const result = {
      startedAt,
      kafka: { version: kafkaVersion ?? 'external', brokers: kafkaVersion === undefined ? brokers : 'local' },
      options,
      traffic,
      comparison: rows,
      planCheck,
      phases: records.map((record, i) => ({ summary: summaries[i], record })),
    };
    await writeFile(`${outDir}/result.json`, `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(`${outDir}/chart.svg`, renderChart(records, summaries));
    await writeFile(`${outDir}/summary.txt`, `${textTable(rows)}\n`);
    return { outDir, records, summaries, rows, kafkaVersion, result };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * What `load-aware plan` predicted for the round-robin group against where the load-aware phase
 * ended, both as the CLI measures them (same traffic after the hotspot move, same instances).
 */
export function comparePlan(
  records: ReadonlyArray<Pick<PhaseRecord, 'assigner' | 'cli'>>,
): { predicted: number; reached: number; difference: number; text: string } | undefined {
  const roundRobin = records.find((r) => r.assigner === 'round-robin')?.cli;
  const loadAware = records.find((r) => r.assigner === 'load-aware')?.cli;
  if (roundRobin === undefined || loadAware === undefined) return undefined;
  const difference = Math.abs(roundRobin.proposedRatio - loadAware.ratio);
  return {
    predicted: roundRobin.proposedRatio,
    reached: loadAware.ratio,
    difference,
    text:
      `load-aware plan on the round-robin group: busiest ÷ ideal ${roundRobin.ratio.toFixed(2)} → ${roundRobin.proposedRatio.toFixed(2)}; ` +
      `the load-aware phase ended at ${loadAware.ratio.toFixed(2)} (difference ${difference.toFixed(2)})`,
  };
}
