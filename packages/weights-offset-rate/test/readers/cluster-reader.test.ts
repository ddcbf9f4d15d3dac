import { Kafka, logLevel } from 'kafkajs';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { FakeClock, recordingLogger } from '@load-aware/test-support';
import { tp, weightsOf, stoppedAfterEach } from '../fakes';
import { FakeCluster, fakeKafka, protocolError } from '../fake-kafka';

const SAMPLE_MS = 15_000;
const sources = stoppedAfterEach();

// Sampling alone: instant rates (their own requests) are covered in instant-rates.test.ts.
function setup(cluster: FakeCluster) {
  const clock = new FakeClock();
  const logger = recordingLogger();
  const kafka = fakeKafka(cluster);
  const source = createOffsetRateWeightSource({ kafka, clock, logger, instantTimeoutMs: 0 });
  sources.push(source);
  source.start();
  return { clock, logger, kafka, source };
}

describe('reading end offsets through a private KafkaJS cluster', () => {
  it('finds the private cluster factory of a real KafkaJS 2.2.4 Kafka and never opens a connection before a partition is tracked', async () => {
    const logger = recordingLogger();
    const kafka = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
    const source = createOffsetRateWeightSource({ kafka, logger }).start();
    const started = logger.records.find((r) => r.message === 'offset-rate weight source started');
    expect(started?.fields['reader']).toBe('cluster');
    await source.stop();
  });

  it('sends one ListOffsets per leader broker for all topics together, asking for the high watermark', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 2, 1]);
    cluster.addTopic('audit', [2, 1]);
    const { clock, kafka, source } = setup(cluster);
    const partitions = [tp('orders', 0), tp('orders', 1), tp('orders', 2), tp('audit', 0), tp('audit', 1)];
    await source.getWeights(partitions);
    await clock.advance(0);

    expect(kafka.factoryCalls).toEqual([
      { allowAutoTopicCreation: false, metadataMaxAge: 300_000, instrumentationEmitter: null },
    ]);
    expect(cluster.requests).toHaveLength(2);
    const byNode = new Map(cluster.requests.map((r) => [r.nodeId, r]));
    expect(byNode.get(1)).toEqual({
      nodeId: 1,
      isolationLevel: 0,
      topics: [
        {
          topic: 'orders',
          partitions: [
            { partition: 0, timestamp: -1 },
            { partition: 2, timestamp: -1 },
          ],
        },
        { topic: 'audit', partitions: [{ partition: 1, timestamp: -1 }] },
      ],
    });
    expect(byNode.get(2)?.topics.map((t) => t.topic)).toEqual(['orders', 'audit']);

    cluster.produce('orders', 0, 1500n);
    cluster.produce('audit', 1, 150n);
    await clock.advance(SAMPLE_MS);
    expect(cluster.requests).toHaveLength(4);
    expect(await weightsOf(source, partitions)).toEqual({
      'orders:0': 100,
      'orders:1': 0,
      'orders:2': 0,
      'audit:0': 0,
      'audit:1': 10,
    });
  });

  it('keeps sampling the other topics when a tracked topic is deleted, and stops tracking it after 3 samples', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.addTopic('doomed', [1, 1]);
    const { clock, source, logger } = setup(cluster);
    const partitions = [tp('orders', 0), tp('doomed', 0), tp('doomed', 1)];
    await source.getWeights(partitions);
    await clock.advance(0);
    cluster.topics.delete('doomed');
    for (let i = 1; i <= 3; i++) {
      cluster.produce('orders', 0, 300n);
      await clock.advance(SAMPLE_MS);
    }
    expect(await weightsOf(source, [tp('orders', 0)])).toEqual({ 'orders:0': 20 });
    const untracked = logger.records.find((r) => r.message.includes('no longer sampled'));
    expect(untracked?.fields).toMatchObject({ partitions: 2, examples: ['doomed:0', 'doomed:1'] });
    const failure = logger.records.find((r) => r.message.includes('could not be read'));
    expect(failure?.fields['code']).toBe('LOAD_AWARE_OFFSET_RATE_UNKNOWN_PARTITION');
    await clock.advance(SAMPLE_MS);
    expect(cluster.requests.at(-1)?.topics.map((t) => t.topic)).toEqual(['orders']);
  });

  it('asks a broker topic by topic when one topic fails its whole response, so the others still count', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.addTopic('stale', [1]);
    const { clock, source } = setup(cluster);
    await source.getWeights([tp('orders', 0), tp('stale', 0)]);
    await clock.advance(0);
    cluster.unknownToBrokers.add('stale');
    cluster.produce('orders', 0, 150n);
    const before = cluster.requests.length;
    await clock.advance(SAMPLE_MS);
    expect(cluster.requests.slice(before).map((r) => r.topics.map((t) => t.topic))).toEqual([
      ['orders', 'stale'],
      ['orders'],
      ['stale'],
    ]);
    expect(await weightsOf(source, [tp('orders', 0), tp('stale', 0)])).toEqual({ 'orders:0': 10 });
  });

  it('fails only the partitions of a broker that is down, of a partition without leader or missing from the metadata', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 2, null]);
    const { clock, source, logger } = setup(cluster);
    cluster.downBrokers.add(2);
    const partitions = [tp('orders', 0), tp('orders', 1), tp('orders', 2), tp('orders', 3)];
    await source.getWeights(partitions);
    await clock.advance(0);
    cluster.produce('orders', 0, 15n);
    const refreshes = cluster.refreshes;
    await clock.advance(SAMPLE_MS);
    expect(cluster.refreshes).toBeGreaterThan(refreshes); // errors force a metadata refresh
    expect(await weightsOf(source, partitions)).toEqual({ 'orders:0': 1 });
    const failure = logger.records.find((r) => r.message.includes('could not be read'));
    expect(failure?.fields['failed']).toBe(3);
  });

  it('disconnects its private cluster on stop()', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    const { clock, source } = setup(cluster);
    await source.getWeights([tp('orders', 0)]);
    await clock.advance(0);
    expect(cluster.connects).toBeGreaterThan(0);
    await source.stop();
    expect(cluster.disconnects).toBeGreaterThan(0);
  });

  it('rejects a refresh failure that is not about a topic as a failed sample, not as deleted topics', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.refreshMetadata = () => Promise.reject(protocolError('CLUSTER_AUTHORIZATION_FAILED'));
    const { clock, source, logger } = setup(cluster);
    await source.getWeights([tp('orders', 0)]);
    await clock.advance(0);
    const warn = logger.records.find((r) => r.message.includes('no end offset could be read'));
    expect(warn?.fields['code']).toBe('LOAD_AWARE_OFFSET_RATE_SAMPLE_FAILED');
  });
});
