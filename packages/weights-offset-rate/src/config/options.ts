import { isLogger, isRegistry, noopLogger, validateOptions, type Logger } from '@load-aware/assignor/internal';
import type { Admin, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { isClock, systemClock, type Clock } from '../base/clock.js';
import { isEndOffsetsReader, type EndOffsetsReader } from '../readers/end-offsets-reader.js';
import type { UnmeasuredWeight } from '../rates/weight-answer.js';
import { isPlatformaticAdmin, type PlatformaticAdmin } from '../readers/platformatic-admin-reader.js';

/** Sample intervals are kept within 1–30 s: faster hammers brokers, slower reacts too late. */
export const MIN_SAMPLE_INTERVAL_MS = 1000;
/** Upper end of the sample interval range. */
export const MAX_SAMPLE_INTERVAL_MS = 30_000;

/**
 * Default of `instantTimeoutMs`: a first lookup costs a connection, a metadata request and one
 * round of ListOffsets (tens of ms on a LAN, more with TLS and SASL), and the whole answer must
 * stay well inside the assignor's `weightsTimeoutMs` (5000 by default).
 */
export const DEFAULT_INSTANT_TIMEOUT_MS = 500;

/** Floor of the default `untrackAfterMs`: rebalances minutes apart must not lose history. */
export const MIN_DEFAULT_UNTRACK_AFTER_MS = 600_000;
/** Upper end of `untrackAfterMs` (7 days). */
export const MAX_UNTRACK_AFTER_MS = 7 * 24 * 3_600_000;

/**
 * Where end offsets come from: a KafkaJS `Kafka`, a KafkaJS `Admin`, a @platformatic/kafka
 * `Admin`, or your own reader.
 */
export type OffsetRateClient = Kafka | Admin | PlatformaticAdmin | EndOffsetsReader;

/** The client, told apart once so the rest of the code never guesses. */
export type ResolvedClient =
  | { readonly kind: 'kafka'; readonly kafka: Kafka }
  | { readonly kind: 'admin'; readonly admin: Admin }
  | { readonly kind: 'platformatic-admin'; readonly admin: PlatformaticAdmin }
  | { readonly kind: 'reader'; readonly reader: EndOffsetsReader };

const schema = z
  .strictObject({
    kafka: z.custom<OffsetRateClient>((value) => classify(value) !== undefined, {
      message:
        'expected a KafkaJS Kafka instance (new Kafka(...)), a KafkaJS Admin (kafka.admin()), a @platformatic/kafka Admin or an EndOffsetsReader',
    }),
    rateIntervalMs: z.number().int().min(2000).max(3_600_000).default(60_000),
    sampleIntervalMs: z.number().int().min(MIN_SAMPLE_INTERVAL_MS).max(MAX_SAMPLE_INTERVAL_MS).optional(),
    sampleTimeoutMs: z.number().int().min(100).max(120_000).optional(),
    unmeasuredWeight: z.enum(['omit', 'median']).default('omit'),
    smoothingHalfLifeMs: z.number().int().min(0).max(86_400_000).default(0),
    instantTimeoutMs: z.number().int().min(0).max(30_000).default(DEFAULT_INSTANT_TIMEOUT_MS),
    untrackAfterMs: z.number().int().min(2000).max(MAX_UNTRACK_AFTER_MS).optional(),
    logger: z
      .custom<Logger>(isLogger, { message: 'expected a pino-compatible logger (debug/info/warn/error)' })
      .optional(),
    registry: z.custom<Registry>(isRegistry, { message: 'expected a prom-client Registry' }).optional(),
    clock: z.custom<Clock>(isClock, { message: 'expected a Clock: { now, setTimeout, clearTimeout }' }).optional(),
  })
  .refine((o) => o.sampleIntervalMs === undefined || o.sampleIntervalMs <= o.rateIntervalMs, {
    message: 'must not exceed rateIntervalMs: a rate needs two samples inside its window',
    path: ['sampleIntervalMs'],
  })
  .refine((o) => o.untrackAfterMs === undefined || o.untrackAfterMs >= o.rateIntervalMs, {
    message: 'must be at least rateIntervalMs: a partition asked for less often would never keep a rate',
    path: ['untrackAfterMs'],
  });

/** Options of {@link createOffsetRateWeightSource}. */
export interface OffsetRateWeightSourceOptions {
  /**
   * The client to read end offsets with. Pass your KafkaJS `Kafka` (its brokers, TLS and SASL
   * settings apply): the source then opens its own connections, sends one ListOffsets per leader
   * broker per sample for all topics together, and closes everything in `stop()`. An `Admin`
   * works too (never disconnected by the source) but costs two requests per broker per topic.
   * A @platformatic/kafka `Admin` works as well (one ListOffsets per leader broker, instant rates
   * included; never closed by the source). Any {@link EndOffsetsReader} works too, e.g. to sample
   * through another client.
   */
  kafka: OffsetRateClient;
  /** Weights are offset growth per second over this window (the newest sample and the oldest within it). Default 60000. */
  rateIntervalMs?: number;
  /** How often every tracked partition is sampled. Default: a quarter of `rateIntervalMs`, clamped to 1000–30000. */
  sampleIntervalMs?: number;
  /**
   * Deadline of one sample (metadata and every ListOffsets). A sample past it counts as failed
   * and the next one starts on schedule. Default: `sampleIntervalMs` clamped to 5000–10000.
   */
  sampleTimeoutMs?: number;
  /**
   * What `getWeights()` answers for a partition without a measured weight (fewer than two samples,
   * or none recent). `omit` (default): nothing, so the assignor gives it its `defaultWeight` and
   * counts it as defaulted. `median`: the median of the weights measured in the same call, which
   * keeps a new partition from looking free next to busy ones, in whatever unit they are.
   */
  unmeasuredWeight?: UnmeasuredWeight;
  /**
   * Half-life of an exponential average over successive window rates, for bursty topics. 0
   * (default) reports the window rate as is, which is already a moving average. Smoothing a
   * partition's own rate cannot keep moving load after a move: the rate belongs to the partition,
   * not to whoever consumes it.
   */
  smoothingHalfLifeMs?: number;
  /**
   * How long `getWeights()` may spend reading the time index for partitions that have no sampled
   * weight yet (a fresh process, a new partition, lost history): their "instant" rate over
   * `rateIntervalMs` comes from two ListOffsets lookups by timestamp, so even the first
   * assignment after a start is weighed. Past this, `getWeights()` answers with what it has and
   * the lookup's result is kept for the next call. Keep it well below the assignor's
   * `weightsTimeoutMs`. 0 turns instant rates off. Default 500. Needs a KafkaJS `Kafka` client.
   */
  instantTimeoutMs?: number;
  /**
   * A partition that neither `getWeights()` nor `track()` asked for in this long stops being
   * sampled and its history is dropped (it is tracked afresh when asked for again), so partitions
   * no group asks about any more cost neither requests nor memory. At least `rateIntervalMs`.
   * Default: max(10 × `rateIntervalMs`, 600000).
   */
  untrackAfterMs?: number;
  /** Any pino-compatible logger. Default: silent. */
  logger?: Logger;
  /** A prom-client registry to register the source's metrics on. Default: no metrics. */
  registry?: Registry;
  /** Time and timers; for tests. Default: a monotonic clock with unref'd timers. */
  clock?: Clock;
}

/** Options after validation and defaults; frozen. */
export interface ResolvedOffsetRateWeightSourceOptions {
  readonly client: ResolvedClient;
  readonly rateIntervalMs: number;
  readonly sampleIntervalMs: number;
  readonly sampleTimeoutMs: number;
  readonly unmeasuredWeight: UnmeasuredWeight;
  readonly smoothingHalfLifeMs: number;
  readonly instantTimeoutMs: number;
  readonly untrackAfterMs: number;
  readonly logger: Logger;
  readonly registry: Registry | undefined;
  readonly clock: Clock;
}

/** A quarter of the rate interval, clamped to 1–30 s: four samples per window. */
export function defaultSampleIntervalMs(rateIntervalMs: number): number {
  return clamp(Math.round(rateIntervalMs / 4), MIN_SAMPLE_INTERVAL_MS, MAX_SAMPLE_INTERVAL_MS);
}

/**
 * The sample interval clamped to 5–10 s: long enough for a first connection with TLS and SASL,
 * short enough that a hung broker costs few samples.
 */
export function defaultSampleTimeoutMs(sampleIntervalMs: number): number {
  return clamp(sampleIntervalMs, 5000, 10_000);
}

/** Validates options once, at construction; throws a `ConfigError` naming every bad key. */
export function resolveOptions(options: unknown): ResolvedOffsetRateWeightSourceOptions {
  const o = validateOptions(schema, options, 'OffsetRateWeightSource');
  const client = classify(o.kafka);
  if (client === undefined) throw new Error('unreachable: kafka validated above');
  const sampleIntervalMs = o.sampleIntervalMs ?? defaultSampleIntervalMs(o.rateIntervalMs);
  return Object.freeze({
    client,
    rateIntervalMs: o.rateIntervalMs,
    sampleIntervalMs,
    sampleTimeoutMs: o.sampleTimeoutMs ?? defaultSampleTimeoutMs(sampleIntervalMs),
    unmeasuredWeight: o.unmeasuredWeight,
    smoothingHalfLifeMs: o.smoothingHalfLifeMs,
    instantTimeoutMs: o.instantTimeoutMs,
    untrackAfterMs: o.untrackAfterMs ?? Math.max(10 * o.rateIntervalMs, MIN_DEFAULT_UNTRACK_AFTER_MS),
    logger: o.logger ?? noopLogger,
    registry: o.registry,
    clock: o.clock ?? systemClock,
  });
}

/**
 * Tells the kinds of client apart by shape: a KafkaJS admin has `fetchTopicOffsets`, a platformatic
 * admin `listOffsets` and `listTopics`, a `Kafka` has `admin()` and `consumer()`, a reader `read()`. Not `instanceof Kafka`: an app may resolve another
 * copy of kafkajs than this package does, and an `Admin` is a plain object anyway.
 */
function classify(value: unknown): ResolvedClient | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v['fetchTopicOffsets'] === 'function' && typeof v['disconnect'] === 'function') {
    return { kind: 'admin', admin: value as Admin };
  }
  if (isPlatformaticAdmin(value)) return { kind: 'platformatic-admin', admin: value };
  if (typeof v['admin'] === 'function' && typeof v['consumer'] === 'function') {
    return { kind: 'kafka', kafka: value as Kafka };
  }
  if (isEndOffsetsReader(value)) return { kind: 'reader', reader: value };
  return undefined;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
