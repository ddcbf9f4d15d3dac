import { isLogger, noopLogger, validateOptions, type Logger } from '@load-aware/assignor/internal';
import { z } from 'zod';

/** The histogram `@opentelemetry/instrumentation-kafkajs` records each handler call in, in seconds. */
export const PROCESS_DURATION_METRIC = 'messaging.process.duration';
/** The attribute that carries the topic (OTel messaging semantic conventions). */
export const TOPIC_ATTRIBUTE = 'messaging.destination.name';
/** The attribute that carries the partition number, as a string (OTel messaging semantic conventions). */
export const PARTITION_ATTRIBUTE = 'messaging.destination.partition.id';

/**
 * Snapshots kept per window at most: `windowMs ÷ sampleIntervalMs`. Each holds one number per
 * partition, so this bounds memory whatever the two options say.
 */
export const MAX_SNAPSHOTS_PER_WINDOW = 1000;

/** A value an attribute in `match` must have; the OTel attribute value kinds a filter can compare. */
export type AttributeMatchValue = string | number | boolean;

const nonEmpty = z.string().min(1, { message: 'expected a non-empty string' });

const schema = z
  .strictObject({
    windowMs: z.number().int().min(1000).max(3_600_000).default(60_000),
    sampleIntervalMs: z.number().int().min(100).max(600_000).default(5_000),
    collectTimeoutMs: z.number().int().min(10).max(60_000).default(2_000),
    metricName: nonEmpty.default(PROCESS_DURATION_METRIC),
    topicAttribute: nonEmpty.default(TOPIC_ATTRIBUTE),
    partitionAttribute: nonEmpty.default(PARTITION_ATTRIBUTE),
    match: z.record(nonEmpty, z.union([z.string(), z.number(), z.boolean()])).default({}),
    logger: z
      .custom<Logger>(isLogger, { message: 'expected a pino-compatible logger (debug/info/warn/error)' })
      .optional(),
  })
  .refine((o) => o.sampleIntervalMs <= o.windowMs, {
    message: 'must not exceed windowMs: a rate needs two snapshots inside its window',
    path: ['sampleIntervalMs'],
  })
  .refine((o) => o.windowMs / o.sampleIntervalMs <= MAX_SNAPSHOTS_PER_WINDOW, {
    message: `windowMs ÷ sampleIntervalMs must be at most ${String(MAX_SNAPSHOTS_PER_WINDOW)}: one snapshot of every partition is kept per interval`,
    path: ['sampleIntervalMs'],
  })
  .refine((o) => o.topicAttribute !== o.partitionAttribute, {
    message: 'topicAttribute and partitionAttribute must differ',
    path: ['partitionAttribute'],
  });

/** Options of {@link createOtelWeightSource}. */
export interface OtelWeightSourceOptions {
  /**
   * The span a weight is measured over, in ms: busy seconds added in the last `windowMs` ÷ the
   * seconds they were added in, as PromQL's `rate(…[1m])` would. Default 60000.
   */
  windowMs?: number;
  /**
   * How often the reader collects in the background, in ms: each collection is a snapshot of every
   * partition's cumulative busy seconds, and the window starts at the newest snapshot at least
   * `windowMs` old. A weight also needs one whole interval of history. Default 5000.
   */
  sampleIntervalMs?: number;
  /** How long one collection from the MeterProvider may take, in ms. Default 2000. */
  collectTimeoutMs?: number;
  /** The histogram to read. Default `messaging.process.duration`, what the KafkaJS instrumentation records. */
  metricName?: string;
  /** The data point attribute naming the topic. Default `messaging.destination.name`. */
  topicAttribute?: string;
  /** The data point attribute naming the partition (a string or a number). Default `messaging.destination.partition.id`. */
  partitionAttribute?: string;
  /**
   * Attributes a data point must have, with these values, to count: e.g. `{ 'messaging.system':
   * 'kafka' }`, or a consumer group attribute once your instrumentation records one. Default: none.
   */
  match?: Record<string, AttributeMatchValue>;
  /** Any pino-compatible logger. Default: silent. */
  logger?: Logger;
}

/** Options of {@link createOtelWeightSource} after validation and defaults; frozen. */
export interface ResolvedOtelWeightSourceOptions {
  readonly windowMs: number;
  readonly sampleIntervalMs: number;
  readonly collectTimeoutMs: number;
  readonly metricName: string;
  readonly topicAttribute: string;
  readonly partitionAttribute: string;
  readonly match: ReadonlyArray<readonly [string, AttributeMatchValue]>;
  readonly logger: Logger;
}

/** Validates options once, at construction; throws a `ConfigError` naming every bad key. */
export function resolveOptions(options: unknown): ResolvedOtelWeightSourceOptions {
  const o = validateOptions(schema, options ?? {}, 'OtelWeightSource');
  return Object.freeze({
    windowMs: o.windowMs,
    sampleIntervalMs: o.sampleIntervalMs,
    collectTimeoutMs: o.collectTimeoutMs,
    metricName: o.metricName,
    topicAttribute: o.topicAttribute,
    partitionAttribute: o.partitionAttribute,
    match: Object.freeze(Object.entries(o.match).map(([k, v]) => Object.freeze([k, v] as const))),
    logger: o.logger ?? noopLogger,
  });
}
