/**
 * @packageDocumentation
 * @module @load-aware/assignor
 * A load-aware partition assigner for KafkaJS: partitions are placed by measured weight, first
 * across instances (processes/pods), then across the members inside each instance.
 *
 * The root exports only what users need (each documented in this API reference). The sibling
 * packages and the tests reach the internals through `@load-aware/assignor/internal`, which is
 * unstable.
 */
export { LoadAwareAssigner, ASSIGNER_NAME, type LoadAwarePartitionAssigner } from './assigner.js';
export type { MembershipEvent, TriggerAssigner, TriggerTarget } from './trigger-target.js';
// Types that appear in the assigner's own signatures, so callers can name what it returns.
export type { PartitionProgress, TopicPartitionsReading, ListedTopic } from './protocol/group-reads.js';
export type { ObservedMember } from './protocol/described-group.js';
export type { LoadAwareAssignerOptions, CrossGroupOptions } from './config/options.js';
export type { SiblingReading, SiblingStatus, CrossGroupSettings } from './inputs/sibling-groups.js';
export { createUniformWeightSource, type WeightSource, type PartitionWeight } from './inputs/weight-source.js';
export { type Logger, type LogFn } from './base/logger.js';
export { kafkaJsLogCreator } from './member/kafkajs-log.js';
export { processInstanceId } from './protocol/instance-id.js';
export { REBALANCE_CAUSES, type RebalanceCause } from './protocol/rebalance-cause.js';
export {
  balance,
  type BalanceInput,
  type BalanceOptions,
  type BalanceResult,
  type BalanceMember,
  type WeightedPartition,
  type TopicPartition,
  type InstanceLoad,
  type MemberLoad,
} from './core/index.js';
export { explain, type AssignmentExplanation, type UnevennessFactor } from './leader/explain.js';
export {
  sizeGroup,
  placementAt,
  DEFAULT_TARGET_UTILIZATION,
  type GroupSizeInput,
  type GroupSize,
  type SizedPlacement,
} from './sizing/group-size.js';
export {
  deriveMemberCapacity,
  type SizingWeightUnits,
  type BusyTimeWindow,
  type CapacityDerivationInput,
  type CapacityDerivation,
  type CapacityProblem,
} from './sizing/member-capacity.js';
export {
  utilizationForLatency,
  DEFAULT_SLA_QUANTILE,
  DEFAULT_VARIABILITY,
  type LatencyTargetInput,
  type LatencyTarget,
} from './sizing/latency-target.js';
export {
  ErrorCodes,
  LoadAwareError,
  ConfigError,
  InvalidBalanceInputError,
  WeightsTimeoutError,
  WeightsFailedError,
  MetadataTimeoutError,
  StaticMemberFencedError,
  StaticMembershipUnsupportedError,
  KafkaJsInternalMissingError,
  GroupNotDescribedError,
  isLoadAwareError,
  type ErrorCode,
} from './errors/errors.js';
export { ERROR_CODES, type LoadAwareErrorCode } from './errors/error-codes.js';
