/**
 * @packageDocumentation
 * Partition weights for the load-aware assignor, measured from end offsets: each partition's
 * produce rate in events/s over a sliding window, sampled in the background with one ListOffsets
 * request per leader broker for all topics. Partitions without sampled history are weighed at
 * once from the brokers' time index (offsets by timestamp), so a fresh process's first
 * assignment is already balanced by load.
 *
 * The root exports what users need (each documented in this API reference); tests reach the internals
 * through the unstable `@load-aware/weights-offset-rate/internal`.
 */
export { createOffsetRateWeightSource, type OffsetRateWeightSource } from './offset-rate-weight-source.js';
export type { OffsetRateWeightSourceOptions, OffsetRateClient } from './config/options.js';
// The two seams the options accept: your own end-offset reader and a clock (tests, simulations).
export type { EndOffsetsReader, EndOffsetResult } from './readers/end-offsets-reader.js';
export type { UnmeasuredWeight } from './rates/weight-answer.js';
export type { Clock } from './base/clock.js';
export type { PlatformaticAdmin } from './readers/platformatic-admin-reader.js';
export {
  OffsetRateErrorCodes,
  SampleTimeoutError,
  SampleFailedError,
  PartitionReadError,
  type OffsetRateErrorCode,
} from './base/errors.js';
