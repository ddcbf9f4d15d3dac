/** Options of the periodic and composite triggers: zod schemas, input and resolved shapes. */
import { z } from 'zod';
import { validateOptions } from '@load-aware/assignor/internal';
import { clockOption, WEEK_MS } from '../config/options.js';
import { triggerObjectSchema, type Trigger } from '../contract/trigger.js';
import type { CompositeMode } from '../contract/types.js';

const periodicSchema = z.strictObject({
  // At least a second: a period in minutes typed as ms would otherwise rebalance on every check.
  intervalMs: z.number().int().min(1000).max(WEEK_MS),
  now: clockOption,
  monotonicNow: clockOption,
});

/** Options of {@link createPeriodicTrigger}. */
export interface PeriodicTriggerOptions {
  /** Time between two fires, from the trigger's creation and then from each fire. Required. */
  intervalMs: number;
  /** The wall clock, in ms since the epoch; only for the reported `lastFiredAt`. Default `Date.now`. */
  now?: () => number;
  /** The clock the period is measured with; it must never step. Default `performance.now()`. */
  monotonicNow?: () => number;
}

/** Periodic trigger options after validation and defaults; frozen. */
export interface ResolvedPeriodicTriggerOptions {
  readonly intervalMs: number;
  readonly now: () => number;
  readonly monotonicNow: () => number;
}

/** Validates periodic trigger options once; throws a `ConfigError` naming every bad key. */
export function resolvePeriodicOptions(options: unknown): ResolvedPeriodicTriggerOptions {
  const o = validateOptions(periodicSchema, options, 'PeriodicTrigger');
  return Object.freeze({
    intervalMs: o.intervalMs,
    // Read through arrows, so a clock replaced later (by tests' spies) is the one used.
    now: o.now ?? (() => Date.now()),
    monotonicNow: o.monotonicNow ?? (() => performance.now()),
  });
}

const compositeSchema = z.strictObject({
  mode: z.enum(['all', 'any']),
  triggers: z.array(triggerObjectSchema).min(1, { message: 'expected at least one trigger' }),
});

/** Options of {@link createCompositeTrigger}. */
export interface CompositeTriggerOptions<T extends Trigger = Trigger> {
  /** `all`: fire when every child fires on the same check; `any`: fire when at least one does. */
  mode: CompositeMode;
  /** The children, at least one. Each is evaluated on every check, in this order. */
  triggers: ReadonlyArray<T>;
}

/** Validates composite trigger options once; throws a `ConfigError` naming every bad key. */
export function resolveCompositeOptions<T extends Trigger>(options: unknown): CompositeTriggerOptions<T> {
  const o = validateOptions(compositeSchema, options, 'CompositeTrigger');
  return Object.freeze({ mode: o.mode, triggers: Object.freeze([...o.triggers]) as ReadonlyArray<T> });
}
