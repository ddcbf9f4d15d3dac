/**
 * The first `getWeights()` of a fresh offset-rate source at 10,000 partitions
 * (`pnpm bench:first-weights`): what a leader that just started pays before its first
 * assignment, against the documented bound of `instantTimeoutMs` (500 ms). A local broker (or
 * `--brokers`), 10 fresh topics of 1,000 partitions with a few records each, then three fresh
 * sources in turn, each on its own client (no connection, no metadata yet), asked once. Prints
 * each call's duration, how many partitions it weighed, the longest event-loop delay during it
 * and the process's CPU time (far less CPU than wall time: the process was waiting for the
 * broker or for a CPU; a long delay: one piece of synchronous work held the loop), and the
 * source's DEBUG lines with their times, so an overrun shows where it went.
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import type { Logger } from '@load-aware/assignor';
import { createTopicsWithLeaders, startKafka, uniqueName, type KafkaCluster } from '@load-aware/integration-tests';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';

const TOPICS = 10;
const PARTITIONS_PER_TOPIC = 1000;
const RUNS = 3;
/** The source's default `instantTimeoutMs`, and the slack issue 27 allows on top of it. */
const BOUND_MS = 500 + 50;

/** A logger that keeps every line with its time since `t0()`. */
function timedLogger(): { logger: Logger; lines: string[]; reset: () => void } {
  let t0 = performance.now();
  const lines: string[] = [];
  const line =
    (level: string) =>
    (fields: Record<string, unknown>, message = ''): void => {
      const { component: _component, ...rest } = fields;
      lines.push(
        `  +${(performance.now() - t0).toFixed(0)} ms ${level} ${message} ${JSON.stringify(rest).slice(0, 160)}`,
      );
    };
  return {
    logger: { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') },
    lines,
    reset: () => {
      t0 = performance.now();
      lines.length = 0;
    },
  };
}

async function main(): Promise<number> {
  const flag = process.argv.indexOf('--brokers');
  const given = flag >= 0 ? process.argv[flag + 1]?.split(',') : undefined;
  let cluster: KafkaCluster | undefined;
  if (given === undefined) cluster = await startKafka({ logger: (l) => process.stdout.write(`  ${l}\n`) });
  const brokers = given ?? cluster!.brokers;
  const kafka = new Kafka({ clientId: uniqueName('first-weights'), brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics = Array.from({ length: TOPICS }, () => uniqueName('first-weights'));
  let over = 0;
  try {
    const created = performance.now();
    await createTopicsWithLeaders(
      admin,
      topics.map((topic) => ({ topic, numPartitions: PARTITIONS_PER_TOPIC, replicationFactor: 1 })),
      600_000,
    );
    process.stdout.write(
      `${String(TOPICS * PARTITIONS_PER_TOPIC)} partitions created in ${(performance.now() - created).toFixed(0)} ms\n`,
    );
    // A few records per partition, a second apart, so the time index has a window to measure.
    const producer = kafka.producer();
    await producer.connect();
    for (let round = 0; round < 3; round++) {
      for (const topic of topics) {
        const messages = Array.from({ length: PARTITIONS_PER_TOPIC }, (_, partition) => ({ partition, value: 'x' }));
        await producer.send({ topic, messages });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    await producer.disconnect();
    const partitions = topics.flatMap((topic) =>
      Array.from({ length: PARTITIONS_PER_TOPIC }, (_, partition) => ({ topic, partition })),
    );
    const { logger, lines, reset } = timedLogger();
    for (let run = 1; run <= RUNS; run++) {
      const fresh = new Kafka({ clientId: uniqueName('first-weights-fresh'), brokers, logLevel: logLevel.NOTHING });
      reset();
      const source = createOffsetRateWeightSource({ kafka: fresh, rateIntervalMs: 10_000, logger }).start();
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const cpu = process.cpuUsage();
      const started = performance.now();
      const weights = await source.getWeights(partitions);
      const ms = performance.now() - started;
      const { user, system } = process.cpuUsage(cpu);
      delay.disable();
      if (ms > BOUND_MS) over++;
      process.stdout.write(
        `run ${String(run)}: first getWeights ${ms.toFixed(0)} ms (bound ${String(BOUND_MS)}), ` +
          `${String(weights.length)} of ${String(partitions.length)} weighed, ` +
          `event-loop delay max ${(delay.max / 1e6).toFixed(0)} ms, CPU ${((user + system) / 1000).toFixed(0)} ms; load average ` +
          `${loadavg()
            .map((l) => l.toFixed(2))
            .join(' / ')}\n${lines.join('\n')}\n`,
      );
      await source.stop();
    }
  } finally {
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await cluster?.stop();
  }
  return over === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
