/**
 * @packageDocumentation
 * Internals of `@load-aware/assignor`, shared with the sibling load-aware packages and the tests:
 * option resolution, the metric and timeout helpers, the userData codec, the reference
 * algorithms. **Unstable**: anything here may change in any release, without notice. Users import
 * from the package root, whose names are listed in the package README.
 */
export * from './index.js';
export { resolveOptions, isRegistry, type ResolvedLoadAwareAssignerOptions } from './options.js';
export { validateOptions } from './validate.js';
export { reuse as getOrCreateMetric } from './metrics.js';
export { withTimeout, type Timers } from './timeout.js';
export { errorCodeOf, errorMessageOf } from './error-fields.js';
export { decodeMember, OWN_INSTANCE_PREFIX, type DecodedMember } from './members.js';
export { observeGroup, type ObservedGroup, type ObservedMember } from './described-group.js';
export {
  readSiblingGroups,
  siblingBaseLoads,
  siblingPartitions,
  siblingFingerprint,
  turnOf,
  SiblingCache,
  describeThrough,
  type DescribeGroup,
} from './sibling-groups.js';
export {
  topicPartitionsThrough,
  type ListedTopic,
  type ReadTopicPartitions,
  type TopicPartitionsReading,
} from './topic-partitions.js';
export { isLogger, noopLogger, bindLogger } from './logger.js';
export { escapeLogText, findUnsafeLogChar } from './log-text.js';
export { isWeightSource, fetchWeights } from './weight-source.js';
export { mergeWeights } from './merge-weights.js';
export { partitionRacks, type ReplicaRackMode } from './partition-racks.js';
export { brokerRacksOf } from './broker-racks.js';
export { listPartitions } from './partition-catalog.js';
export {
  encodeUserData,
  decodeUserData,
  USER_DATA_VERSION,
  type LoadAwareUserData,
  type DecodedUserData,
} from './user-data.js';
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
  DEFAULT_SEARCH_BUDGET,
  type UnevennessFactor,
} from './core/index.js';
export { latestGroupPause, type GroupPause, type PauseReporter } from './rebalance-report.js';
