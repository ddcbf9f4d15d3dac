/**
 * @packageDocumentation
 * Internals of `@load-aware/platformatic`, for the tests. **Unstable**: anything here may change
 * in any release. Users import from the package root.
 */
export * from './index.js';
export { assignSync, type SyncAssignContext, type PlatformaticAssignment, type TopicsMetadata } from './assign.js';
export { cooperativeRound, withPromises, type Transfer } from './cooperative.js';
export { decodeGroup, type MemberSubscription, type ForeignMember, type DecodedGroup } from './subscriptions.js';
export { createWeightSnapshot, type WeightSnapshot, type WeightReading } from './weight-snapshot.js';
export { createMembership, type Membership } from './membership.js';
export { createPlatformaticMetrics, type PlatformaticMetrics } from './metrics.js';
export { resolvePlatformaticOptions, DEFAULT_MAX_WEIGHTS_AGE_MS, DEFAULT_WEIGHTS_REFRESH_MS } from './options.js';
export {
  protocolsFor,
  isCooperativeRound,
  COOPERATIVE_SUBSCRIPTION_VERSION,
  EAGER_SUBSCRIPTION_VERSION,
} from './protocol.js';
export {
  guardConsume,
  filterDeliveries,
  type ConsumingConsumer,
  type GuardedConsumeOptions,
  type FilterableStream,
} from './consume-guard.js';
export { readProgress, readTopicPartitions } from './admin-reads.js';
