/**
 * @packageDocumentation
 * @module @load-aware/assignor/portable
 * The parts of `@load-aware/assignor` that load no client library (no KafkaJS): what an adapter
 * for another Kafka client reuses so that it places, encodes, validates, logs and counts exactly
 * like the KafkaJS adapter (`@load-aware/platformatic` does). **Unstable**, like `./internal`:
 * anything here may change in any release.
 */
export { ASSIGNER_NAME } from './protocol/protocol-name.js';
export {
  assignerOptionsSchema,
  resolveParsedOptions,
  isRegistry,
  type LoadAwareAssignerOptions,
  type ResolvedLoadAwareAssignerOptions,
} from './config/options.js';
export { validateOptions } from './base/validate.js';
export { createAssignorMetrics, reuse as getOrCreateMetric, type AssignorMetrics } from './config/metrics.js';
export { withTimeout, type Timers } from './base/timeout.js';
export { errorCodeOf, errorMessageOf } from './errors/error-fields.js';
export { memberFromRecord, OWN_INSTANCE_PREFIX, type DecodedMember } from './protocol/member-record.js';
export { currentOwners, type CurrentOwners } from './leader/current-owners.js';
export {
  createAssignmentMemory,
  type AssignmentMemory,
  type RememberedAssignment,
} from './leader/assignment-memory.js';
export {
  prepareMembers,
  placeMembers,
  subscribedTopics,
  warnFallback,
  fallbackAssignments,
  rememberAssignment,
  type PlacementContext,
  type Placement,
} from './leader/place-group.js';
export { isLogger, noopLogger, bindLogger, type Logger, type LogFn } from './base/logger.js';
export { escapeLogText } from './base/log-text.js';
export {
  createUniformWeightSource,
  isWeightSource,
  fetchWeights,
  type WeightSource,
  type PartitionWeight,
} from './inputs/weight-source.js';
export { processInstanceId, processToken } from './protocol/instance-id.js';
export {
  encodeUserData,
  decodeUserData,
  USER_DATA_VERSION,
  type LoadAwareUserData,
  type DecodedUserData,
  type RebalancePause,
} from './protocol/user-data.js';
export { partitionRacks, type ReplicaRackMode, type SharedRackLists } from './inputs/partition-racks.js';
export { samePartitions, type OwnedPartitions } from './protocol/owned-partitions.js';
export type { ObservedGroup, ObservedMember } from './protocol/observed-group.js';
export {
  readSiblingGroups,
  siblingPartitions,
  SiblingCache,
  type CrossGroupSettings,
  type DescribeGroup,
  type DescribedSibling,
  type SiblingReading,
  type SiblingStatus,
} from './inputs/sibling-groups.js';
export { siblingLoadsLogged } from './leader/sibling-loads.js';
export type { MembershipEvent, TriggerAssigner, TriggerTarget } from './trigger-target.js';
export type { PartitionProgress, TopicPartitionsReading, ListedTopic } from './protocol/group-reads.js';
export {
  LoadAwareError,
  ConfigError,
  WeightsTimeoutError,
  WeightsFailedError,
  GroupNotDescribedError,
  isLoadAwareError,
} from './errors/errors.js';
export { ERROR_CODES, type LoadAwareErrorCode } from './errors/error-codes.js';
export { encodeAssignmentNote, decodeAssignmentNote, type RebalanceCause } from './protocol/rebalance-cause.js';
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
