/**
 * @packageDocumentation
 * Partition weights for the load-aware assignor, measured from end offsets: each partition's
 * produce rate in events/s over a sliding window, sampled in the background with one ListOffsets
 * request per leader broker for all topics. Partitions without sampled history are weighed at
 * once from the brokers' time index (offsets by timestamp), so a fresh process's first
 * assignment is already balanced by load.
 */
export { createOffsetRateWeightSource, type OffsetRateWeightSource } from './offset-rate-weight-source.js';
export {
  resolveOptions,
  defaultSampleIntervalMs,
  defaultSampleTimeoutMs,
  MIN_SAMPLE_INTERVAL_MS,
  MAX_SAMPLE_INTERVAL_MS,
  type OffsetRateWeightSourceOptions,
  type ResolvedOffsetRateWeightSourceOptions,
  type OffsetRateClient,
  type ResolvedClient,
} from './options.js';
export type { EndOffsetsReader, EndOffsetResult } from './end-offsets-reader.js';
export type { Clock } from './clock.js';
export type { UnmeasuredWeight } from './weight-answer.js';
export { MAX_CONSECUTIVE_FAILURES } from './partition-tracker.js';
export { PartitionHistory, MAX_SAMPLES_PER_WINDOW, type RateWindow, type RecordOutcome } from './partition-history.js';
export {
  OffsetRateErrorCodes,
  SampleTimeoutError,
  SampleFailedError,
  PartitionReadError,
  type OffsetRateErrorCode,
} from './errors.js';
