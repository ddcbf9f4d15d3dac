/**
 * @packageDocumentation
 * Internals of `@load-aware/trigger` for the tests: the election, the group observation, the
 * check-log hints and option resolution. **Unstable**: anything here may change in any release.
 * Users import from the package root.
 */
export * from './index.js';
export type { ObservedMember } from './load.js';
export { electCoordinator } from './election.js';
export { observeGroup, type ObservedGroup } from './observe.js';
export {
  withWeights,
  resolveWeights,
  currentMaxInstanceLoad,
  currentAssignment,
  planFromCurrent,
  memberImbalance,
  type MemberImbalance,
  type PlanOptions as CurrentPlanOptions,
} from './load.js';
export { likelyCauses, type CheckContext } from './check-log.js';
export {
  createUnheldGuard,
  partitionsText,
  subscribedTopics,
  unheldPartitions,
  type UnheldGuard,
  type UnheldGuardOptions,
  type UnheldVerdict,
} from './unheld-partitions.js';
export { checkedDecision, thresholdEvaluations, isThresholdEvaluation } from './decision.js';
export { isTrigger } from './trigger.js';
export { resolvePeriodicOptions, type ResolvedPeriodicTriggerOptions } from './trigger-options.js';
export {
  withAssignerSettings,
  resolveTriggerOptions,
  type ResolvedThresholdTriggerOptions,
  type ResolvedTriggerControllerOptions,
} from './options.js';
