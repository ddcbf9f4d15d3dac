import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import type { TopicPartition } from '@load-aware/assignor';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { metricValue, pollFor, recordingLogger, weightMap, within } from './support/offset-rate-helpers';
import { produceAtRates, type RateTarget } from './support/offset-rate-producer';
import { useSharedBrokerAdmin } from './support/shared-broker';

// Per test: jest ignores `testTimeout` inside a project entry of jest.config.js.
const TEST_TIMEOUT_MS = 90_000;
const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: uniqueName('offset-rate-int'), brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic } = useSharedBrokerAdmin(kafka, 'offset-rate', { deleteTopicsAfterAll: true });
const sources: OffsetRateWeightSource[] = [];

afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.stop()));
});

/** Sample duration histogram: observation count and sum in seconds. */
async function sampleDurations(registry: Registry): Promise<{ count: number; sum: number }> {
  const values = (await registry.getSingleMetric('load_aware_offset_rate_sample_duration_seconds')!.get()).values;
  const of = (suffix: string): number =>
    values.find(
      (v) => (v as { metricName?: string }).metricName === `load_aware_offset_rate_sample_duration_seconds_${suffix}`,
    )?.value ?? 0;
  return { count: of('count'), sum: of('sum') };
}

/**
 * A two-partition topic and a one-partition topic, tracked by a source sampling every second over
 * a 5 s window (stopped after the test), with a recording logger and a registry of its own.
 */
async function sampledTopics(): Promise<{
  topic: string;
  other: string;
  logger: ReturnType<typeof recordingLogger>;
  registry: Registry;
  source: OffsetRateWeightSource;
  partitions: TopicPartition[];
}> {
  const topic = await createTopic(2);
  const other = await createTopic(1);
  const logger = recordingLogger();
  const registry = new Registry();
  const source = createOffsetRateWeightSource({
    kafka,
    rateIntervalMs: 5000,
    sampleIntervalMs: 1000,
    logger,
    registry,
  });
  sources.push(source.start());
  const partitions: TopicPartition[] = [
    { topic, partition: 0 },
    { topic, partition: 1 },
    { topic: other, partition: 0 },
  ];
  return { topic, other, logger, registry, source, partitions };
}

/** `weigh()` asks `source` for the weights of `partitions`, keeping every weight it answered in `seen`. */
function recordingWeigher(
  source: OffsetRateWeightSource,
  partitions: TopicPartition[],
): { seen: number[]; weigh: () => Promise<Record<string, number>> } {
  const seen: number[] = [];
  return {
    seen,
    async weigh() {
      const weights = await source.getWeights(partitions);
      seen.push(...weights.map((w) => w.weight));
      return weightMap(weights);
    },
  };
}

/** Runs `body` while `target` is produced to in the background (at most a minute), then stops that production. */
async function whileProducing(target: RateTarget, body: () => Promise<void>): Promise<void> {
  const background = produceAtRates(kafka, [target], 60_000);
  try {
    await body();
  } finally {
    await background.stop();
  }
}

/** Recreates the deleted `topic` with `partitions`, retrying every `intervalMs` until the broker lets it (30 s). */
async function recreateTopic(topic: string, partitions: number, intervalMs: number): Promise<void> {
  await pollFor(
    'the topic to be recreated',
    () =>
      createTopic(partitions, { name: topic }).then(
        () => true,
        () => undefined,
      ),
    30_000,
    intervalMs,
  );
}

describe('offset-rate weights on a real broker', () => {
  it(
    'measures two partitions produced at 200 and 50 msg/s within 10 %, with one ListOffsets per sample for all topics',
    async () => {
      const { topic, other: idle, logger, registry, source, partitions } = await sampledTopics();
      // The first assignment after start has no history: instant rates from the time index,
      // all 0 (nothing produced yet). Sampled weights take over from the second sample on.
      expect(weightMap(await source.getWeights(partitions))).toEqual({
        [`${topic}:0`]: 0,
        [`${topic}:1`]: 0,
        [`${idle}:0`]: 0,
      });

      const producer = produceAtRates(
        kafka,
        [
          { topic, partition: 0, perSecond: 200 },
          { topic, partition: 1, perSecond: 50 },
        ],
        12_000,
      );
      await sleep(8000); // a full 5 s window of steady production
      const weights = weightMap(await source.getWeights(partitions));
      const report = await producer.stop();
      expect(report.failedSends).toBe(0);
      expect(Object.keys(weights).sort()).toEqual([`${idle}:0`, `${topic}:0`, `${topic}:1`].sort());
      expect(weights[`${idle}:0`]).toBe(0);
      expect(within(weights[`${topic}:0`], 200, 0.1)).toBe(true);
      expect(within(weights[`${topic}:1`], 50, 0.1)).toBe(true);

      // Every sample read both topics from the single broker with one request.
      const reads = logger.records.filter((r) => r.message === 'end offsets read');
      expect(reads.length).toBeGreaterThanOrEqual(6);
      for (const r of reads) expect(r.fields).toMatchObject({ topics: 2, brokers: 1, requests: 1 });
      const durations = await sampleDurations(registry);
      expect(durations.count).toBeGreaterThanOrEqual(6);
      expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(3);
      expect(await metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })).toBe(0);
      process.stdout.write(
        `offset-rate measured: p0 ${String(weights[`${topic}:0`])}/s (200), p1 ${String(weights[`${topic}:1`])}/s (50); ` +
          `mean sample ${(1000 * (durations.sum / durations.count)).toFixed(2)} ms over ${String(durations.count)} samples\n`,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops tracking a deleted topic while others keep their weights, and measures the recreated topic afresh',
    async () => {
      const { topic, other, registry, source, partitions } = await sampledTopics();
      const { seen, weigh } = recordingWeigher(source, partitions);
      await weigh();
      await whileProducing({ topic: other, partition: 0, perSecond: 40 }, async () => {
        const before = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 100 }], 7000);
        await before.done;
        expect(within((await weigh())[`${topic}:0`], 100, 0.15)).toBe(true);

        await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
        // 3 failed samples while `other` succeeds: the deleted topic's partitions are dropped.
        await pollFor(
          'the deleted topic to be untracked',
          async () =>
            (await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')) === 1 ? true : undefined,
          20_000,
        );
        expect(
          await metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'some' }),
        ).toBeGreaterThanOrEqual(3);
        expect(
          within(weightMap(await source.getWeights([{ topic: other, partition: 0 }]))[`${other}:0`], 40, 0.2),
        ).toBe(true);

        await recreateTopic(topic, 2, 500);
        // Tracked afresh, no history: the time index shows the recreated topic idle. The first
        // answers may leave it out, while the source's client has no metadata of the new topic
        // yet (its lookup ends with the time box): wait for one that has it, as the test below.
        const fresh = await pollFor(
          'weights of the recreated topic',
          async () => {
            const weights = await weigh();
            return `${topic}:0` in weights && `${topic}:1` in weights ? weights : undefined;
          },
          10_000,
        );
        expect(fresh).toMatchObject({ [`${topic}:0`]: 0, [`${topic}:1`]: 0 });
        const after = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 50 }], 12_000);
        await sleep(8000);
        const weights = await weigh();
        await after.stop();
        expect(within(weights[`${topic}:0`], 50, 0.1)).toBe(true);
        expect(weights[`${topic}:1`]).toBe(0);
        expect(seen.every((w) => Number.isFinite(w) && w >= 0 && w <= 120)).toBe(true);
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'never mixes old and new offsets when a topic is recreated before it was untracked (its end offset goes backwards), then measures the new rate',
    async () => {
      const topic = await createTopic(1);
      const other = await createTopic(1);
      const logger = recordingLogger();
      // Slow sampling, so the topic is back long before 3 samples could fail.
      const source = createOffsetRateWeightSource({ kafka, rateIntervalMs: 6000, sampleIntervalMs: 3000, logger });
      sources.push(source.start());
      const partitions: TopicPartition[] = [
        { topic, partition: 0 },
        { topic: other, partition: 0 },
      ];
      const { seen, weigh } = recordingWeigher(source, partitions);
      await weigh();
      await whileProducing({ topic: other, partition: 0, perSecond: 20 }, async () => {
        await produceAtRates(kafka, [{ topic, partition: 0, perSecond: 300 }], 7000).done;
        expect(within((await weigh())[`${topic}:0`], 300, 0.15)).toBe(true);
        await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
        await recreateTopic(topic, 1, 200);
        const after = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 50 }], 25_000);
        await pollFor(
          'the end offset to be seen going backwards',
          () => Promise.resolve(logger.records.some((r) => r.message.includes('went backwards')) ? true : undefined),
          15_000,
        );
        const fresh = await pollFor(
          'a weight of the recreated topic',
          async () => (await weigh())[`${topic}:0`],
          10_000,
        );
        expect(fresh).toBeLessThanOrEqual(60); // never a mix of the old and new offsets
        await sleep(6500); // a whole window of the new rate
        const weights = await weigh();
        await after.stop();
        expect(within(weights[`${topic}:0`], 50, 0.1)).toBe(true);
        expect(seen.every((w) => Number.isFinite(w) && w >= 0 && w <= 350)).toBe(true);
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'accepts an admin client, and leaves it connected after stop()',
    async () => {
      const topic = await createTopic(1);
      const callerAdmin = kafka.admin();
      await callerAdmin.connect();
      try {
        const source = createOffsetRateWeightSource({
          kafka: callerAdmin,
          rateIntervalMs: 5000,
          sampleIntervalMs: 1000,
        });
        sources.push(source.start());
        const partitions = [{ topic, partition: 0 }];
        await source.getWeights(partitions);
        const producer = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 100 }], 12_000);
        await sleep(7500);
        const weights = weightMap(await source.getWeights(partitions));
        await producer.stop();
        expect(within(weights[`${topic}:0`], 100, 0.1)).toBe(true);
        await source.stop();
        await expect(callerAdmin.listTopics()).resolves.toContain(topic);
      } finally {
        await callerAdmin.disconnect();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'leaves no socket or timer behind after stop()',
    async () => {
      const topic = await createTopic(1);
      const count = (): Record<string, number> => {
        const counts: Record<string, number> = {};
        for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
        return counts;
      };
      const before = count();
      const source = createOffsetRateWeightSource({ kafka, rateIntervalMs: 4000, sampleIntervalMs: 1000 }).start();
      await source.getWeights([{ topic, partition: 0 }]);
      await sleep(2500);
      expect((count()['TCPSocketWrap'] ?? 0) > (before['TCPSocketWrap'] ?? 0)).toBe(true);
      await source.stop();
      await sleep(50);
      const after = count();
      expect(after['TCPSocketWrap'] ?? 0).toBeLessThanOrEqual(before['TCPSocketWrap'] ?? 0);
      expect(after['Timeout'] ?? 0).toBeLessThanOrEqual(before['Timeout'] ?? 0);
    },
    TEST_TIMEOUT_MS,
  );
});
