/**
 * @packageDocumentation
 * The proactive-rebalance trigger of load-aware: one elected member per group compares the
 * current assignment's max instance load with what `balance()` would produce now and, when the
 * group has drifted past a threshold (with hysteresis and a growing cooldown), makes the whole
 * group rebalance.
 *
 * The root exports what users need (listed in the package README); tests reach the internals
 * through the unstable `@load-aware/trigger/internal`.
 */
export { createTriggerController, type TriggerController, type CheckResult } from './controller.js';
export type { TriggerControllerOptions, TriggerControllerDeps, ThresholdTriggerOptions } from './options.js';
export type { CheckOutcome } from './metrics.js';
export { createThresholdTrigger, type ThresholdTrigger } from './threshold-trigger.js';
export { TRIGGER_OUTCOMES } from './types.js';
export type { TriggerOutcome, Observation, Evaluation, CooldownGrowth, GroupShape } from './types.js';
export { TriggerErrorCodes, CheckTimeoutError, GroupNotDescribedError, type TriggerErrorCode } from './errors.js';
