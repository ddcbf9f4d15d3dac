import {
  isLogger,
  isRegistry,
  isWeightSource,
  noopLogger,
  validateOptions,
  type Logger,
  type WeightSource,
} from '@load-aware/assignor/internal';
import type { Registry } from 'prom-client';
import { z } from 'zod';

/**
 * What a handler's time is measured with. `wall`: elapsed time between the handler's start and
 * the settling of its promise, awaited I/O included. `cpu`: the process's user + system CPU time
 * over the same span (docs/weight-sources.md says why this over-counts with concurrent partitions).
 */
export type BusyClock = 'wall' | 'cpu';

const recorderSchema = z.strictObject({
  registry: z.custom<Registry>(isRegistry, { message: 'expected a prom-client Registry' }),
  clock: z.enum(['wall', 'cpu']).default('wall'),
});

/** Options of {@link createBusyTimeRecorder}. */
export interface BusyTimeRecorderOptions {
  /**
   * The prom-client registry the counters are registered on (created there, or reused when
   * another recorder of the process registered them). Required: the counters are the point.
   */
  registry: Registry;
  /**
   * `wall` (default) counts elapsed time, awaited I/O included: what a partition costs its
   * consumer's concurrency slot, exact per partition however many run at once. `cpu` counts the
   * process's CPU time during the handler: right for CPU-bound handlers with
   * `partitionsConsumedConcurrently: 1`, over-counted in proportion to the handlers that overlap
   * otherwise. The two go to different counters, so they never mix.
   */
  clock?: BusyClock;
}

/** Options of {@link createBusyTimeRecorder} after validation and defaults; frozen. */
export interface ResolvedBusyTimeRecorderOptions {
  readonly registry: Registry;
  readonly clock: BusyClock;
}

/** Validates recorder options once; throws a `ConfigError` naming every bad key. */
export function resolveRecorderOptions(options: unknown): ResolvedBusyTimeRecorderOptions {
  const o = validateOptions(recorderSchema, options, 'BusyTimeRecorder');
  return Object.freeze({ registry: o.registry, clock: o.clock });
}

const weightSource = z.custom<WeightSource>(isWeightSource, {
  message: 'expected a WeightSource: an object with getWeights(partitions)',
});

const blendSchema = z.strictObject({
  primary: weightSource,
  fallback: weightSource,
  timeoutMs: z.number().int().positive().max(600_000).default(4_000),
  minOverlap: z.number().int().min(1).max(1_000_000).default(3),
  logger: z
    .custom<Logger>(isLogger, { message: 'expected a pino-compatible logger (debug/info/warn/error)' })
    .optional(),
});

/** Options of {@link createBlendWeightSource}. */
export interface BlendWeightSourceOptions {
  /** The source whose weights are used wherever it knows a partition, e.g. busy time from Prometheus. */
  primary: WeightSource;
  /**
   * The source that fills the gaps, e.g. offset rates. Its weights are converted into the
   * primary's units by the median ratio primary ÷ fallback over the partitions both know.
   */
  fallback: WeightSource;
  /**
   * How long each source may take, in ms; one that takes longer counts as failed and the other
   * answers alone. Default 4000, under the assigner's default `weightsTimeoutMs` (5000), so a slow
   * primary still leaves the fallback's answer in time.
   */
  timeoutMs?: number;
  /**
   * How many partitions both sources must weigh above zero before fallback weights are converted
   * into the primary's units. With fewer, one odd partition would set the scale of all the rest,
   * so the blend answers with the fallback's weights alone (one unit throughout). Default 3.
   */
  minOverlap?: number;
  /** Any pino-compatible logger. Default: silent. */
  logger?: Logger;
}

/** Options of {@link createBlendWeightSource} after validation and defaults; frozen. */
export interface ResolvedBlendWeightSourceOptions {
  readonly primary: WeightSource;
  readonly fallback: WeightSource;
  readonly timeoutMs: number;
  readonly minOverlap: number;
  readonly logger: Logger;
}

/** Validates blend options once; throws a `ConfigError` naming every bad key. */
export function resolveBlendOptions(options: unknown): ResolvedBlendWeightSourceOptions {
  const o = validateOptions(blendSchema, options, 'BlendWeightSource');
  return Object.freeze({
    primary: o.primary,
    fallback: o.fallback,
    timeoutMs: o.timeoutMs,
    minOverlap: o.minOverlap,
    logger: o.logger ?? noopLogger,
  });
}
