/**
 * The rebalance benchmark (`pnpm bench:rebalance`): what one rebalance costs, per cause. Three
 * members, each its own process, KafkaJS client and instance id, started 1.1 s apart, consume a
 * 12-partition topic at ~600 msg/s with 1 ms per message; once they settle, one cause: a fourth
 * member joins, a fourth member leaves, a proactive fire from a, the group coordinator's broker
 * stops (3-node cluster), or partitions are added. For load-aware and KafkaJS's round-robin,
 * under KafkaJS's defaults and the demo's tuning, each a few times on fresh topics and groups:
 * the longest gap between processed messages per member and for the group, the paused
 * member-seconds and the rebalance count. Definitions: rebalance/analysis.ts and
 * BENCHMARKS.md. Writes bench.md and result.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { platformaticNode, startKafka, type KafkaCluster } from '@load-aware/integration-tests';
import {
  parseRebalanceArgs,
  RebalanceHelpRequested,
  RebalanceUsageError,
  runPlans,
  type Cause,
  type RebalanceOptions,
  type RunPlan,
} from './rebalance/options.js';
import { runsTable, summarySections } from './rebalance/report.js';
import { isPlatformatic } from './rebalance/protocol.js';
import type { RunResult } from './rebalance/result.js';
import { InterruptedError, runScenario } from './rebalance/scenario.js';
import { warmCoordinator } from './rebalance/topics.js';
import { abortOnSignals, commit, loadAverage, machine, nodeAndCpus, parseCommandLine } from './bench-setup.js';

const describePlan = (p: RunPlan): string => `${p.tuning} #${String(p.repeat)} ${p.cause} ${p.assigner}`;

function oneLine(r: RunResult): string {
  const gaps = r.members.map((m) => `${m.instanceId} ${(m.longestGapMs / 1000).toFixed(2)}`).join(' ');
  return (
    `${gaps}, group ${(r.groupLongestGapMs / 1000).toFixed(2)} s, paused ${r.pausedMemberSeconds.toFixed(2)} member-s, ` +
    `${String(r.rebalances ?? '?')} rebalance(s), window ${((r.endAt - r.causeAt) / 1000).toFixed(1)} s` +
    (r.endReason === 'limit' ? ' (limit)' : '')
  );
}

async function main(): Promise<number> {
  const parsed = parseCommandLine(
    () => parseRebalanceArgs(process.argv.slice(2)),
    RebalanceUsageError,
    RebalanceHelpRequested,
  );
  if ('exitCode' in parsed) return parsed.exitCode;
  const o: RebalanceOptions = parsed.options;
  const node = platformaticNode();
  if (o.assigners.some(isPlatformatic) && !node.supported) {
    process.stderr.write(
      `--client platformatic: @platformatic/kafka needs Node >= 22.22 or >= 24.6, this is ${process.version}; ` +
        'run the bench with such a node (scripts/lib/toolchain.sh ensure_node24 installs Node 24 into .cache/)\n',
    );
    return 2;
  }
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const controller = abortOnSignals(log, 'the members and the broker');
  // A function, not the property: the checker would narrow the property after one test.
  const aborted = (): boolean => controller.signal.aborted;

  const startedAt = new Date();
  const deadline = startedAt.getTime() + o.maxMinutes * 60_000;
  const loadBefore = loadAverage();
  const results: RunResult[] = [];
  const failures: string[] = [];
  const skipped: string[] = [];
  const versions = new Set<string>();
  // Single-broker causes first; the coordinator move needs a 3-node cluster of its own.
  const stages: Array<{ nodes: 1 | 3; causes: Cause[] }> = [
    { nodes: 1, causes: o.causes.filter((c) => c !== 'coordinator') },
    { nodes: 3, causes: o.causes.filter((c) => c === 'coordinator') },
  ];
  try {
    for (const stage of stages) {
      const todo = runPlans(o, stage.causes);
      if (todo.length === 0) continue;
      if (Date.now() > deadline) {
        skipped.push(...todo.map(describePlan));
        continue;
      }
      log(
        `Starting a local Kafka cluster of ${String(stage.nodes)} node(s) (the first run downloads it with Maven)...`,
      );
      const cluster: KafkaCluster = await startKafka({
        nodes: stage.nodes,
        logger: (line) => {
          log(`  ${line}`);
        },
      });
      versions.add(cluster.version);
      const kafka = new Kafka({
        clientId: 'load-aware-bench-rebalance',
        brokers: cluster.brokers,
        logLevel: logLevel.NOTHING,
        retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 2000 },
      });
      const admin: Admin = kafka.admin();
      try {
        await admin.connect();
        await warmCoordinator(admin, 'load-aware-bench-rebalance-warm-up');
        for (const [i, plan] of todo.entries()) {
          if (aborted()) throw new InterruptedError('interrupted');
          if (Date.now() > deadline) {
            skipped.push(...todo.slice(i).map(describePlan));
            log(`Time budget of ${String(o.maxMinutes)} min spent: ${String(todo.length - i)} run(s) skipped`);
            break;
          }
          const began = Date.now();
          log(`[${String(i + 1)}/${String(todo.length)}] ${describePlan(plan)}`);
          try {
            const result = await runScenario(plan, {
              kafka,
              admin,
              cluster,
              options: o,
              signal: controller.signal,
              log,
            });
            results.push(result);
            log(`  ${oneLine(result)} (${((Date.now() - began) / 1000).toFixed(0)} s)`);
            for (const note of result.notes.slice(0, 5)) log(`  note: ${note}`);
          } catch (err) {
            if (err instanceof InterruptedError || aborted()) throw err;
            const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
            failures.push(`${describePlan(plan)}: ${message}`);
            log(`  FAILED: ${message}`);
          }
        }
      } finally {
        await admin.disconnect().catch(() => undefined);
        log(`Stopping the local Kafka cluster (${String(stage.nodes)} node(s))...`);
        await cluster.stop();
      }
    }
  } catch (err) {
    if (!(err instanceof InterruptedError)) throw err;
  }

  const wallSeconds = (Date.now() - startedAt.getTime()) / 1000;
  const setup =
    `Kafka ${[...versions].join(', ') || '-'}, ${o.assigners.some(isPlatformatic) ? '@platformatic/kafka 2.12.1' : 'KafkaJS 2.2.4'}, ${nodeAndCpus()}, ` +
    `load average ${loadBefore} before, ${loadAverage()} after; ` +
    `commit ${commit()}. ${String(o.partitions)} partitions, ${String(o.eventsPerSecond)} msg/s (sent every ` +
    `${String(o.produceTickMs)} ms), ${String(o.workMs)} ms per message (${o.workMode === 'sleep' ? 'a timer' : 'a busy loop'}), ` +
    `members started ${String(o.staggerMs / 1000)} s apart; load-aware ${o.trigger ? `with the trigger (check every ${String(o.triggerCheckIntervalMs / 1000)} s)` : 'without the trigger'}. ` +
    `Gaps > ${String(o.thresholdMs)} ms are paused; a window closes after ${String(o.recoveryMs / 1000)} s of steady processing; ` +
    `${String(o.repeats)} repeat(s), median (min–max).`;
  const report =
    `Rebalance cost, ${startedAt.toISOString()} (${wallSeconds.toFixed(0)} s wall). ${setup}\n\n` +
    `${summarySections(results, o)}\n\n### Every run\n\n${runsTable(results, o.thresholdMs)}\n` +
    failures.map((f) => `\nFAILED ${f.split('\n')[0]!}\n`).join('') +
    (skipped.length > 0 ? `\nSkipped (time budget): ${skipped.join(', ')}\n` : '');
  const outDir = resolve(o.outDir);
  await mkdir(outDir, { recursive: true });
  const result = {
    startedAt: startedAt.toISOString(),
    wallSeconds,
    commit: commit(),
    machine: machine(loadBefore),
    kafka: [...versions],
    options: o,
    failures,
    skipped,
    runs: results,
  };
  await writeFile(`${outDir}/result.json`, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(`${outDir}/bench.md`, report);
  log(`\n${report}\nWritten: ${outDir}/bench.md, result.json`);
  if (aborted()) return 130;
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
