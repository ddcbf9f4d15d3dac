/**
 * @packageDocumentation
 * Internals of `@load-aware/weights-otel` for the tests: option resolution, the source with an
 * injectable clock, the pure collection and rate rules. **Unstable**: anything here may change in
 * any release. Users import from the package root.
 */
export * from './index.js';
export { createSourceWithClock, type MillisClock } from './otel-weight-source.js';
export {
  resolveOptions,
  MAX_SNAPSHOTS_PER_WINDOW,
  PROCESS_DURATION_METRIC,
  TOPIC_ATTRIBUTE,
  PARTITION_ATTRIBUTE,
  type ResolvedOtelWeightSourceOptions,
} from './options.js';
export {
  sumsOf,
  partitionKey,
  partitionOf,
  type CollectedSums,
  type PartitionSeconds,
  type PointSelection,
} from './partition-sums.js';
export { SnapshotWindow, type Snapshot, type WindowRates } from './window.js';
export { ProcessDurationReader, READER_CARDINALITY_LIMIT } from './reader.js';
export { PROMETHEUS_TOPIC_LABEL, PROMETHEUS_PARTITION_LABEL } from './prometheus-query.js';
