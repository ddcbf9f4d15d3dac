import { Registry } from 'prom-client';
import type { PartitionWeight, TopicPartition } from '@load-aware/assignor';
import {
  createOffsetRateWeightSource,
  OffsetRateErrorCodes,
  type OffsetRateWeightSourceOptions,
} from '@load-aware/weights-offset-rate';
import { fakeReader, growing, stoppedAfterEach } from './fakes';
import { FakeClock, flush, recordingLogger } from '@load-aware/test-support';
import { partitionLabel as keyOf } from '@load-aware/assignor/internal';
import { histogramCount, metricValue } from './metrics-helpers';

const SAMPLE_MS = 15_000;
const p0: TopicPartition = { topic: 'orders', partition: 0 };
const p1: TopicPartition = { topic: 'orders', partition: 1 };
const p2: TopicPartition = { topic: 'audit', partition: 0 };

const sources = stoppedAfterEach();

function setup(options: Partial<OffsetRateWeightSourceOptions> = {}) {
  const clock = new FakeClock();
  const reader = fakeReader(clock);
  const registry = new Registry();
  const logger = recordingLogger();
  const source = createOffsetRateWeightSource({ kafka: reader, clock, registry, logger, ...options });
  sources.push(source);
  return { clock, reader, registry, logger, source };
}

function asMap(weights: ReadonlyArray<PartitionWeight>): Record<string, number> {
  return Object.fromEntries(weights.map((w) => [keyOf(w), w.weight]));
}

describe('createOffsetRateWeightSource', () => {
  it('has no weights for the first assignment after start, then reports offset growth per second', async () => {
    const { clock, reader, source } = setup();
    reader.offsets.set('orders:0', growing(100));
    reader.offsets.set('orders:1', growing(25, 1_000_000n));
    source.start();

    expect(await source.getWeights([p0, p1])).toEqual([]);
    await clock.advance(0); // the sample new partitions trigger at once
    expect(await source.getWeights([p0, p1])).toEqual([]); // one sample is not a rate
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0, p1]))).toEqual({ 'orders:0': 100, 'orders:1': 25 });
  });

  it('measures over the oldest sample within rateIntervalMs of the newest', async () => {
    const { clock, reader, source } = setup({ rateIntervalMs: 60_000 });
    // 100/s for the first minute, then silence.
    reader.offsets.set('orders:0', (now) => BigInt(Math.floor((Math.min(now, 60_000) * 100) / 1000)));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(60_000);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);
    await clock.advance(30_000); // window 30 s..90 s: 3000 events in 60 s
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(50);
    await clock.advance(30_000);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(0);
  });

  it('defaults the sample interval to a quarter of the rate interval', async () => {
    const { clock, reader, source } = setup({ rateIntervalMs: 20_000 });
    reader.offsets.set('orders:0', 0n);
    source.start();
    await source.getWeights([p0]);
    await clock.advance(0);
    await clock.advance(20_000);
    expect(reader.calls).toHaveLength(5);
  });

  it('gives no weight when an end offset goes backwards, then resumes from the new offsets', async () => {
    const { clock, reader, source, logger } = setup();
    reader.offsets.set('orders:0', growing(100, 5000n));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(2 * SAMPLE_MS);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);

    const recreatedAt = clock.now();
    reader.offsets.set('orders:0', (now) => BigInt(Math.floor(((now - recreatedAt) * 10) / 1000)));
    await clock.advance(SAMPLE_MS);
    expect(await source.getWeights([p0])).toEqual([]);
    expect(logger.messages('info').some((m) => m.includes('went backwards'))).toBe(true);
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(10);
  });

  it('stops tracking a partition that fails 3 samples in a row while others succeed, until asked for again', async () => {
    const { clock, reader, source, registry } = setup();
    reader.offsets.set('orders:0', growing(100));
    reader.offsets.set('orders:1', new Error('UNKNOWN_TOPIC_OR_PARTITION'));
    source.start();
    await source.getWeights([p0, p1]);
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(2);
    await clock.advance(0);
    await clock.advance(2 * SAMPLE_MS);
    expect(reader.calls.at(-1)).toEqual(['orders:0', 'orders:1']);
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(1);
    expect(await metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'some' })).toBe(3);

    await clock.advance(SAMPLE_MS);
    expect(reader.calls.at(-1)).toEqual(['orders:0']);

    reader.offsets.set('orders:1', growing(7));
    await source.getWeights([p0, p1]); // asked for again: tracked afresh
    await clock.advance(0);
    expect(reader.calls.at(-1)).toEqual(['orders:0', 'orders:1']);
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0, p1]))).toEqual({ 'orders:0': 100, 'orders:1': 7 });
  });

  it('keeps tracking partitions through an outage where every partition fails, counting each failed sample', async () => {
    const { clock, reader, source, registry, logger } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    reader.failAll = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
      name: 'KafkaJSConnectionError',
    });
    await clock.advance(3 * SAMPLE_MS);
    expect(await metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })).toBe(3);
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(1);
    // One WARN when the outage starts, not one per sample.
    expect(logger.messages('warn').filter((m) => m.includes('no end offset could be read'))).toHaveLength(1);
    const warn = logger.records.find((r) => r.level === 'warn' && r.message.includes('no end offset'));
    expect(warn?.fields['code']).toBe(OffsetRateErrorCodes.sampleFailed);

    reader.failAll = undefined;
    await clock.advance(SAMPLE_MS);
    expect(logger.messages('info')).toContain('sampling recovered');
    // The window (60 s + slack) still reaches back to the last sample before the outage.
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);
  });

  it('lets weights age out once no sample succeeded for a rate interval', async () => {
    const { clock, reader, source } = setup({ rateIntervalMs: 60_000 });
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    reader.failAll = new Error('down');
    await clock.advance(45_000);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100); // last sample 45 s ago
    await clock.advance(SAMPLE_MS + 1);
    expect(await source.getWeights([p0])).toEqual([]);
  });

  it('answers unmeasured partitions with the median of the measured ones when asked to', async () => {
    const { clock, reader, source } = setup({ unmeasuredWeight: 'median' });
    reader.offsets.set('orders:0', growing(100));
    reader.offsets.set('orders:1', growing(10));
    reader.offsets.set('audit:0', growing(40));
    source.start();
    expect(await source.getWeights([p0, p1, p2])).toEqual([]); // nothing measured: nothing to fill
    await clock.advance(SAMPLE_MS);
    const fresh = { topic: 'audit', partition: 1 };
    reader.offsets.set('audit:1', growing(5000));
    expect(asMap(await source.getWeights([p0, p1, p2, fresh]))).toEqual({
      'orders:0': 100,
      'orders:1': 10,
      'audit:0': 40,
      'audit:1': 40,
    });
  });

  it('leaves unmeasured partitions out by default, so the assignor defaults and counts them', async () => {
    const { clock, reader, source } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0, p1]))).toEqual({ 'orders:0': 100 });
  });

  it('degrades per partition: malformed entries are skipped, duplicates answered once, the rest weighed', async () => {
    const { clock, reader, source } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    const input = [{ topic: 7 }, null, { topic: 'orders', partition: -1 }, p0, p0] as unknown as TopicPartition[];
    expect(await source.getWeights(input)).toEqual([{ topic: 'orders', partition: 0, weight: 100 }]);
    expect(await source.getWeights(null as unknown as TopicPartition[])).toEqual([]);
    expect(reader.calls.at(-1)).toEqual(['orders:0']);
  });

  it('counts a partition missing from the answer or with an unusable offset as failed', async () => {
    const { clock, reader, source, logger } = setup();
    reader.offsets.set('orders:0', growing(100));
    // orders:1 has no entry at all; audit:0 answers garbage.
    source.start();
    (reader.offsets as Map<string, unknown>).set('audit:0', -5n);
    await source.getWeights([p0, p1, p2]);
    await clock.advance(0);
    const warn = logger.records.find((r) => r.level === 'warn' && r.message.includes('could not be read'));
    expect(warn?.fields['failed']).toBe(2);
    expect(warn?.fields['examples']).toEqual(['orders:1', 'audit:0']);
    expect(warn?.fields['code']).toBe(OffsetRateErrorCodes.noAnswer);
  });

  it('never overlaps samples: a read still running past its timeout makes the next sample skip', async () => {
    const { clock, reader, source, registry } = setup({ sampleTimeoutMs: 5000 });
    reader.offsets.set('orders:0', growing(100));
    reader.hold = true;
    source.start();
    await source.getWeights([p0]);
    await clock.advance(6000); // timeout (5 s) + 1 s grace
    expect(await metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })).toBe(1);
    await clock.advance(SAMPLE_MS); // the read is still running: skipped
    expect(reader.calls).toHaveLength(1);
    reader.hold = false;
    reader.release();
    await clock.advance(SAMPLE_MS);
    expect(reader.calls).toHaveLength(2);
  });

  it('never throws from the background: a reader throwing synchronously or answering garbage is a failed sample', async () => {
    const { clock, source, registry, logger } = setup({
      kafka: {
        read: () => {
          throw new TypeError('boom');
        },
      },
    });
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    expect(await metricValue(registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })).toBe(2);
    expect(logger.messages('error')).toEqual([]);

    const other = setup({ kafka: { read: () => Promise.resolve('nope' as never) } });
    other.source.start();
    await other.source.getWeights([p0]);
    await other.clock.advance(0);
    expect(await metricValue(other.registry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })).toBe(1);
  });

  it('samples at once when getWeights brings new partitions, then keeps the interval', async () => {
    const { clock, reader, source } = setup();
    reader.offsets.set('orders:0', 0n);
    reader.offsets.set('orders:1', 0n);
    source.start();
    await clock.advance(0);
    expect(reader.calls).toEqual([]); // nothing tracked yet: nothing read
    await source.getWeights([p0]);
    await clock.advance(0);
    expect(reader.calls).toEqual([['orders:0']]);
    await clock.advance(1000);
    await source.getWeights([p0, p1]);
    await clock.advance(0);
    expect(reader.calls).toEqual([['orders:0'], ['orders:0', 'orders:1']]);
    await source.getWeights([p0, p1]); // nothing new: no extra sample
    await clock.advance(SAMPLE_MS - 1);
    expect(reader.calls).toHaveLength(2);
    await clock.advance(1);
    expect(reader.calls).toHaveLength(3);
  });

  it('tracks partitions passed to track() before any assignment asks for them', async () => {
    const { clock, reader, source } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    source.track([p0]);
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);
  });

  it('warns once when asked for weights before start(), and samples those partitions once started', async () => {
    const { clock, reader, source, logger } = setup();
    reader.offsets.set('orders:0', growing(100));
    await source.getWeights([p0]);
    await source.getWeights([p1]);
    await clock.advance(SAMPLE_MS);
    expect(reader.calls).toEqual([]);
    expect(logger.messages('warn').filter((m) => m.includes('not started'))).toHaveLength(1);
    source.start();
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);
  });

  it('smooths successive rates when a half-life is set, starting from the first rate rather than 0', async () => {
    const { clock, reader, source } = setup({ rateIntervalMs: 60_000, smoothingHalfLifeMs: 30_000 });
    let perSecond = 100;
    let offset = 0n;
    let last = 0;
    reader.offsets.set('orders:0', (now) => {
      offset += BigInt(Math.round(((now - last) * perSecond) / 1000));
      last = now;
      return offset;
    });
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);
    perSecond = 0;
    await clock.advance(SAMPLE_MS);
    // Window rate: 1500 events over 30 s = 50/s; smoothed: 100 + (1 - 2^-0.5) * (50 - 100).
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBeCloseTo(100 - (1 - Math.SQRT1_2) * 50, 9);
  });

  it('records sample durations and keeps two sources on one registry from clashing', async () => {
    const registry = new Registry();
    const a = setup({ registry });
    const b = setup({ registry });
    a.reader.offsets.set('orders:0', 0n);
    b.reader.offsets.set('orders:0', 0n);
    b.reader.offsets.set('orders:1', 0n);
    a.source.start();
    b.source.start();
    await a.source.getWeights([p0]);
    await b.source.getWeights([p0, p1]);
    await a.clock.advance(0);
    await b.clock.advance(0);
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(3);
    expect(await histogramCount(registry, 'load_aware_offset_rate_sample_duration_seconds')).toBe(2);
    await a.source.stop();
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(2);
  });

  it('leaves no timer behind after stop(), discards a sample in flight and forgets tracked partitions', async () => {
    const { clock, reader, source, registry } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    reader.hold = true;
    await clock.advance(SAMPLE_MS);
    const stopped = source.stop();
    expect(clock.pendingTimers).toBe(1); // the sample's own timeout, cleared once it settles
    reader.release();
    await stopped;
    expect(clock.pendingTimers).toBe(0);
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(0);
    await clock.advance(10 * SAMPLE_MS);
    expect(reader.calls).toHaveLength(3);
    await source.stop(); // idempotent

    // Restartable: partitions are tracked afresh, history starts over.
    reader.hold = false;
    source.start();
    expect(await source.getWeights([p0])).toEqual([]);
    await clock.advance(SAMPLE_MS);
    expect(asMap(await source.getWeights([p0]))['orders:0']).toBe(100);
  });

  it('with the real clock, stop() leaves no active timer in the process', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    let reads = 0;
    const source = createOffsetRateWeightSource({
      kafka: {
        read: (partitions) => {
          reads++;
          return Promise.resolve(partitions.map((p) => ({ ...p, offset: 1n })));
        },
      },
      rateIntervalMs: 4000,
    });
    source.start();
    await source.getWeights([p0]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads).toBe(1);
    await source.stop();
    // Polled with setImmediate (a timer would count itself): on a loaded machine a timer of the
    // test runner's may still be settling at the first look; a leaked sampler timer never goes.
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const deadline = Date.now() + 500;
    do await flush();
    while (timers() > before && Date.now() < deadline);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('writes its lines under component "offset-rate", without a prefix in the message', async () => {
    const { clock, reader, source, logger } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    expect(logger.records.length).toBeGreaterThan(0);
    for (const r of logger.records) {
      expect(r.fields['component']).toBe('offset-rate');
      expect(r.message.startsWith('offset-rate:')).toBe(false);
    }
  });

  it('keeps a load-aware error a custom reader throws, even from another copy of the assignor', async () => {
    const { clock, reader, source, logger } = setup();
    reader.offsets.set('orders:0', growing(100));
    source.start();
    await source.getWeights([p0]);
    await clock.advance(SAMPLE_MS);
    // What another installed copy's error looks like from here: the brand, a code, another class.
    reader.failAll = Object.assign(new Error('end offsets were not read within sampleTimeoutMs=1'), {
      [Symbol.for('load-aware.error')]: true,
      code: OffsetRateErrorCodes.sampleTimeout,
    });
    await clock.advance(SAMPLE_MS);
    const warn = logger.records.find((r) => r.level === 'warn' && r.message.includes('no end offset'));
    expect(warn?.fields['code']).toBe(OffsetRateErrorCodes.sampleTimeout);
    expect(warn?.fields['err']).toBe(reader.failAll);
  });
});
