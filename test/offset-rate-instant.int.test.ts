import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type logCreator } from 'kafkajs';
import { Registry } from 'prom-client';
import { fetchWeights, type TopicPartition } from '@load-aware/assignor/internal';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { metricValue, recordingLogger, weightMap, within } from './support/offset-rate-helpers';
import { produceAtRates } from './support/offset-rate-producer';
import { useSharedBrokerAdmin } from './support/shared-broker';

// Per test: jest ignores `testTimeout` inside a project entry of jest.config.js.
const TEST_TIMEOUT_MS = 90_000;
/** The assignor's default `weightsTimeoutMs`: the budget the first answer must fit in. */
const ASSIGNOR_BUDGET_MS = 5000;
const LOOKUPS = 'load_aware_offset_rate_instant_lookups_total';

const brokers = kafkaBrokersFromEnv();
const version = process.env['KAFKA_VERSION_RUNNING'] ?? 'unknown';
const kafka = new Kafka({ clientId: uniqueName('offset-rate-instant'), brokers, logLevel: logLevel.NOTHING });
const { createTopic } = useSharedBrokerAdmin(kafka, 'offset-rate-instant', { deleteTopicsAfterAll: true });
const sources: OffsetRateWeightSource[] = [];

afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.stop()));
});

/** A KafkaJS client of its own (a fresh process has no connection yet) that counts requests by API. */
function countingKafka(): { kafka: Kafka; requests: Map<string, number> } {
  const requests = new Map<string, number>();
  const creator: logCreator =
    () =>
    ({ log }) => {
      const match = /^Request (\w+)\(/.exec(log.message);
      if (match !== null) requests.set(match[1]!, (requests.get(match[1]!) ?? 0) + 1);
    };
  return {
    kafka: new Kafka({ clientId: uniqueName('fresh'), brokers, logLevel: logLevel.DEBUG, logCreator: creator }),
    requests,
  };
}

/** What a fresh source's very first answer gave, and what it cost. */
interface FirstAnswer {
  readonly weights: Record<string, number>;
  readonly latencyMs: number;
  readonly defaulted: number;
  readonly requests: Map<string, number>;
  readonly lookup: Record<string, unknown> | undefined;
  readonly registry: Registry;
}

/** Creates a source on a fresh client and asks it once, as the assignor does (same budget). */
async function firstAnswer(partitions: TopicPartition[], rateIntervalMs: number): Promise<FirstAnswer> {
  const { kafka: fresh, requests } = countingKafka();
  const logger = recordingLogger();
  const registry = new Registry();
  const source = createOffsetRateWeightSource({ kafka: fresh, rateIntervalMs, logger, registry }).start();
  sources.push(source);
  const startedAt = performance.now();
  const weights = await fetchWeights(source, partitions, ASSIGNOR_BUDGET_MS);
  const latencyMs = performance.now() - startedAt;
  return {
    weights: weightMap(weights),
    latencyMs,
    defaulted: partitions.length - weights.length,
    requests: new Map(requests),
    lookup: logger.records.find((r) => r.message === 'time index read')?.fields,
    registry,
  };
}

function describeAnswer(label: string, a: FirstAnswer, names: Record<string, string>): string {
  const rates = Object.entries(names)
    .map(([key, name]) => `${name} ${(a.weights[key] ?? Number.NaN).toFixed(1)}/s`)
    .join(', ');
  const requests = [...a.requests].map(([api, n]) => `${api}×${String(n)}`).join(' ');
  return (
    `offset-rate instant (Kafka ${version}, ${label}): first getWeights ${a.latencyMs.toFixed(1)} ms, ` +
    `${rates}, ${String(a.defaulted)} defaulted; lookup ${JSON.stringify(a.lookup)}; KafkaJS requests meanwhile: ${requests}\n`
  );
}

describe('instant offset rates from the time index on a real broker', () => {
  it(
    'gives a fresh source rates within 10 % of the produced ones on its very first answer, none defaulted',
    async () => {
      const created = await createTopic(2);
      const appended = await createTopic(1, { config: { 'message.timestamp.type': 'LogAppendTime' } });
      const idle = await createTopic(1);
      const partitions: TopicPartition[] = [
        { topic: created, partition: 0 },
        { topic: appended, partition: 0 },
        { topic: idle, partition: 0 },
      ];
      const names = { [`${created}:0`]: '200/s', [`${appended}:0`]: '50/s (LogAppendTime)', [`${idle}:0`]: 'idle' };
      const producer = produceAtRates(
        kafka,
        [
          { topic: created, partition: 0, perSecond: 200 },
          { topic: appended, partition: 0, perSecond: 50 },
        ],
        16_000,
      );
      let answers: Array<[string, FirstAnswer]>;
      try {
        await sleep(12_000);
        answers = [
          // 12 s of production fill a 10 s window: records in it / 10 s.
          ['10 s window', await firstAnswer(partitions, 10_000)],
          // The topics are younger than a 60 s window: the rate over the span they cover.
          ['60 s window, topics 12 s old', await firstAnswer(partitions, 60_000)],
        ];
      } finally {
        const report = await producer.stop();
        expect(report.failedSends).toBe(0);
      }
      for (const [label, answer] of answers) {
        process.stdout.write(describeAnswer(label, answer, names));
        expect(answer.defaulted).toBe(0);
        expect(within(answer.weights[`${created}:0`], 200, 0.1)).toBe(true);
        expect(within(answer.weights[`${appended}:0`], 50, 0.1)).toBe(true);
        expect(answer.weights[`${idle}:0`]).toBe(0);
        expect(answer.latencyMs).toBeLessThan(500); // within instantTimeoutMs
        // One broker leads all three topics: three requests (window start, latest, future).
        expect(answer.lookup).toMatchObject({ partitions: 3, topics: 3, brokers: 1, requests: 3 });
        expect(answer.requests.get('ListOffsets')).toBeGreaterThanOrEqual(3);
        expect(await metricValue(answer.registry, LOOKUPS, { outcome: 'measured' })).toBe(2);
        expect(await metricValue(answer.registry, LOOKUPS, { outcome: 'idle' })).toBe(1);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'leaves a partition with a record stamped an hour ahead to sampling, reads lagging timestamps as idle, weighs the rest',
    async () => {
      const topic = await createTopic(3);
      const now = Date.now();
      // Producer-stamped history, written at once: 10/s over the last minute.
      const history = (partition: number, shiftMs: number) =>
        Array.from({ length: 600 }, (_, i) => ({
          partition,
          value: String(i),
          timestamp: String(now - 60_000 + shiftMs + i * 100),
        }));
      const producer = kafka.producer();
      await producer.connect();
      try {
        await producer.send({
          topic,
          messages: [
            { partition: 0, value: 'ahead', timestamp: String(now + 3_600_000) },
            ...history(0, 0),
            ...history(1, 0),
            ...history(2, -3_600_000), // a producer clock an hour behind
          ],
        });
      } finally {
        await producer.disconnect();
      }
      const logger = recordingLogger();
      const registry = new Registry();
      // This test checks what the lookup reads, not how fast: the test above holds the first answer
      // to the default 500 ms box. Here the box is wide, since beside other files on a loaded 2-core
      // machine the lookup took longer than 500 ms and the answer had no partition at all.
      const source = createOffsetRateWeightSource({
        kafka,
        rateIntervalMs: 30_000,
        instantTimeoutMs: 10_000,
        logger,
        registry,
      }).start();
      sources.push(source);
      const partitions = [0, 1, 2].map((partition) => ({ topic, partition }));
      const weights = weightMap(await source.getWeights(partitions));
      process.stdout.write(
        `offset-rate instant (Kafka ${version}, producer-stamped): ${JSON.stringify(weights)} (future-stamped left out, 10/s, lagging read as idle)\n`,
      );
      expect(Object.keys(weights).sort()).toEqual([`${topic}:1`, `${topic}:2`]);
      // Low by the time between writing and asking (the window slid past some records).
      expect(within(weights[`${topic}:1`], 10, 0.1)).toBe(true);
      expect(weights[`${topic}:2`]).toBe(0);
      expect(await metricValue(registry, LOOKUPS, { outcome: 'future_timestamps' })).toBe(1);
      expect(
        logger.records.filter((r) => r.level === 'warn' && r.message.includes('ahead of this process clock')),
      ).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});
