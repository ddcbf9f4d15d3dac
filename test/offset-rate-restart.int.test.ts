import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createTopicsWithLeaders, uniqueName } from './support';
import { useDedicatedKafka } from './support/dedicated-kafka';
import { connectAdminClient } from './support/kafka-client';
import { metricValue, pollFor, recordingLogger, weightMap, within } from './support/offset-rate-helpers';
import { produceAtRates } from './support/offset-rate-producer';

// Per test and hook: jest ignores `testTimeout` inside a project entry of jest.config.js.
const TEST_TIMEOUT_MS = 150_000;

const cluster = useDedicatedKafka({ nodes: 1 }, TEST_TIMEOUT_MS);

describe('offset-rate weights across a broker restart', () => {
  it(
    'counts sample errors while the broker is down and resumes measuring once it is back',
    async () => {
      const kafkaCluster = cluster();
      const { kafka, admin } = await connectAdminClient(uniqueName('offset-rate-restart'), kafkaCluster.brokers, {
        retries: 3,
        initialRetryTime: 100,
        maxRetryTime: 1000,
      });
      const topic = uniqueName('offset-rate-restart');
      await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]);
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
        metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' });
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
