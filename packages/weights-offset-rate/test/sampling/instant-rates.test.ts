import { Registry } from 'prom-client';
import type { TopicPartition } from '@load-aware/assignor';
import { createOffsetRateWeightSource, type OffsetRateWeightSourceOptions } from '@load-aware/weights-offset-rate';
import { fakeReader, tp, stoppedAfterEach } from '../fakes';
import { EPOCH_MS, FakeClock, flush, recordingLogger } from '@load-aware/test-support';
import { partitionLabel as keyOf } from '@load-aware/assignor/internal';
import { FakeCluster, fakeAdmin, fakeKafka } from '../fake-kafka';
import { histogramCount, metricValue } from '../metrics-helpers';

const SAMPLE_MS = 15_000;
const WINDOW_MS = 60_000;
const HOUR_MS = 3_600_000;
const LOOKUPS = 'load_aware_offset_rate_instant_lookups_total';

const sources = stoppedAfterEach();

function setup(cluster: FakeCluster, options: Partial<OffsetRateWeightSourceOptions> = {}) {
  const clock = new FakeClock();
  const logger = recordingLogger();
  const registry = new Registry();
  const source = createOffsetRateWeightSource({ kafka: fakeKafka(cluster), clock, logger, registry, ...options });
  sources.push(source.start());
  const weigh = async (partitions: TopicPartition[]): Promise<Record<string, number>> =>
    Object.fromEntries((await source.getWeights(partitions)).map((w) => [keyOf(w), w.weight]));
  const lines = (fragment: string) => logger.records.filter((r) => r.message.includes(fragment));
  return { clock, logger, registry, source, weigh, lines };
}

/** Time-index requests (by timestamp) among the requests the fake brokers received. */
function byTimestamp(cluster: FakeCluster) {
  return cluster.requests.filter((r) => r.topics.some((t) => t.partitions.some((p) => p.timestamp >= 0)));
}

/**
 * A source whose one partition, orders:0, produced 200/s for the whole window and has been
 * sampled once since: its weight (200) now comes from sampled history.
 */
async function sampledAt200PerSecond(): Promise<{ cluster: FakeCluster } & ReturnType<typeof setup>> {
  const cluster = new FakeCluster();
  cluster.addTopic('orders', [1]);
  cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
  const source = setup(cluster);
  await source.weigh([tp('orders', 0)]);
  await source.clock.advance(0);
  cluster.produce('orders', 0, 3000n);
  await source.clock.advance(SAMPLE_MS);
  expect(await source.weigh([tp('orders', 0)])).toEqual({ 'orders:0': 200 });
  return { cluster, ...source };
}

describe('instant rates from the time index', () => {
  it('weighs every partition on the first call after start, with three requests per leader broker, then hands over to sampling', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 2]);
    cluster.addTopic('audit', [1]);
    // Two minutes of steady production before the source exists.
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - 2 * WINDOW_MS, EPOCH_MS);
    cluster.produceSteadily('orders', 1, 50, EPOCH_MS - 2 * WINDOW_MS, EPOCH_MS);
    const { clock, registry, weigh } = setup(cluster);
    const partitions = [tp('orders', 0), tp('orders', 1), tp('audit', 0)];

    expect(await weigh(partitions)).toEqual({ 'orders:0': 200, 'orders:1': 50, 'audit:0': 0 });
    // Per broker: window start, latest, future, each covering every partition it leads.
    expect(cluster.requests).toHaveLength(6);
    const byNode = (nodeId: number) => cluster.requests.filter((r) => r.nodeId === nodeId);
    expect(byNode(1).map((r) => r.topics)).toEqual(
      [EPOCH_MS - WINDOW_MS, -1, EPOCH_MS + 2000].map((timestamp) => [
        { topic: 'orders', partitions: [{ partition: 0, timestamp }] },
        { topic: 'audit', partitions: [{ partition: 0, timestamp }] },
      ]),
    );
    expect(byNode(2)).toHaveLength(3);
    expect(await metricValue(registry, LOOKUPS, { outcome: 'measured' })).toBe(2);
    expect(await metricValue(registry, LOOKUPS, { outcome: 'idle' })).toBe(1);
    expect(await histogramCount(registry, 'load_aware_offset_rate_instant_lookup_duration_seconds')).toBe(1);

    await clock.advance(0); // the sampler's first sample
    cluster.produceSteadily('orders', 0, 100, EPOCH_MS, EPOCH_MS + SAMPLE_MS); // the rate halves
    await clock.advance(SAMPLE_MS);
    expect(await weigh(partitions)).toEqual({ 'orders:0': 100, 'orders:1': 0, 'audit:0': 0 });
    expect(await histogramCount(registry, 'load_aware_offset_rate_instant_divergence_ratio')).toBe(3);
    expect(byTimestamp(cluster)).toHaveLength(4); // no lookup once sampled weights exist
  });

  it('measures a partition that started inside the window over the span it covers; one too young waits for sampling', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('t', [1, 1, 1, 1]);
    cluster.produceSteadily('t', 0, 100, EPOCH_MS - 20_000, EPOCH_MS); // created 20 s ago
    cluster.produceSteadily('t', 1, 100, EPOCH_MS - 3000, EPOCH_MS); // 3 s: less than 6 s (window / 10)
    cluster.append(
      't',
      2,
      [-100_000, -70_000, -40_000, -10_000].map((ms) => EPOCH_MS + ms),
    ); // sparse
    cluster.append('t', 3, [EPOCH_MS - HOUR_MS]);
    cluster.produceSteadily('t', 3, 100, EPOCH_MS - 30_000, EPOCH_MS); // woke up 30 s ago
    const { registry, weigh, lines } = setup(cluster);

    const weights = await weigh([tp('t', 0), tp('t', 1), tp('t', 2), tp('t', 3)]);
    expect(Object.keys(weights).sort()).toEqual(['t:0', 't:2', 't:3']);
    expect(weights['t:0']).toBeCloseTo(1999 / 20, 9); // not 2000 / 60
    expect(weights['t:2']).toBeCloseTo(2 / 60, 9); // two records in a minute: the window average
    expect(weights['t:3']).toBeCloseTo(2999 / 30, 9); // not 3000 / 60
    expect(await metricValue(registry, LOOKUPS, { outcome: 'too_young' })).toBe(1);
    const young = lines('started producing less than 6000 ms ago');
    expect(young).toHaveLength(1);
    expect(young[0]).toMatchObject({ level: 'info', fields: { partitions: 1, examples: ['t:1'] } });
  });

  it('leaves partitions with timestamps ahead of this clock to sampling, warning once, and tolerates 2 s of skew', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('t', [1, 1, 1, 1]);
    // A producer clock 10 s ahead: the window-start lookup alone would count 70 s of records.
    cluster.produceSteadily('t', 0, 100, EPOCH_MS - 2 * WINDOW_MS + 10_000, EPOCH_MS + 10_000);
    // One record stamped an hour ahead, long ago: every earlier lookup would land on it.
    cluster.append('t', 1, [EPOCH_MS + HOUR_MS]);
    cluster.produceSteadily('t', 1, 100, EPOCH_MS - 2 * WINDOW_MS, EPOCH_MS);
    // A producer clock 1 s ahead: tolerated, the rate is 61 s of records over 60 s.
    cluster.produceSteadily('t', 2, 100, EPOCH_MS - 2 * WINDOW_MS + 1000, EPOCH_MS + 1000);
    const { registry, weigh, lines, clock } = setup(cluster);

    const weights = await weigh([tp('t', 0), tp('t', 1), tp('t', 2)]);
    expect(Object.keys(weights)).toEqual(['t:2']);
    expect(weights['t:2']).toBeCloseTo(6100 / 60, 9);
    expect(await metricValue(registry, LOOKUPS, { outcome: 'future_timestamps' })).toBe(2);
    const warned = lines('ahead of this process clock');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 'warn', fields: { partitions: 2, examples: ['t:0', 't:1'] } });

    // Asked again at once: no second lookup of the same partitions (one per sample interval).
    const before = cluster.requests.length;
    await weigh([tp('t', 0), tp('t', 1)]);
    expect(cluster.requests).toHaveLength(before);
    // Another partition with the same cause: looked up, not warned about again.
    cluster.append('t', 3, [EPOCH_MS + HOUR_MS]);
    expect(await weigh([tp('t', 3)])).toEqual({});
    expect(lines('ahead of this process clock').map((r) => r.level)).toEqual(['warn', 'debug']);

    // Sampling takes over: two samples give every partition a weight.
    await clock.advance(0);
    cluster.produce('t', 0, 1500n);
    await clock.advance(SAMPLE_MS);
    expect(await weigh([tp('t', 0), tp('t', 1)])).toEqual({ 't:0': 100, 't:1': 0 });
  });

  it('counts offsets in the window of a compacted partition, like the sampler: the produce rate', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('compacted', [1, 1]);
    for (const partition of [0, 1])
      cluster.produceSteadily('compacted', partition, 100, EPOCH_MS - 2 * WINDOW_MS, EPOCH_MS);
    cluster.compact('compacted', 0, (offset) => offset % 3n === 0n); // the record at the window start stays
    cluster.compact('compacted', 1, (offset) => offset % 7n === 0n); // it goes: the next one is found
    const { weigh } = setup(cluster);
    const weights = await weigh([tp('compacted', 0), tp('compacted', 1)]);
    expect(weights['compacted:0']).toBe(100);
    expect(weights['compacted:1']).toBeCloseTo(5994 / 60, 9);
  });

  it('falls back per partition when brokers cannot look up by timestamp or are down, warning once per cause', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 2]);
    cluster.addTopic('legacy', [1]);
    for (const [topic, partition] of [
      ['orders', 0],
      ['orders', 1],
      ['legacy', 0],
    ] as const) {
      cluster.produceSteadily(topic, partition, 10, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    }
    cluster.timestampErrors.set('legacy', 'UNSUPPORTED_FOR_MESSAGE_FORMAT');
    cluster.downBrokers.add(2);
    const { registry, weigh, lines } = setup(cluster);

    expect(await weigh([tp('orders', 0), tp('orders', 1), tp('legacy', 0)])).toEqual({ 'orders:0': 10 });
    // Broker 1 was asked again topic by topic for the lookup that failed for one topic.
    expect(byTimestamp(cluster).map((r) => r.topics.map((t) => t.topic))).toEqual([
      ['orders', 'legacy'],
      ['orders', 'legacy'],
      ['orders'],
      ['legacy'],
      ['orders'],
      ['legacy'],
    ]);
    expect(await metricValue(registry, LOOKUPS, { outcome: 'no_time_index' })).toBe(1);
    expect(await metricValue(registry, LOOKUPS, { outcome: 'failed' })).toBe(1);
    expect(lines('cannot look these partitions up by timestamp')).toMatchObject([
      { level: 'warn', fields: { examples: ['legacy:0'] } },
    ]);
    expect(lines('time-index lookup failed')).toMatchObject([
      { level: 'warn', fields: { examples: ['orders:1'], code: 'LOAD_AWARE_OFFSET_RATE_LIST_OFFSETS_FAILED' } },
    ]);
  });

  it('leaves every partition to sampling when answers carry no timestamps (ListOffsets v0)', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.produceSteadily('orders', 0, 10, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    cluster.timeIndex = false;
    const { registry, weigh, lines, clock } = setup(cluster);
    expect(await weigh([tp('orders', 0)])).toEqual({});
    expect(await metricValue(registry, LOOKUPS, { outcome: 'no_time_index' })).toBe(1);
    expect(lines('cannot look these partitions up by timestamp')).toHaveLength(1);
    await clock.advance(0);
    cluster.produce('orders', 0, 300n);
    await clock.advance(SAMPLE_MS);
    expect(await weigh([tp('orders', 0)])).toEqual({ 'orders:0': 20 });
  });

  it('shows partitions whose timestamps lag by more than the window as idle, and says so once sampling sees them produce', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('lagging', [1]);
    cluster.produceSteadily('lagging', 0, 100, EPOCH_MS - HOUR_MS - WINDOW_MS, EPOCH_MS - HOUR_MS);
    const { registry, weigh, lines, clock } = setup(cluster);
    expect(await weigh([tp('lagging', 0)])).toEqual({ 'lagging:0': 0 });
    await clock.advance(0);
    cluster.produceSteadily('lagging', 0, 100, EPOCH_MS - HOUR_MS, EPOCH_MS - HOUR_MS + SAMPLE_MS);
    await clock.advance(SAMPLE_MS);
    expect(await weigh([tp('lagging', 0)])).toEqual({ 'lagging:0': 100 });
    expect(lines('showed idle are producing')).toMatchObject([{ level: 'info', fields: { examples: ['lagging:0'] } }]);
    expect(await histogramCount(registry, 'load_aware_offset_rate_instant_divergence_ratio')).toBe(1);
  });

  it('fails the partitions of a failed request with errors that share its cause and capture no stack each', async () => {
    // A broker leading thousands of partitions fails them all at once: capturing one stack per
    // partition cost hundreds of milliseconds inside the caller's time box at 10,000 partitions.
    const cluster = new FakeCluster();
    cluster.addTopic(
      'orders',
      Array.from({ length: 2000 }, () => 2),
    );
    cluster.downBrokers.add(2);
    const { weigh, lines } = setup(cluster);
    const partitions = Array.from({ length: 2000 }, (_, p) => tp('orders', p));
    expect(await weigh(partitions)).toEqual({});
    const [line] = lines('time-index lookup failed');
    const err = line?.fields['err'] as Error & { cause?: Error };
    expect(err.message).toContain('ListOffsets to broker 2 failed');
    expect(err.stack ?? '').not.toContain('\n    at ');
    expect(err.cause?.stack).toContain('\n    at ');
    expect(Error.stackTraceLimit).toBeGreaterThan(0); // restored
  });

  it('answers within instantTimeoutMs when brokers hang, and keeps the late rates for the next call', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    cluster.hold = true;
    // Long enough that the reader's own (real-time) deadline cannot pass during the test.
    const { clock, registry, source, weigh, lines } = setup(cluster, { instantTimeoutMs: 5000 });
    let answered: unknown;
    const pending = source.getWeights([tp('orders', 0)]).then((w) => (answered = w));
    await clock.advance(4999);
    expect(answered).toBeUndefined();
    await clock.advance(1);
    expect(answered).toEqual([]);
    await pending;
    expect(await metricValue(registry, 'load_aware_offset_rate_instant_timeouts_total')).toBe(1);
    expect(lines('did not finish within instantTimeoutMs')).toMatchObject([{ level: 'warn' }]);

    cluster.hold = false;
    cluster.release();
    await flush();
    const requests = cluster.requests.length;
    expect(await weigh([tp('orders', 0)])).toEqual({ 'orders:0': 200 });
    expect(cluster.requests).toHaveLength(requests);
  });

  it('counts the time its first answer takes inside instantTimeoutMs: the wait ends that much earlier', async () => {
    // Partitions that cost 1 ms each time their topic is read: answering 100 of them takes a few
    // hundred ms of the box before the lookup even starts.
    class ChargedClock extends FakeClock {
      charged = 0;
      override now(): number {
        return super.now() + this.charged;
      }
    }
    const clock = new ChargedClock();
    const costly = (partition: number) => ({
      get topic() {
        clock.charged++;
        return 'orders';
      },
      partition,
    });
    const cluster = new FakeCluster();
    cluster.addTopic(
      'orders',
      Array.from({ length: 100 }, () => 1),
    );
    cluster.hold = true;
    const source = createOffsetRateWeightSource({
      kafka: fakeKafka(cluster),
      clock,
      logger: recordingLogger(),
      registry: new Registry(),
      instantTimeoutMs: 1000,
    }).start();
    sources.push(source);
    const calledAt = clock.now();
    let answeredAt: number | undefined;
    const pending = source
      .getWeights(Array.from({ length: 100 }, (_, p) => costly(p)))
      .then(() => (answeredAt = clock.now()));
    const answerMs = clock.now() - calledAt;
    expect(answerMs).toBeGreaterThanOrEqual(100);
    for (let ms = 0; ms < 1000 && answeredAt === undefined; ms += 10) await clock.advance(10);
    await pending;
    // The wait ends what the first answer took before the box does, so completing the answer
    // (at most the same cost again) still fits.
    expect(answeredAt! - calledAt).toBeGreaterThanOrEqual(1000 - answerMs - 10);
    expect(answeredAt! - calledAt).toBeLessThanOrEqual(1000 - answerMs + 10);
    cluster.hold = false;
    cluster.release();
  });

  it('looks more than 1,000 partitions up in batches of at most 1,000, three requests each, and weighs them all', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic(
      'orders',
      Array.from({ length: 1500 }, () => 1),
    );
    cluster.addTopic(
      'audit',
      Array.from({ length: 1000 }, () => 1),
    );
    cluster.produceSteadily('orders', 1200, 50, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    const { weigh, lines } = setup(cluster);
    const partitions = [
      ...Array.from({ length: 1500 }, (_, p) => tp('orders', p)),
      ...Array.from({ length: 1000 }, (_, p) => tp('audit', p)),
    ];

    const weights = await weigh(partitions);
    expect(Object.keys(weights)).toHaveLength(2500);
    expect(weights['orders:1200']).toBe(50);
    const requests = byTimestamp(cluster);
    expect(requests.map((r) => r.topics.map((t) => [t.topic, t.partitions.length]))).toEqual([
      ...[0, 1].map(() => [['orders', 1000]]),
      ...[0, 1].map(() => [
        ['orders', 500],
        ['audit', 500],
      ]),
      ...[0, 1].map(() => [['audit', 500]]),
    ]);
    expect(cluster.requests).toHaveLength(9); // with the latest-offset ones: three per batch
    expect(lines('time index read')).toMatchObject([{ fields: { partitions: 2500, requests: 9 } }]);
  });

  it('answers at its deadline with the rates stored by then; the rest are stored after it and serve the next call', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic(
      'orders',
      Array.from({ length: 4000 }, () => 1),
    );
    for (let p = 0; p < 4000; p++) cluster.produceSteadily('orders', p, 10, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    cluster.hold = true;
    const { clock, source, lines } = setup(cluster, { instantTimeoutMs: 5000 });
    const partitions = Array.from({ length: 4000 }, (_, p) => tp('orders', p));
    let answered: ReadonlyArray<{ weight: number }> | undefined;
    const pending = source.getWeights(partitions).then((w) => (answered = w));
    await clock.advance(4000);
    cluster.hold = false;
    cluster.release();
    // Read, and its rates being stored 1,000 partitions per task, when the deadline passes.
    for (let i = 0; i < 1000 && lines('time index read').length === 0; i++) await flush();
    await clock.advance(1000);
    await pending;
    expect(answered!.length).toBeGreaterThan(0);
    expect(answered!.length).toBeLessThan(4000);
    expect(answered!.every((w) => w.weight === 10)).toBe(true);
    expect(lines('did not finish within instantTimeoutMs')).toHaveLength(1);

    await flush();
    const requests = cluster.requests.length;
    expect(await source.getWeights(partitions)).toHaveLength(4000);
    expect(cluster.requests).toHaveLength(requests);
  });

  it("starts the sampler's first read of new partitions only once the lookups are answered", async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1, 1]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    cluster.hold = true;
    const { clock, source } = setup(cluster, { instantTimeoutMs: 5000 });
    const pending = source.getWeights([tp('orders', 0), tp('orders', 1)]);
    await clock.advance(0);
    // The lookup's three requests (window start, latest, future) and nothing else while it runs.
    expect(cluster.requests).toHaveLength(3);
    cluster.hold = false;
    cluster.release();
    expect(await pending).toEqual([
      { topic: 'orders', partition: 0, weight: 200 },
      { topic: 'orders', partition: 1, weight: 0 },
    ]);
    await clock.advance(0);
    expect(cluster.requests).toHaveLength(4); // then the sampler's first read
  });

  it('waits for a lookup in flight instead of starting another', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    cluster.hold = true;
    const { source } = setup(cluster, { instantTimeoutMs: 5000 });
    const answered: unknown[] = [];
    const calls = [0, 1].map(() => source.getWeights([tp('orders', 0)]).then((w) => answered.push(w)));
    await flush();
    expect(byTimestamp(cluster)).toHaveLength(2); // one lookup: window start and future
    expect(answered).toEqual([]);
    cluster.hold = false;
    cluster.release();
    await Promise.all(calls);
    expect(answered).toEqual([
      [{ topic: 'orders', partition: 0, weight: 200 }],
      [{ topic: 'orders', partition: 0, weight: 200 }],
    ]);
  });

  it('drops the answer of a lookup still running at stop(), and leaves no timer behind', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    cluster.hold = true;
    const { clock, source, registry } = setup(cluster, { instantTimeoutMs: 5000 });
    const pending = source.getWeights([tp('orders', 0)]);
    await flush();
    const stopped = source.stop();
    cluster.release();
    await stopped;
    expect(await pending).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    expect(await metricValue(registry, LOOKUPS, { outcome: 'measured' })).toBe(0);
  });

  it('looks partitions passed to track() up in the background, so getWeights answers from memory', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    const { source, weigh } = setup(cluster);
    source.track([tp('orders', 0)]);
    await flush();
    expect(cluster.requests).toHaveLength(3);
    expect(await weigh([tp('orders', 0)])).toEqual({ 'orders:0': 200 });
    expect(cluster.requests).toHaveLength(3);
  });

  it('looks a partition up again once its history is lost (end offset went backwards)', async () => {
    const { cluster, clock, weigh } = await sampledAt200PerSecond();

    // Recreated: a fresh log producing 30/s for the last 20 s.
    cluster.addTopic('orders', [1]);
    const now = EPOCH_MS + clock.now();
    cluster.produceSteadily('orders', 0, 30, now + SAMPLE_MS - 20_000, now + SAMPLE_MS);
    await clock.advance(SAMPLE_MS); // the sample sees the offset go backwards: no sampled weight
    expect(await weigh([tp('orders', 0)])).toEqual({ 'orders:0': 599 / 20 });
  });

  it('weighs partitions from the time index again after an outage longer than the window', async () => {
    const { cluster, clock, weigh } = await sampledAt200PerSecond();

    cluster.downBrokers.add(1);
    await clock.advance(WINDOW_MS + 10); // every sample fails: the sampled weight goes stale
    cluster.downBrokers.delete(1);
    // Back, before the next sample: the stale history gives no weight, the time index does.
    const now = EPOCH_MS + clock.now();
    cluster.produceSteadily('orders', 0, 100, now - WINDOW_MS, now);
    expect(await weigh([tp('orders', 0)])).toEqual({ 'orders:0': 100 });
  });

  it('reads no time index when turned off, through an admin client or through a custom reader', async () => {
    const cluster = new FakeCluster();
    cluster.addTopic('orders', [1]);
    cluster.produceSteadily('orders', 0, 200, EPOCH_MS - WINDOW_MS, EPOCH_MS);
    const off = setup(cluster, { instantTimeoutMs: 0 });
    expect(await off.weigh([tp('orders', 0)])).toEqual({});
    expect(byTimestamp(cluster)).toEqual([]);
    expect(off.lines('instant rates need')).toEqual([]);

    for (const kafka of [fakeAdmin(cluster), fakeReader(new FakeClock())]) {
      const logger = recordingLogger();
      const source = createOffsetRateWeightSource({ kafka, clock: new FakeClock(), logger });
      sources.push(source.start());
      expect(await source.getWeights([tp('orders', 0)])).toEqual([]);
      expect(
        logger.records.filter((r) => r.message.includes('instant rates need a KafkaJS Kafka client')),
      ).toHaveLength(1);
    }
    expect(byTimestamp(cluster)).toEqual([]);
  });
});
