import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { EPOCH_MS, FakeClock, recordingLogger } from '@load-aware/test-support';
import { partitionLabel as keyOf } from '@load-aware/assignor/internal';
import { tp, stoppedAfterEach } from '../fakes';
import { FakeCluster } from '../fake-kafka';

const SAMPLE_MS = 15_000;
const WINDOW_MS = 60_000;
const sources = stoppedAfterEach();

/**
 * A stand-in for a @platformatic/kafka `Admin` over the fake brokers: `listOffsets` takes
 * per-partition timestamps and answers bigint offsets and the found record's timestamp, and fails
 * as a whole when any broker or topic fails, as platformatic 2.12.1 does.
 */
function fakePlatformaticAdmin(cluster: FakeCluster) {
  const admin = {
    calls: [] as bigint[][],
    closes: 0,
    async listOffsets({
      topics,
    }: {
      topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; timestamp: bigint }> }>;
    }) {
      admin.calls.push(topics.flatMap((t) => t.partitions.map((p) => p.timestamp)));
      const out = [];
      for (const t of topics) {
        const known = cluster.topics.get(t.name);
        if (known === undefined) throw new Error(`unknown topic ${t.name}`);
        const partitions = [];
        for (const p of t.partitions) {
          const leader = known[p.partitionIndex]?.leader;
          const broker = await cluster.findBroker({ nodeId: String(leader) });
          const answer = (await broker.listOffsets({
            isolationLevel: 0,
            topics: [{ topic: t.name, partitions: [{ partition: p.partitionIndex, timestamp: Number(p.timestamp) }] }],
          })) as { responses: Array<{ partitions: Array<{ offset: string; timestamp?: string }> }> };
          const found = answer.responses[0]!.partitions[0]!;
          partitions.push({
            partitionIndex: p.partitionIndex,
            offset: BigInt(found.offset),
            timestamp: BigInt(found.timestamp ?? '-1'),
            leaderEpoch: 0,
          });
        }
        out.push({ name: t.name, partitions });
      }
      return out;
    },
    listed: 0,
    listTopics: () => {
      admin.listed++;
      return Promise.resolve([...cluster.topics.keys()]);
    },
    close: () => {
      admin.closes++;
      return Promise.resolve();
    },
    describeGroups: () => Promise.resolve(new Map()),
  };
  return admin;
}

describe("reading offsets through @platformatic/kafka's Admin", () => {
  it('is chosen for a platformatic admin, weighs on the first call from the time index, then samples; never closes the admin', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 2]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - 2 * WINDOW_MS, EPOCH_MS);
    cluster.produceSteadily('orders', 1, 50, EPOCH_MS - 2 * WINDOW_MS, EPOCH_MS);
    const admin = fakePlatformaticAdmin(cluster);
    const clock = new FakeClock();
    const logger = recordingLogger();
    const source = createOffsetRateWeightSource({ kafka: admin, clock, logger }).start();
    sources.push(source);
    const partitions = [tp('orders', 0), tp('orders', 1)];
    const weigh = async () =>
      Object.fromEntries((await source.getWeights(partitions)).map((w) => [keyOf(w), w.weight]));

    expect(await weigh()).toEqual({ 'orders:0': 200, 'orders:1': 50 });
    // Window start, latest and future: one call each for both partitions.
    expect(admin.calls.slice(0, 3).map((c) => c.length)).toEqual([2, 2, 2]);
    expect(logger.records.find((r) => r.message === 'offset-rate weight source started')?.fields['reader']).toBe(
      'platformatic-admin',
    );

    await clock.advance(0);
    cluster.produce('orders', 0, 1500n);
    await clock.advance(SAMPLE_MS);
    expect((await weigh())['orders:0']).toBe(100);
    await source.stop();
    expect(admin.closes).toBe(0);
  });

  it('fails every partition of a failed read, then lists topics so that a deleted one stops failing the others', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.addTopic('doomed', [1]);
    const admin = fakePlatformaticAdmin(cluster);
    const clock = new FakeClock();
    const source = createOffsetRateWeightSource({ kafka: admin, clock, instantTimeoutMs: 0 }).start();
    sources.push(source);
    const partitions = [tp('orders', 0), tp('doomed', 0)];
    await source.getWeights(partitions);
    await clock.advance(0);
    cluster.topics.delete('doomed');
    await clock.advance(SAMPLE_MS); // fails whole: 'doomed' is unknown
    cluster.produce('orders', 0, 1500n);
    await clock.advance(SAMPLE_MS); // lists topics first, reads 'orders' alone
    cluster.produce('orders', 0, 1500n);
    await clock.advance(SAMPLE_MS);
    const weights = Object.fromEntries((await source.getWeights(partitions)).map((w) => [keyOf(w), w.weight]));
    // Read again after the failed sample: 3000 records since the first sample, 45 s before.
    expect(weights['orders:0']).toBeGreaterThan(0);
    expect(weights['doomed:0']).toBeUndefined();
    expect(admin.listed).toBeGreaterThanOrEqual(1);
  });
});
