/**
 * @packageDocumentation
 * Busy-time weights for the load-aware KafkaJS assigner: a wrapper for `eachMessage` and
 * `eachBatch` handlers that counts, per topic-partition, the time spent in them on a prom-client
 * registry, and a blend source that weighs partitions no handler has measured yet by their
 * traffic, in the same units.
 *
 * The root exports what users need (each documented in this API reference); tests reach the internals
 * through the unstable `@load-aware/busy-time/internal`.
 */
export {
  createBusyTimeRecorder,
  type BusyTimeRecorder,
  type BusyTimeTotals,
  type PartitionShare,
} from './busy-time-recorder.js';
export { createBlendWeightSource } from './blend-weight-source.js';
export type { BusyClock, BusyTimeRecorderOptions, BlendWeightSourceOptions } from './options.js';
