/**
 * @packageDocumentation
 * Internals of `@load-aware/weights-offset-rate` for the tests and sibling packages: option
 * resolution and its defaults, the sample history, the reader and clock seams. **Unstable**:
 * anything here may change in any release. Users import from the package root.
 */
export * from './index.js';
export {
  resolveOptions,
  defaultSampleIntervalMs,
  defaultSampleTimeoutMs,
  MIN_SAMPLE_INTERVAL_MS,
  MAX_SAMPLE_INTERVAL_MS,
  type ResolvedOffsetRateWeightSourceOptions,
  type ResolvedClient,
} from './config/options.js';
export type { EndOffsetResult } from './readers/end-offsets-reader.js';
export { answerWeights, completeAnswer, type UnmeasuredWeight, type WeightAnswer } from './rates/weight-answer.js';
export { MAX_CONSECUTIVE_FAILURES } from './rates/partition-tracker.js';
export { createInternalCluster, type InternalCluster } from './readers/kafkajs-internals.js';
export {
  PartitionHistory,
  MAX_SAMPLES_PER_WINDOW,
  type RateWindow,
  type RecordOutcome,
} from './rates/partition-history.js';
