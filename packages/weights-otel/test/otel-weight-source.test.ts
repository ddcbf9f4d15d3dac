import { ConfigError, type PartitionWeight, type TopicPartition, type WeightSource } from '@load-aware/assignor';
import { createBlendWeightSource } from '@load-aware/busy-time';
import { errorThrownBy, recordingLogger, rejectionOf } from '@load-aware/test-support';
import {
  createOtelWeightSource,
  createSourceWithClock,
  OtelCollectFailedError,
  OtelErrorCodes,
  OtelReaderNotRegisteredError,
  type OtelWeightSource,
  type OtelWeightSourceOptions,
} from '@load-aware/weights-otel/internal';
import type { Histogram } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

// A real MeterProvider and a real histogram, recorded the way @opentelemetry/instrumentation-kafkajs
// records each handler call; only the clock the rates divide by is ours.
const attributes = (topic: string, partition: number, extra: Record<string, string> = {}) => ({
  'messaging.system': 'kafka',
  'messaging.operation.name': 'process',
  'messaging.destination.name': topic,
  'messaging.destination.partition.id': String(partition),
  ...extra,
});

const partitions = (count: number, topic = 'orders'): TopicPartition[] =>
  Array.from({ length: count }, (_, partition) => ({ topic, partition }));

const byPartition = (weights: ReadonlyArray<PartitionWeight>): Record<number, number> =>
  Object.fromEntries(weights.map((w) => [w.partition, w.weight]));

/** Lets the reader's first collection (queued with setImmediate when the provider binds it) run. */
const firstCollection = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Rig {
  readonly source: OtelWeightSource;
  readonly provider: MeterProvider;
  readonly histogram: Histogram;
  readonly clock: { ms: number };
  readonly logger: ReturnType<typeof recordingLogger>;
}

const rigs: Rig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.provider.shutdown().catch(() => undefined)));
});

// A background interval far beyond any test's run: collections happen when a test asks.
async function rig(options: OtelWeightSourceOptions = {}, unit?: string): Promise<Rig> {
  const clock = { ms: 0 };
  const logger = recordingLogger();
  const source = createSourceWithClock(
    { windowMs: 600_000, sampleIntervalMs: 60_000, logger, ...options },
    () => clock.ms,
  );
  const provider = new MeterProvider({ readers: [source.reader] });
  const histogram = provider
    .getMeter('@opentelemetry/instrumentation-kafkajs')
    .createHistogram('messaging.process.duration', unit === undefined ? {} : { unit });
  const r = { source, provider, histogram, clock, logger };
  rigs.push(r);
  await firstCollection();
  return r;
}

describe('createOtelWeightSource', () => {
  it('weighs each partition by the seconds its handler calls took per second of the window', async () => {
    const { source, histogram, clock } = await rig();
    // 120 s: partition 0 took 30 calls × 0.4 s = 12 s, partition 1 four calls × 0.3 s = 1.2 s.
    for (let i = 0; i < 30; i++) histogram.record(0.4, attributes('orders', 0));
    for (let i = 0; i < 4; i++) histogram.record(0.3, attributes('orders', 1));
    clock.ms = 120_000;
    const weights = byPartition(await source.getWeights(partitions(3)));
    expect(weights[0]).toBeCloseTo(0.1, 12);
    expect(weights[1]).toBeCloseTo(0.01, 12);
    // Partition 2 had no handler call in this process: unknown, so left out (the assignor, or a
    // blend's fallback, weighs it), never reported as free.
    expect(2 in weights).toBe(false);
  });

  it('adds the series of one partition up: failed calls spent the time too', async () => {
    const { source, histogram, clock } = await rig();
    histogram.record(2, attributes('orders', 0));
    histogram.record(1, attributes('orders', 0, { 'error.type': 'Error' }));
    clock.ms = 60_000;
    expect(byPartition(await source.getWeights(partitions(1)))).toEqual({ 0: 0.05 });
  });

  it('answers only for the topics asked about, and only data points matching `match`', async () => {
    const { source, histogram, clock } = await rig({ match: { 'messaging.system': 'kafka' } });
    histogram.record(6, attributes('orders', 0));
    histogram.record(6, attributes('payments', 0));
    histogram.record(60, { ...attributes('orders', 0), 'messaging.system': 'rabbitmq' });
    clock.ms = 60_000;
    expect(await source.getWeights([{ topic: 'orders', partition: 0 }])).toEqual([
      { topic: 'orders', partition: 0, weight: 0.1 },
    ]);
  });

  it('reads a histogram recorded in milliseconds as seconds', async () => {
    const { source, histogram, clock } = await rig({}, 'ms');
    histogram.record(3000, attributes('orders', 0));
    clock.ms = 60_000;
    expect(byPartition(await source.getWeights(partitions(1)))[0]).toBeCloseTo(0.05, 12);
  });

  it('skips a histogram in another unit with one WARN', async () => {
    const { source, histogram, clock, logger } = await rig({}, 'By');
    histogram.record(3000, attributes('orders', 0));
    clock.ms = 60_000;
    expect(await source.getWeights(partitions(1))).toEqual([]);
    await source.getWeights(partitions(1));
    expect(logger.messages('warn')).toEqual([
      'messaging.process.duration has unit "By", not s or ms; its data points are skipped',
    ]);
  });

  it('skips data points without a usable topic or partition, with one WARN', async () => {
    const { source, histogram, clock, logger } = await rig();
    histogram.record(1, { 'messaging.destination.name': 'orders', 'messaging.destination.partition.id': '-1' });
    histogram.record(1, { 'messaging.destination.partition.id': '0' });
    histogram.record(6, attributes('orders', 0));
    clock.ms = 60_000;
    expect(byPartition(await source.getWeights(partitions(1)))).toEqual({ 0: 0.1 });
    expect(logger.messages('warn')).toHaveLength(1);
    expect(logger.records[0]?.fields).toMatchObject({ points: 2 });
  });

  it('answers nothing until the history spans one sample interval', async () => {
    const { source, histogram, clock } = await rig();
    histogram.record(1, attributes('orders', 0));
    clock.ms = 59_999;
    expect(await source.getWeights(partitions(1))).toEqual([]);
    clock.ms = 60_000;
    expect(await source.getWeights(partitions(1))).toHaveLength(1);
  });

  it('warns once when a whole window passes without the histogram: the instrumentation is not recording into it', async () => {
    const clock = { ms: 0 };
    const logger = recordingLogger();
    const source = createSourceWithClock({ windowMs: 60_000, sampleIntervalMs: 60_000, logger }, () => clock.ms);
    const provider = new MeterProvider({ readers: [source.reader] });
    rigs.push({ source, provider, clock, logger, histogram: undefined as never });
    await firstCollection();
    clock.ms = 60_000;
    expect(await source.getWeights(partitions(1))).toEqual([]);
    clock.ms = 120_000;
    await source.getWeights(partitions(1));
    expect(logger.messages('warn')).toHaveLength(1);
    expect(logger.messages('warn')[0]).toMatch(/^no messaging.process.duration histogram in the MeterProvider/);
  });

  it('rejects with a clear error while its reader is in no MeterProvider', async () => {
    const source = createOtelWeightSource();
    const err = await rejectionOf(source.getWeights(partitions(1)), OtelReaderNotRegisteredError);
    expect(err.code).toBe(OtelErrorCodes.readerNotRegistered);
    expect(err.message).toContain('new MeterProvider({ readers: [...] })');
  });

  it('rejects once its provider shut down, logging the failure as a WARN once and the recovery never', async () => {
    const { source, provider, logger } = await rig();
    await provider.shutdown();
    const err = await rejectionOf(source.getWeights(partitions(1)), OtelCollectFailedError);
    expect(err.code).toBe('LOAD_AWARE_OTEL_COLLECT_FAILED');
    expect(err.cause).toBeInstanceOf(Error);
    await rejectionOf(source.getWeights(partitions(1)), OtelCollectFailedError);
    expect(logger.messages('warn')).toHaveLength(1);
    expect(logger.messages('warn')[0]).toMatch(/^OTel collection failed, no weights until it recovers: /);
    expect(logger.records[0]?.fields['code']).toBe('LOAD_AWARE_OTEL_COLLECT_FAILED');
  });

  it.each([
    [{ windowMs: 500 }, 'windowMs'],
    [{ sampleIntervalMs: 120_000, windowMs: 60_000 }, 'sampleIntervalMs'],
    [{ sampleIntervalMs: 100, windowMs: 3_600_000 }, 'sampleIntervalMs'],
    [{ topicAttribute: 'a', partitionAttribute: 'a' }, 'partitionAttribute'],
    [{ metricName: '' }, 'metricName'],
    [{ match: { 'messaging.system': null } }, 'match'],
    [{ reader: {} }, 'reader'],
  ])('refuses %j with a ConfigError naming %s', (options, key) => {
    const err = errorThrownBy(() => createOtelWeightSource(options as never), ConfigError);
    expect(err.message).toContain(key);
  });
});

describe('as the primary of a blend (@load-aware/busy-time)', () => {
  // Offset rates, messages per second: every partition has traffic.
  const fallback: WeightSource = {
    getWeights: (ps) => Promise.resolve(ps.map((p) => ({ ...p, weight: 10 * (p.partition + 1) }))),
  };

  it('fills the partitions this process did not handle from the fallback at the median cost per message', async () => {
    const { source, histogram, clock } = await rig();
    // Partitions 0-2 cost 0.01 s per message at 10, 20, 30 messages/s: 0.1, 0.2, 0.3 busy s/s.
    for (const p of [0, 1, 2]) histogram.record(6 * (p + 1), attributes('orders', p));
    clock.ms = 60_000;
    const blend = createBlendWeightSource({ primary: source, fallback });
    const weights = byPartition(await blend.getWeights(partitions(5)));
    expect(weights[0]).toBeCloseTo(0.1, 12);
    expect(weights[2]).toBeCloseTo(0.3, 12);
    // Handled elsewhere: 40 and 50 messages/s at 0.01 s each.
    expect(weights[3]).toBeCloseTo(0.4, 12);
    expect(weights[4]).toBeCloseTo(0.5, 12);
  });

  it('answers from the fallback with a WARN when the reader fails', async () => {
    const { source, provider } = await rig();
    await provider.shutdown();
    const logger = recordingLogger();
    const blend = createBlendWeightSource({ primary: source, fallback, logger });
    expect(byPartition(await blend.getWeights(partitions(2)))).toEqual({ 0: 10, 1: 20 });
    expect(logger.messages('warn')[0]).toMatch(
      /^primary weight source failed, using the fallback alone: .*collecting messaging.process.duration failed: MetricReader is shutdown/,
    );
    // The assignor's fetch wraps the source's rejection; the OTel error is its cause.
    const err = logger.records[0]?.fields['err'] as Error;
    expect(err.cause).toBeInstanceOf(OtelCollectFailedError);
  });
});
