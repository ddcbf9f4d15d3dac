import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Registry } from 'prom-client';
import type { TopicPartition } from '@load-aware/assignor';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { pollFor, recordingLogger, weightMap, within } from './support/offset-rate-helpers';
import { produceAtRates } from './support/offset-rate-producer';

// Per test: jest ignores `testTimeout` inside a project entry of jest.config.js.
const TEST_TIMEOUT_MS = 90_000;
const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: uniqueName('offset-rate-int'), brokers, logLevel: logLevel.NOTHING });
let admin: Admin;
const topics: string[] = [];
const sources: OffsetRateWeightSource[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});

afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await admin.deleteTopics({ topics: topics.splice(0), timeout: 10_000 }).catch(() => undefined);
  await admin.disconnect();
});

async function createTopic(partitions: number, name = uniqueName('offset-rate')): Promise<string> {
  await admin.createTopics({
    topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  if (!topics.includes(name)) topics.push(name);
  return name;
}

/** Sample duration histogram: observation count and sum in seconds. */
async function sampleDurations(registry: Registry): Promise<{ count: number; sum: number }> {
  const values = (await registry.getSingleMetric('load_aware_offset_rate_sample_duration_seconds')!.get()).values;
  const of = (suffix: string): number =>
    values.find(
      (v) => (v as { metricName?: string }).metricName === `load_aware_offset_rate_sample_duration_seconds_${suffix}`,
    )?.value ?? 0;
  return { count: of('count'), sum: of('sum') };
}

async function metric(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await registry.getSingleMetric(name)!.get();
  return values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))?.value ?? 0;
}

describe('offset-rate weights on a real broker', () => {
  it(
    'measures two partitions produced at 200 and 50 msg/s within 10 %, with one ListOffsets per sample for all topics',
    async () => {
      const topic = await createTopic(2);
      const idle = await createTopic(1);
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
        { topic: idle, partition: 0 },
      ];
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
      expect(await metric(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(3);
      expect(await metric(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })).toBe(0);
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
      const seen: number[] = [];
      const weigh = async (): Promise<Record<string, number>> => {
        const weights = await source.getWeights(partitions);
        seen.push(...weights.map((w) => w.weight));
        return weightMap(weights);
      };
      await weigh();
      const background = produceAtRates(kafka, [{ topic: other, partition: 0, perSecond: 40 }], 60_000);
      try {
        const before = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 100 }], 7000);
        await before.done;
        expect(within((await weigh())[`${topic}:0`], 100, 0.15)).toBe(true);

        await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
        // 3 failed samples while `other` succeeds: the deleted topic's partitions are dropped.
        await pollFor(
          'the deleted topic to be untracked',
          async () => ((await metric(registry, 'load_aware_offset_rate_tracked_partitions')) === 1 ? true : undefined),
          20_000,
        );
        expect(
          await metric(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'some' }),
        ).toBeGreaterThanOrEqual(3);
        expect(
          within(weightMap(await source.getWeights([{ topic: other, partition: 0 }]))[`${other}:0`], 40, 0.2),
        ).toBe(true);

        await pollFor(
          'the topic to be recreated',
          () =>
            createTopic(2, topic).then(
              () => true,
              () => undefined,
            ),
          30_000,
          500,
        );
        // Tracked afresh, no history: the time index shows the recreated topic idle.
        expect(await weigh()).toMatchObject({ [`${topic}:0`]: 0, [`${topic}:1`]: 0 });
        const after = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 50 }], 12_000);
        await sleep(8000);
        const weights = await weigh();
        await after.stop();
        expect(within(weights[`${topic}:0`], 50, 0.1)).toBe(true);
        expect(weights[`${topic}:1`]).toBe(0);
        expect(seen.every((w) => Number.isFinite(w) && w >= 0 && w <= 120)).toBe(true);
      } finally {
        await background.stop();
      }
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
      const seen: number[] = [];
      const weigh = async (): Promise<Record<string, number>> => {
        const weights = await source.getWeights(partitions);
        seen.push(...weights.map((w) => w.weight));
        return weightMap(weights);
      };
      await weigh();
      const background = produceAtRates(kafka, [{ topic: other, partition: 0, perSecond: 20 }], 60_000);
      try {
        await produceAtRates(kafka, [{ topic, partition: 0, perSecond: 300 }], 7000).done;
        expect(within((await weigh())[`${topic}:0`], 300, 0.15)).toBe(true);
        await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
        await pollFor(
          'the topic to be recreated',
          () =>
            createTopic(1, topic).then(
              () => true,
              () => undefined,
            ),
          30_000,
          200,
        );
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
      } finally {
        await background.stop();
      }
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
