/**
 * @packageDocumentation
 * The proactive-rebalance trigger of load-aware: one elected member per group compares the
 * current assignment's max instance load with what `balance()` would produce now and, when the
 * group has drifted past a threshold (with hysteresis and a growing cooldown), makes the whole
 * group rebalance.
 */
export { createThresholdTrigger, type ThresholdTrigger } from './threshold-trigger.js';
export { TRIGGER_OUTCOMES } from './types.js';
export type { TriggerOutcome, Observation, Evaluation, CooldownGrowth, GroupShape } from './types.js';
export type { ObservedMember } from './load.js';
export { createTriggerController, type TriggerController, type CheckResult } from './controller.js';
export { electCoordinator } from './election.js';
export { observeGroup, type ObservedGroup } from './observe.js';
export { likelyCauses, type CheckContext } from './check-log.js';
export type { CheckOutcome } from './metrics.js';
export {
  resolveTriggerOptions,
  type ThresholdTriggerOptions,
  type ResolvedThresholdTriggerOptions,
  type TriggerControllerOptions,
  type TriggerControllerDeps,
  type ResolvedTriggerControllerOptions,
} from './options.js';
export { TriggerErrorCodes, CheckTimeoutError, GroupNotDescribedError, type TriggerErrorCode } from './errors.js';
