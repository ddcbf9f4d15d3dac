/**
 * How long `load-aware inspect` takes as a user runs it (`pnpm bench:inspect`): the whole
 * process, Node's start and the CLI's module loading included, on a live load-aware group, beside
 * a baseline run side by side: a bare KafkaJS script that makes the admin reads any inspection
 * needs (describe the group, its committed offsets, the end offsets and the offsets at the start
 * of the rate window) and prints nothing. The ratio is what the CLI adds to reading the group by
 * hand; the baseline also shows how loaded the machine was, since both pay the same Node start.
 *
 * A local broker (or `--brokers`), `--topics` topics of `--partitions` partitions each, three
 * KafkaJS members with `LoadAwareAssigner`, production at a few records a second per partition
 * for the rate window, then `--runs` rounds, each one baseline and one inspect, in turn.
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createTopicsWithLeaders, startKafka, uniqueName, type KafkaCluster } from '@load-aware/integration-tests';

const MEMBERS = 3;
/** The figure the CLI's integration test asserted before speed moved to this benchmark. */
const TARGET_MS = 5000;
/** The rate window the CLI is asked for: short, so the benchmark waits little for history. */
const LOOKBACK_S = 10;

interface Args {
  readonly brokers: string[] | undefined;
  readonly topics: number;
  readonly partitions: number;
  readonly runs: number;
}

function parseArgs(argv: ReadonlyArray<string>): Args {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]!;
    if (key === '--') {
      i -= 1;
      continue;
    }
    const value = argv[i + 1];
    if (!['--brokers', '--topics', '--partitions', '--runs'].includes(key) || value === undefined) {
      throw new Error(
        `usage: bench:inspect [--brokers host:port,...] [--topics 4] [--partitions 250] [--runs 7]; bad ${key}`,
      );
    }
    values.set(key.slice(2), value);
  }
  const count = (name: string, fallback: number): number => {
    const n = Number(values.get(name) ?? fallback);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  return {
    brokers: values.get('brokers')?.split(','),
    topics: count('topics', 4),
    partitions: count('partitions', 250),
    runs: count('runs', 7),
  };
}

/** The baseline: the reads an inspection cannot do without, in a fresh Node, as bare KafkaJS. */
const BASELINE = `
const { Kafka, logLevel } = require('kafkajs');
const [brokers, groupId, topics, lookbackS] = process.argv.slice(1);
(async () => {
  const admin = new Kafka({ clientId: 'bench-inspect-baseline', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const list = topics.split(',');
  const since = Date.now() - Number(lookbackS) * 1000;
  await Promise.all([
    admin.describeGroups([groupId]),
    admin.fetchOffsets({ groupId, topics: list }),
    ...list.map((t) => admin.fetchTopicOffsets(t)),
    ...list.map((t) => admin.fetchTopicOffsetsByTimestamp(t, since)),
  ]);
  await admin.disconnect();
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** Runs `node args` and resolves its wall time; rejects on a non-zero exit. */
function timed(args: ReadonlyArray<string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 120_000, cwd: __dirname }, (err, _stdout, stderr) => {
      if (err !== null) reject(new Error(`${args.slice(0, 2).join(' ')} failed: ${stderr || err.message}`));
      else resolve(performance.now() - started);
    });
  });
}

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let cluster: KafkaCluster | undefined;
  if (args.brokers === undefined) cluster = await startKafka({ logger: (l) => process.stdout.write(`  ${l}\n`) });
  const brokers = args.brokers ?? cluster!.brokers;
  const kafka = new Kafka({ clientId: uniqueName('bench-inspect'), brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics = Array.from({ length: args.topics }, () => uniqueName('bench-inspect'));
  const groupId = uniqueName('bench-inspect');
  const consumers: Consumer[] = [];
  try {
    await createTopicsWithLeaders(
      admin,
      topics.map((topic) => ({ topic, numPartitions: args.partitions, replicationFactor: 1 })),
      600_000,
    );
    for (let i = 0; i < MEMBERS; i++) {
      const consumer = kafka.consumer({
        groupId,
        partitionAssigners: [LoadAwareAssigner({ instanceId: `bench-inspect-${String(i)}` })],
      });
      consumers.push(consumer);
      await consumer.connect();
      for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: () => Promise.resolve() });
    }
    // History for the rate window: a round of records per partition every second, bounded.
    const producer = kafka.producer();
    await producer.connect();
    for (let round = 0; round <= LOOKBACK_S; round++) {
      for (const topic of topics) {
        const messages = Array.from({ length: args.partitions }, (_, partition) => ({ partition, value: 'x' }));
        await producer.send({ topic, messages });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    await producer.disconnect();

    // The binary a user's `load-aware` runs: the package's own bin, as installed in the workspace.
    const cli = join(dirname(require.resolve('@load-aware/cli')), 'bin.js');
    const inspectArgs = [cli, 'inspect', '--brokers', brokers.join(','), '--group', groupId];
    const inspect = [...inspectArgs, '--lookback', String(LOOKBACK_S), '--json'];
    const baseline = ['-e', BASELINE, brokers.join(','), groupId, topics.join(','), String(LOOKBACK_S)];
    const load = loadavg()[0]!.toFixed(1);
    const times = { baseline: [] as number[], inspect: [] as number[] };
    for (let run = 0; run < args.runs; run++) {
      times.baseline.push(await timed(baseline));
      times.inspect.push(await timed(inspect));
    }
    const ratios = times.inspect.map((t, i) => t / times.baseline[i]!);
    const row = (name: string, xs: number[]): string =>
      `| ${name} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} |`;
    process.stdout.write(
      `\nload-aware inspect, ${String(args.topics * args.partitions)} partitions (${String(args.topics)} topics), ` +
        `${String(MEMBERS)} members, ${String(args.runs)} rounds; load ${load} before, ` +
        `${loadavg()[0]!.toFixed(1)} after\n\n| run | median ms | range ms |\n| --- | ---: | ---: |\n` +
        `${row('baseline: bare KafkaJS reads', times.baseline)}\n${row('load-aware inspect', times.inspect)}\n\n` +
        `inspect ÷ baseline, round by round: median ${median(ratios).toFixed(2)} ` +
        `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); ` +
        `inspect median ${median(times.inspect) <= TARGET_MS ? '≤' : '>'} ${String(TARGET_MS)} ms\n`,
    );
  } finally {
    await Promise.allSettled(consumers.map((c) => c.disconnect()));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await cluster?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
