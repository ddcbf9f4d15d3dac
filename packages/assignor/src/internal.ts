/**
 * @packageDocumentation
 * Internals of `@load-aware/assignor`, shared with the sibling load-aware packages and the tests:
 * option resolution, the metric and timeout helpers, the userData codec, the reference
 * algorithms. **Unstable**: anything here may change in any release, without notice. Users import
 * from the package root, whose names are listed in the API reference.
 */
export * from './index.js';
export { resolveOptions, isRegistry, type ResolvedLoadAwareAssignerOptions } from './config/options.js';
export { validateOptions } from './base/validate.js';
export { reuse as getOrCreateMetric } from './config/metrics.js';
export { withTimeout, type Timers } from './base/timeout.js';
export { errorCodeOf, errorMessageOf } from './errors/error-fields.js';
export { decodeMember, OWN_INSTANCE_PREFIX, type DecodedMember } from './protocol/members.js';
export { observeGroup, type ObservedGroup, type ObservedMember } from './protocol/described-group.js';
export {
  readSiblingGroups,
  siblingBaseLoads,
  siblingPartitions,
  siblingFingerprint,
  turnOf,
  SiblingCache,
  type DescribeGroup,
} from './inputs/sibling-groups.js';
export { describeThrough } from './kafkajs/describe-group.js';
export {
  topicPartitionsThrough,
  type ListedTopic,
  type ReadTopicPartitions,
  type TopicPartitionsReading,
} from './kafkajs/topic-partitions.js';
export { isLogger, noopLogger, bindLogger } from './base/logger.js';
export { escapeLogText, findUnsafeLogChar } from './base/log-text.js';
export { isWeightSource, fetchWeights } from './inputs/weight-source.js';
export { mergeWeights } from './inputs/merge-weights.js';
export { partitionRacks, type ReplicaRackMode, type SharedRackLists } from './inputs/partition-racks.js';
export { brokerRacksOf, replicaRacksThrough } from './kafkajs/broker-racks.js';
export { listPartitions } from './kafkajs/partition-catalog.js';
export {
  KAFKAJS_INTERNALS,
  KAFKAJS_INTERNAL_NAMES,
  KAFKAJS_FEATURES,
  MODULE_INTERNALS,
  CLUSTER_INTERNALS,
  findModuleInternals,
  missingClusterInternals,
  targetTopicsOf,
  type KafkaJsInternal,
  type KafkaJsFeature,
} from './kafkajs/internals.js';
export {
  loadWire,
  missingModuleInternals,
  STATIC_MEMBERSHIP_VERSIONS,
  type GroupApi,
  type KafkaWire,
  type WireBroker,
  type SideConnection,
} from './kafkajs/wire.js';
export {
  encodeUserData,
  decodeUserData,
  USER_DATA_VERSION,
  type LoadAwareUserData,
  type DecodedUserData,
} from './protocol/user-data.js';
export {
  referenceBalance,
  roundRobin,
  isUsableWeight,
  PartitionWeightTable,
  weightTable,
  PartitionMap,
  partitionKey,
  keyOfPartition,
  partitionLabel,
  usableCapacity,
  instanceCapacities,
  RELATIVE_EPS,
  median,
  DEFAULT_PARTITION_WEIGHT,
  DEFAULT_MOVE_TOLERANCE,
  DEFAULT_ORPHAN_AIM,
  DEFAULT_SEARCH_BUDGET,
} from './core/index.js';
export type { UnevennessFactor } from './leader/explain.js';
export { latestGroupPause, type GroupPause, type PauseReporter } from './leader/rebalance-report.js';
export type { PartitionProgress } from './kafkajs/group-progress.js';
export { assignerInternals, type LoadAwareAssignerInternals } from './assigner.js';
export { measureRebalancePauses, type PauseSink } from './member/pause-meter.js';
export {
  groupLag,
  lagOf,
  LAG_UNMEASURED_REASONS,
  type GroupLag,
  type GroupLagInput,
  type MemberLag,
  type PartitionLag,
  type PartitionLagReading,
  type LagMember,
  type LagUnmeasured,
  type DrainTime,
} from './sizing/group-lag.js';
