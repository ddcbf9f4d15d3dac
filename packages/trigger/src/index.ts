/**
 * @packageDocumentation
 * The proactive-rebalance trigger of load-aware: one elected member per group compares the
 * current assignment's max instance load with what `balance()` would produce now and, when the
 * group has drifted past a threshold (with hysteresis and a growing cooldown), makes the whole
 * group rebalance. The decision is pluggable: periodic and ALL/ANY composite triggers ship too,
 * and any object with `evaluate(observation)` can decide instead.
 *
 * The root exports what users need (each documented in this API reference); tests reach the internals
 * through the unstable `@load-aware/trigger/internal`.
 */
export { createTriggerController, type TriggerController, type CheckResult } from './controller/controller.js';
export type {
  TriggerControllerOptions,
  TriggerControllerDeps,
  JudgingSettings,
  ThresholdTriggerOptions,
  MemberLevelOptions,
  SizingOptions,
  MeasuredCapacityOptions,
  LatencySlaOptions,
  BusyTimeTotalsSource,
} from './config/options.js';
export type { CheckOutcome } from './controller/metrics.js';
export type { TriggerTarget, TriggerAssigner, MembershipEvent } from './contract/target.js';
export type { Trigger } from './contract/trigger.js';
export {
  createThresholdTrigger,
  createThresholdTriggerFor,
  type ThresholdTrigger,
} from './triggers/threshold-trigger.js';
export { createPeriodicTrigger, type PeriodicTrigger } from './triggers/periodic-trigger.js';
export { createCompositeTrigger, type CompositeTrigger } from './triggers/composite-trigger.js';
export type { PeriodicTriggerOptions, CompositeTriggerOptions } from './triggers/trigger-options.js';
export { TRIGGER_OUTCOMES, TRIGGER_LEVELS } from './contract/types.js';
export type {
  TriggerOutcome,
  TriggerLevel,
  TriggerDecision,
  Observation,
  SiblingLoad,
  Evaluation,
  FirePrice,
  CooldownGrowth,
  GroupShape,
  PeriodicDecision,
  CompositeDecision,
  CompositeMode,
} from './contract/types.js';
export {
  TriggerErrorCodes,
  CheckTimeoutError,
  GroupNotDescribedError,
  InvalidDecisionError,
  type TriggerErrorCode,
} from './contract/errors.js';
