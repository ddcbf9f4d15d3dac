import { ConfigError, ErrorCodes } from '@load-aware/assignor';
import {
  defaultSampleIntervalMs,
  defaultSampleTimeoutMs,
  resolveOptions,
  type OffsetRateWeightSourceOptions,
} from '@load-aware/weights-offset-rate/internal';
import { FakeCluster, fakeAdmin, fakeKafka } from '../fake-kafka';
import { errorThrownBy } from '@load-aware/test-support';

const reader = { read: () => Promise.resolve([]) };

function errorOf(options: unknown): ConfigError {
  return errorThrownBy(() => resolveOptions(options), ConfigError);
}

describe('offset-rate options', () => {
  it('defaults to a 60 s rate interval sampled every 15 s, omitting unmeasured partitions, no smoothing, 500 ms for instant rates', () => {
    const o = resolveOptions({ kafka: reader });
    expect(o).toMatchObject({
      rateIntervalMs: 60_000,
      sampleIntervalMs: 15_000,
      sampleTimeoutMs: 10_000,
      unmeasuredWeight: 'omit',
      smoothingHalfLifeMs: 0,
      instantTimeoutMs: 500,
      untrackAfterMs: 600_000,
      registry: undefined,
    });
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('defaults untrackAfterMs to max(10 × rateIntervalMs, 10 min)', () => {
    expect(resolveOptions({ kafka: reader, rateIntervalMs: 2000 }).untrackAfterMs).toBe(600_000);
    expect(resolveOptions({ kafka: reader, rateIntervalMs: 3_600_000 }).untrackAfterMs).toBe(36_000_000);
    expect(resolveOptions({ kafka: reader, untrackAfterMs: 60_000 }).untrackAfterMs).toBe(60_000);
  });

  it('clamps the default sample interval to 1–30 s', () => {
    expect(defaultSampleIntervalMs(2000)).toBe(1000);
    expect(defaultSampleIntervalMs(5000)).toBe(1250);
    expect(defaultSampleIntervalMs(3_600_000)).toBe(30_000);
    expect(resolveOptions({ kafka: reader, rateIntervalMs: 3_600_000 }).sampleIntervalMs).toBe(30_000);
    expect(resolveOptions({ kafka: reader, rateIntervalMs: 2000 }).sampleIntervalMs).toBe(1000);
  });

  it('defaults the sample timeout to the sample interval clamped to 5–10 s', () => {
    expect(defaultSampleTimeoutMs(1000)).toBe(5000);
    expect(defaultSampleTimeoutMs(7000)).toBe(7000);
    expect(defaultSampleTimeoutMs(30_000)).toBe(10_000);
  });

  it('tells a Kafka, an admin and a reader apart', () => {
    const cluster = new FakeCluster();
    expect(resolveOptions({ kafka: fakeKafka(cluster) }).client.kind).toBe('kafka');
    expect(resolveOptions({ kafka: fakeAdmin(cluster) }).client.kind).toBe('admin');
    expect(resolveOptions({ kafka: reader }).client.kind).toBe('reader');
  });

  it.each<[string, unknown, string]>([
    ['a missing client', {}, 'kafka'],
    ['something that is no client', { kafka: { brokers: ['x'] } }, 'expected a KafkaJS Kafka instance'],
    ['a typo', { kafka: reader, rateIntervalMS: 1000 }, 'rateIntervalMS'],
    ['a sample interval out of 1–30 s', { kafka: reader, sampleIntervalMs: 500 }, 'sampleIntervalMs'],
    [
      'a sample interval above the rate interval',
      { kafka: reader, rateIntervalMs: 5000, sampleIntervalMs: 6000 },
      'must not exceed rateIntervalMs',
    ],
    ['an unknown unmeasured policy', { kafka: reader, unmeasuredWeight: 'one' }, 'unmeasuredWeight'],
    ['a negative half-life', { kafka: reader, smoothingHalfLifeMs: -1 }, 'smoothingHalfLifeMs'],
    ['an instant timeout above 30 s', { kafka: reader, instantTimeoutMs: 60_000 }, 'instantTimeoutMs'],
    ['a logger without methods', { kafka: reader, logger: {} }, 'pino-compatible logger'],
    ['a registry that is none', { kafka: reader, registry: {} }, 'prom-client Registry'],
  ])('rejects %s with a ConfigError naming it', (_, options, fragment) => {
    const err = errorOf(options);
    expect(err.code).toBe(ErrorCodes.config);
    expect(err.message).toContain('Invalid OffsetRateWeightSource options');
    expect(err.message).toContain(fragment);
  });

  it('accepts every documented option', () => {
    const options: OffsetRateWeightSourceOptions = {
      kafka: reader,
      rateIntervalMs: 5000,
      sampleIntervalMs: 1000,
      sampleTimeoutMs: 800,
      unmeasuredWeight: 'median',
      smoothingHalfLifeMs: 30_000,
      instantTimeoutMs: 0,
    };
    expect(resolveOptions(options)).toMatchObject({
      sampleTimeoutMs: 800,
      unmeasuredWeight: 'median',
      instantTimeoutMs: 0,
    });
  });
});
