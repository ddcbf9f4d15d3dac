/**
 * @packageDocumentation
 * The parts of `@load-aware/assignor` that load no client library (no KafkaJS): what an adapter
 * for another Kafka client reuses so that it places, encodes, validates, logs and counts exactly
 * like the KafkaJS adapter (`@load-aware/platformatic` does). **Unstable**, like `./internal`:
 * anything here may change in any release.
 */
export { ASSIGNER_NAME } from './protocol-name.js';
export {
  assignerOptionsSchema,
  resolveParsedOptions,
  isRegistry,
  type LoadAwareAssignerOptions,
  type ResolvedLoadAwareAssignerOptions,
} from './options.js';
export { validateOptions } from './validate.js';
export { createAssignorMetrics, reuse as getOrCreateMetric, type AssignorMetrics } from './metrics.js';
export { withTimeout, type Timers } from './timeout.js';
export { errorCodeOf, errorMessageOf } from './error-fields.js';
export { memberFromRecord, OWN_INSTANCE_PREFIX, type DecodedMember } from './member-record.js';
export { currentOwners, type CurrentOwners } from './current-owners.js';
export { createAssignmentMemory, type AssignmentMemory, type RememberedAssignment } from './assignment-memory.js';
export {
  prepareMembers,
  placeMembers,
  subscribedTopics,
  warnFallback,
  fallbackAssignments,
  rememberAssignment,
  type PlacementContext,
  type Placement,
} from './place-group.js';
export { isLogger, noopLogger, bindLogger, type Logger, type LogFn } from './logger.js';
export { escapeLogText } from './log-text.js';
export {
  createUniformWeightSource,
  isWeightSource,
  fetchWeights,
  type WeightSource,
  type PartitionWeight,
} from './weight-source.js';
export { processInstanceId, processToken } from './instance-id.js';
export { partitionRacks, type ReplicaRackMode } from './partition-racks.js';
export { encodeUserData, decodeUserData, USER_DATA_VERSION, type LoadAwareUserData } from './user-data.js';
export { samePartitions, type OwnedPartitions } from './owned-partitions.js';
export { LoadAwareError, ConfigError, WeightsTimeoutError, WeightsFailedError, isLoadAwareError } from './errors.js';
export { ERROR_CODES, type LoadAwareErrorCode } from './error-codes.js';
export { encodeAssignmentNote, decodeAssignmentNote, type RebalanceCause } from './rebalance-cause.js';
export {
  balance,
  roundRobin,
  partitionKey,
  keyOfPartition,
  PartitionMap,
  type BalanceMember,
  type BalanceResult,
  type TopicPartition,
  type WeightedPartition,
} from './core/index.js';
