import { getOrCreateMetric } from '@load-aware/assignor';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** `scope` of a sample error: every partition of the sample failed, or only some did. */
export type SampleErrorScope = 'all' | 'some';

/** What the sampler records. */
export interface OffsetRateMetrics {
  /** One sample in which `scope` partitions failed. */
  sampleError(scope: SampleErrorScope): void;
  /** Partitions started (`+n`) or stopped (`-n`) being tracked. */
  trackedChanged(delta: number): void;
  /** One sample finished (successfully or not) after `seconds`. */
  sampleDuration(seconds: number): void;
}

const noopMetrics: OffsetRateMetrics = {
  sampleError: () => undefined,
  trackedChanged: () => undefined,
  sampleDuration: () => undefined,
};

/**
 * Creates the source's metrics on `registry`, or reuses them when another source of the same
 * process registered them already. The tracked gauge moves by increments, so several sources on
 * one registry add up instead of overwriting each other. Labels: `scope` only (two values);
 * topics and partitions would make the series unbounded.
 */
export function createOffsetRateMetrics(registry: Registry | undefined): OffsetRateMetrics {
  if (registry === undefined) return noopMetrics;
  const errors = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_sample_errors_total',
    (name) =>
      new Counter({
        name,
        help: 'Samples of end offsets in which partitions failed, by scope: all (nothing read: connection, metadata, timeout) or some.',
        labelNames: ['scope'],
        registers: [registry],
      }),
  );
  const tracked = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_tracked_partitions',
    (name) =>
      new Gauge({
        name,
        help: 'Partitions whose end offsets are being sampled.',
        registers: [registry],
      }),
  );
  const duration = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_sample_duration_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Duration of one sample of every tracked partition (metadata and ListOffsets), failed ones included.',
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [registry],
      }),
  );
  return {
    sampleError: (scope) => {
      errors.inc({ scope });
    },
    trackedChanged: (delta) => {
      if (delta > 0) tracked.inc(delta);
      else if (delta < 0) tracked.dec(-delta);
    },
    sampleDuration: (seconds) => {
      duration.observe(seconds);
    },
  };
}
