/**
 * @packageDocumentation
 * Internals of `@load-aware/trigger` for the tests: the election, the group observation, the
 * check-log hints and option resolution. **Unstable**: anything here may change in any release.
 * Users import from the package root.
 */
export * from './index.js';
export type { ObservedMember } from './judge/load.js';
export { electCoordinator } from './controller/election.js';
export { observeGroup, type ObservedGroup } from './controller/observe.js';
export {
  withWeights,
  resolveWeights,
  currentMaxInstanceLoad,
  currentAssignment,
  planFromCurrent,
  memberImbalance,
  type MemberImbalance,
  type PlanOptions as CurrentPlanOptions,
} from './judge/load.js';
export { likelyCauses, type CheckContext } from './controller/check-log.js';
export {
  createUnheldGuard,
  partitionsText,
  subscribedTopics,
  unheldPartitions,
  type UnheldGuard,
  type UnheldGuardOptions,
  type UnheldVerdict,
} from './judge/unheld-partitions.js';
export { checkedDecision, thresholdEvaluations, isThresholdEvaluation } from './triggers/decision.js';
export { isTrigger } from './contract/trigger.js';
export { resolvePeriodicOptions, type ResolvedPeriodicTriggerOptions } from './triggers/trigger-options.js';
export {
  withAssignerSettings,
  resolveTriggerOptions,
  type ResolvedThresholdTriggerOptions,
  type ResolvedTriggerControllerOptions,
} from './config/options.js';
export {
  createCapacityCheck,
  CAPACITY_SOURCES,
  CAPACITY_WINDOW_CHECKS,
  type CapacitySink,
  type CapacitySource,
  type UsedCapacity,
} from './controller/capacity-check.js';
export {
  createLagCheck,
  lagChangedMaterially,
  readGroupProgress,
  LAG_LOG_FLOOR_SECONDS,
  type LagLine,
  type LagSink,
  type ProgressRead,
} from './controller/lag-check.js';
