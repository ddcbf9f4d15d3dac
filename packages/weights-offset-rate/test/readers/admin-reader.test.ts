import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { FakeClock, recordingLogger } from '@load-aware/test-support';
import { tp, weightsOf, stoppedAfterEach } from '../fakes';
import { FakeCluster, fakeAdmin, fakeKafka } from '../fake-kafka';

const SAMPLE_MS = 15_000;
const sources = stoppedAfterEach();

describe('reading end offsets through a KafkaJS admin client', () => {
  it('reads topic by topic through the admin passed in and never disconnects it', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 1]);
    cluster.addTopic('audit', [1]);
    const admin = fakeAdmin(cluster);
    const clock = new FakeClock();
    const logger = recordingLogger();
    const source = createOffsetRateWeightSource({ kafka: admin, clock, logger }).start();
    sources.push(source);
    const partitions = [tp('orders', 0), tp('orders', 1), tp('audit', 0)];
    await source.getWeights(partitions);
    await clock.advance(0);
    cluster.produce('orders', 1, 3000n);
    await clock.advance(SAMPLE_MS);
    expect(await weightsOf(source, partitions)).toEqual({ 'orders:0': 0, 'orders:1': 200, 'audit:0': 0 });
    expect(admin.calls).toEqual(['orders', 'audit', 'orders', 'audit']);
    await source.stop();
    expect(admin.disconnects).toBe(0);
    expect(logger.records.find((r) => r.message === 'offset-rate weight source started')?.fields['reader']).toBe(
      'caller-admin',
    );
  });

  it('lists topics after a failure, so a deleted topic fails at once and the others keep their samples', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.addTopic('doomed', [1]);
    const admin = fakeAdmin(cluster);
    const clock = new FakeClock();
    const source = createOffsetRateWeightSource({ kafka: admin, clock }).start();
    sources.push(source);
    await source.getWeights([tp('orders', 0), tp('doomed', 0)]);
    await clock.advance(0);
    cluster.topics.delete('doomed');
    await clock.advance(SAMPLE_MS); // fails doomed through fetchTopicOffsets
    const calls = admin.calls.length;
    cluster.produce('orders', 0, 150n);
    await clock.advance(SAMPLE_MS); // lists topics first: doomed is not asked for
    expect(admin.listed).toBe(1);
    expect(admin.calls.slice(calls)).toEqual(['orders']);
    expect(await weightsOf(source, [tp('orders', 0), tp('doomed', 0)])).toEqual({ 'orders:0': 5 });
  });

  it('falls back to an admin of its own when the Kafka has no private cluster factory, and disconnects it on stop()', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    const admin = fakeAdmin(cluster);
    const logger = recordingLogger();
    const clock = new FakeClock();
    const source = createOffsetRateWeightSource({ kafka: fakeKafka(undefined, admin), clock, logger }).start();
    expect(logger.messages('warn').some((m) => m.includes('no private cluster factory'))).toBe(true);
    await source.getWeights([tp('orders', 0)]);
    await clock.advance(0);
    expect(admin.calls).toEqual(['orders']);
    await source.stop();
    expect(admin.disconnects).toBeGreaterThan(0);
  });
});
