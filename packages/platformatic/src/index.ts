/**
 * @packageDocumentation
 * The load-aware partition assigner for @platformatic/kafka consumers: the placement, userData
 * record, options, metrics and logs of `@load-aware/assignor`, so platformatic and KafkaJS
 * members form one load-aware group, plus an incremental (cooperative) mode.
 */
export { LoadAwareAssigner, type PlatformaticLoadAwareAssigner, type LoadAwareGroupOptions } from './assigner.js';
export type { PlatformaticAssignerOptions } from './options.js';
export type { AttachableConsumer } from './membership.js';
export type { ProtocolEntry } from './protocol.js';
export { COOPERATIVE_PROTOCOL } from './protocol.js';
export type { TriggerTarget, TriggerAssigner, MembershipEvent } from '@load-aware/assignor/portable';
export type {
  GroupDescriber,
  TriggerAdmin,
  TriggerConsumer,
  GroupJoinPayload,
  HeartbeatPayload,
} from './trigger-target.js';
export type { MetadataReader, ProgressReader } from './admin-reads.js';
export { GroupNotDescribedError, UnsafeConsumeModeError } from './errors.js';
export {
  withSafeConsumeMode,
  SAFE_CONSUME_MODE,
  SAFE_FALLBACK_MODE,
  type GuardedConsumeOptions,
} from './consume-guard.js';
export { ConfigError, isLoadAwareError, type WeightSource, type PartitionWeight } from '@load-aware/assignor/portable';
