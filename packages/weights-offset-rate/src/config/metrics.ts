import { getOrCreateMetric } from '@load-aware/assignor/internal';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { InstantOutcome } from '../rates/instant-rate.js';

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
  /** `partitions` partitions' time-index lookups ended with this outcome (one call per lookup). */
  instantOutcome(kind: InstantOutcome['kind'], partitions: number): void;
  /** One time-index lookup finished (successfully or not) after `seconds`. */
  instantDuration(seconds: number): void;
  /** `getWeights()` answered before its time-index lookup finished. */
  instantTimeout(): void;
  /** A partition's first sampled weight differed from its instant one by this fraction (0–1). */
  instantDivergence(ratio: number): void;
}

const noopMetrics: OffsetRateMetrics = {
  sampleError: () => undefined,
  trackedChanged: () => undefined,
  sampleDuration: () => undefined,
  instantOutcome: () => undefined,
  instantDuration: () => undefined,
  instantTimeout: () => undefined,
  instantDivergence: () => undefined,
};

/**
 * Creates the source's metrics on `registry`, or reuses them when another source of the same
 * process registered them already. The tracked gauge moves by increments, so several sources on
 * one registry add up instead of overwriting each other. Labels: `scope` (two values) and
 * `outcome` (six); topics and partitions would make the series unbounded.
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
  const outcomes = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_instant_lookups_total',
    (name) =>
      new Counter({
        name,
        help: 'Partitions looked up in the time index for lack of a sampled weight, by outcome: measured, idle (no record in the window: 0), or no instant rate (future_timestamps, too_young, no_time_index, failed).',
        labelNames: ['outcome'],
        registers: [registry],
      }),
  );
  const lookupDuration = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_instant_lookup_duration_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Duration of one time-index lookup (metadata and every ListOffsets), failed ones included.',
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  );
  const timeouts = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_instant_timeouts_total',
    (name) =>
      new Counter({
        name,
        help: 'getWeights() calls that answered before their time-index lookup finished (instantTimeoutMs).',
        registers: [registry],
      }),
  );
  const divergence = getOrCreateMetric(
    registry,
    'load_aware_offset_rate_instant_divergence_ratio',
    (name) =>
      new Histogram({
        name,
        help: "|sampled - instant| / max(sampled, instant) when a partition's first sampled weight replaces its instant one.",
        buckets: [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1],
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
    instantOutcome: (outcome, partitions) => {
      outcomes.inc({ outcome }, partitions);
    },
    instantDuration: (seconds) => {
      lookupDuration.observe(seconds);
    },
    instantTimeout: () => {
      timeouts.inc();
    },
    instantDivergence: (ratio) => {
      divergence.observe(ratio);
    },
  };
}
