/**
 * @packageDocumentation
 * A load-aware partition assigner for KafkaJS: partitions are placed by measured weight, first
 * across instances (processes/pods), then across the members inside each instance.
 */
export { LoadAwareAssigner, ASSIGNER_NAME, type LoadAwarePartitionAssigner } from './assigner.js';
export type { LoadAwareAssignerOptions, ResolvedLoadAwareAssignerOptions } from './options.js';
export { resolveOptions, isRegistry } from './options.js';
export { validateOptions } from './validate.js';
export { reuse as getOrCreateMetric } from './metrics.js';
export { withTimeout } from './timeout.js';
export { isLogger } from './logger.js';
export { isWeightSource, fetchWeights } from './weight-source.js';
export { createUniformWeightSource, type WeightSource, type PartitionWeight } from './weight-source.js';
export { kafkaJsLogCreator, noopLogger, type Logger, type LogFn } from './logger.js';
export {
  encodeUserData,
  decodeUserData,
  USER_DATA_VERSION,
  type LoadAwareUserData,
  type DecodedUserData,
} from './user-data.js';
export { processInstanceId } from './instance-id.js';
export {
  balance,
  referenceBalance,
  roundRobin,
  explain,
  isUsableWeight,
  DEFAULT_PARTITION_WEIGHT,
  DEFAULT_MOVE_TOLERANCE,
  DEFAULT_SEARCH_BUDGET,
  type AssignmentExplanation,
  type UnevennessFactor,
  type BalanceInput,
  type BalanceOptions,
  type BalanceResult,
  type BalanceMember,
  type WeightedPartition,
  type TopicPartition,
  type InstanceLoad,
  type MemberLoad,
} from './core/index.js';
export {
  ErrorCodes,
  LoadAwareError,
  ConfigError,
  InvalidBalanceInputError,
  WeightsTimeoutError,
  WeightsFailedError,
  type ErrorCode,
} from './errors.js';

// Issue 17, item 5: branded errors, one code catalogue, a class per code, bound loggers.
export { ERROR_CODES, type LoadAwareErrorCode } from './error-codes.js';
export { isLoadAwareError, MetadataTimeoutError } from './errors.js';
export { bindLogger } from './logger.js';
