import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { startKafka, uniqueName, type KafkaCluster } from './support';
import { pollFor, recordingLogger, weightMap, within } from './support/offset-rate-helpers';
import { produceAtRates } from './support/offset-rate-producer';

// Per test and hook: jest ignores `testTimeout` inside a project entry of jest.config.js.
const TEST_TIMEOUT_MS = 150_000;

/** A dedicated cluster: stopping the shared one would break every other test file. */
let cluster: KafkaCluster | undefined;

beforeAll(async () => {
  cluster = await startKafka({ nodes: 1 });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
}, TEST_TIMEOUT_MS);

async function counter(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const { values } = await registry.getSingleMetric(name)!.get();
  return values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))?.value ?? 0;
}

describe('offset-rate weights across a broker restart', () => {
  it(
    'counts sample errors while the broker is down and resumes measuring once it is back',
    async () => {
      const kafkaCluster = cluster!;
      const kafka = new Kafka({
        clientId: uniqueName('offset-rate-restart'),
        brokers: kafkaCluster.brokers,
        logLevel: logLevel.NOTHING,
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
      });
      const admin = kafka.admin();
      await admin.connect();
      const topic = uniqueName('offset-rate-restart');
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
      await admin.disconnect();

      const registry = new Registry();
      const logger = recordingLogger();
      const source = createOffsetRateWeightSource({
        kafka,
        rateIntervalMs: 5000,
        sampleIntervalMs: 1000,
        sampleTimeoutMs: 2000,
        registry,
        logger,
      }).start();
      const partitions = [{ topic, partition: 0 }];
      const errors = (): Promise<number> =>
        counter(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' });
      try {
        await source.getWeights(partitions);
        await produceAtRates(kafka, [{ topic, partition: 0, perSecond: 100 }], 7000).done;
        expect(within(weightMap(await source.getWeights(partitions))[`${topic}:0`], 100, 0.15)).toBe(true);
        expect(await errors()).toBe(0);

        const stoppedAt = Date.now();
        await kafkaCluster.stopNode(1);
        await pollFor('3 failed samples', async () => ((await errors()) >= 3 ? true : undefined), 30_000);
        const duringOutage = await errors();
        expect(logger.records.filter((r) => r.message.includes('no end offset could be read'))).toHaveLength(1);
        // Weights age out once no sample succeeded for a rate interval.
        await sleep(Math.max(0, stoppedAt + 5500 - Date.now()));
        expect(await source.getWeights(partitions)).toEqual([]);

        await kafkaCluster.startNode(1);
        const after = produceAtRates(kafka, [{ topic, partition: 0, perSecond: 50 }], 30_000);
        try {
          await pollFor(
            'sampling to recover',
            () => Promise.resolve(logger.records.some((r) => r.message === 'sampling recovered') || undefined),
            30_000,
          );
          const recoveredAt = Date.now();
          await sleep(6500); // a whole window after recovery
          const weight = weightMap(await source.getWeights(partitions))[`${topic}:0`];
          const report = await after.stop();
          process.stdout.write(
            `offset-rate restart: ${String(duringOutage)} failed samples while down, ` +
              `recovered ${String(recoveredAt - stoppedAt)} ms after stop, weight ${String(weight)}/s (50), ` +
              `failed sends ${String(report.failedSends)}\n`,
          );
          expect(within(weight, 50, 0.1)).toBe(true);
        } finally {
          await after.stop();
        }
      } finally {
        await source.stop();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
