import { z } from 'zod';
import type { Registry } from 'prom-client';
import {
  DEFAULT_MOVE_TOLERANCE,
  DEFAULT_PARTITION_WEIGHT,
  DEFAULT_SLA_QUANTILE,
  DEFAULT_TARGET_UTILIZATION,
  DEFAULT_VARIABILITY,
  isLogger,
  isRegistry,
  isWeightSource,
  noopLogger,
  validateOptions,
  type Logger,
  type SizingWeightUnits,
  type WeightSource,
} from '@load-aware/assignor/internal';
import { looksLikeTrigger, triggerObjectSchema, type Trigger } from '../contract/trigger.js';
import type { Evaluation, TriggerDecision } from '../contract/types.js';
import { targetSchema, type TriggerAssigner, type TriggerTarget } from '../contract/target.js';

/** The longest interval any trigger option accepts. */
export const WEEK_MS = 7 * 24 * 3600 * 1000;

/** An injectable clock in ms; one fragment for every trigger's `now` and `monotonicNow`. */
export const clockOption = z
  .custom<() => number>((v) => typeof v === 'function', { message: 'expected a function returning ms' })
  .optional();

/** The default of {@link TriggerControllerOptions.unheldRetryMs}. */
export const DEFAULT_UNHELD_RETRY_MS = 60_000;

/** The most the wait between forced rebalances for unheld partitions grows to, unless `unheldRetryMs` is longer. */
export const MAX_UNHELD_RETRY_MS = 30 * 60_000;

/** The default member-level threshold; see {@link MemberLevelOptions.threshold}. */
export const DEFAULT_MEMBER_THRESHOLD = 1.25;

const memberLevelSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    threshold: z.number().min(1).max(1000).default(DEFAULT_MEMBER_THRESHOLD),
  })
  // A zod object default is taken as is, unparsed: spell every field out.
  .default({ enabled: true, threshold: DEFAULT_MEMBER_THRESHOLD });

const triggerSchema = z
  .strictObject({
    threshold: z.number().min(1).max(1000).default(1.1),
    memberLevel: memberLevelSchema,
    minViolatedChecks: z.number().int().min(1).max(1000).default(2),
    cooldownMs: z.number().int().min(0).max(WEEK_MS).default(600_000),
    maxCooldownMs: z.number().int().min(0).max(WEEK_MS).default(7_200_000),
    defaultWeight: z.number().min(0).max(Number.MAX_SAFE_INTEGER).default(DEFAULT_PARTITION_WEIGHT),
    moveTolerance: z.number().min(0).max(1).default(DEFAULT_MOVE_TOLERANCE),
    maxMovesPerRebalance: z.number().int().min(0).optional(),
    minGainToCost: z.number().min(0).max(1_000_000).default(2),
    now: clockOption,
    monotonicNow: clockOption,
  })
  .refine((o) => o.maxCooldownMs >= o.cooldownMs, {
    message: 'expected maxCooldownMs to be at least cooldownMs',
    path: ['maxCooldownMs'],
  });

/**
 * The member-level rule of the threshold trigger: whether it also judges how members share each
 * instance's partitions, and how unevenly they may before it fires.
 */
export interface MemberLevelOptions {
  /**
   * Judge members too. A violated member level counts towards the same hysteresis streak and
   * cooldown as the instance level (one rebalance fixes both). Default true.
   */
  enabled?: boolean;
  /**
   * Fire when, in some instance, the busiest member's load ÷ the busiest member's load after
   * `balance()` re-places that instance's partitions among its members is strictly above this.
   * Default 1.25: a rebalance costs the same whichever level asks for it, but members share their
   * instance's process, so a member imbalance wastes less than an instance one, and the assignor
   * itself treats it as secondary (twice the move tolerance).
   */
  threshold?: number;
}

/** Options of {@link createThresholdTrigger}. */
export interface ThresholdTriggerOptions {
  /** Fire when current max instance load ÷ optimal max instance load is strictly above this. Default 1.1. */
  threshold?: number;
  /** The member-level rule. Default `{ enabled: true, threshold: 1.25 }`. */
  memberLevel?: MemberLevelOptions;
  /** Violated checks of one unchanged assignment needed before firing. Default 2. */
  minViolatedChecks?: number;
  /** Minimum time between two fires; also what the cooldown returns to once balanced. Default 600000 (10 min). */
  cooldownMs?: number;
  /** The most the cooldown grows to after fires that did not help. Default 7200000 (2 h). */
  maxCooldownMs?: number;
  /** Weight of partitions without a usable weight; keep it equal to the assignor's. Default 1. */
  defaultWeight?: number;
  /** Stickiness tolerance of the `balance()` the ratio is judged against; keep it the assignor's. Default 0.05. */
  moveTolerance?: number;
  /** Churn bound of that `balance()`; keep it the assignor's. Default unbounded. */
  maxMovesPerRebalance?: number | undefined;
  /**
   * A confirmed imbalance fires only when what the fire buys is at least this many times what it
   * costs (outcome `gain_below_cost` otherwise; the streak stands). Gain: the excess load removed
   * (current − planned busiest instance load) over the cooldown (at least 60 s). Cost: the group's
   * paused member-seconds in its last measured rebalance (1 s per member until one is measured)
   * times the group's load per member. 0 turns the price off: the plain threshold rule. Default 2.
   */
  minGainToCost?: number;
  /**
   * The wall clock, in ms since the epoch; only for the reported `lastFiredAt`. Default `Date.now`.
   */
  now?: () => number;
  /**
   * The clock every interval (cooldown, time since the last fire) is measured with, in ms from any
   * origin. It must never step: a wall clock stepped back an hour would hold the next fire an hour
   * longer. Default `performance.now()`; tests pass a manual clock.
   */
  monotonicNow?: () => number;
}

/** Trigger options after validation and defaults; frozen. */
export interface ResolvedThresholdTriggerOptions {
  readonly threshold: number;
  readonly memberLevel: { readonly enabled: boolean; readonly threshold: number };
  readonly minViolatedChecks: number;
  readonly cooldownMs: number;
  readonly maxCooldownMs: number;
  readonly defaultWeight: number;
  readonly moveTolerance: number;
  readonly maxMovesPerRebalance: number | undefined;
  readonly minGainToCost: number;
  readonly now: () => number;
  readonly monotonicNow: () => number;
}

/** Validates trigger options once; throws a `ConfigError` naming every bad key. */
export function resolveTriggerOptions(options: unknown): ResolvedThresholdTriggerOptions {
  const o = validateOptions(triggerSchema, options, 'ThresholdTrigger');
  return Object.freeze({
    ...o,
    memberLevel: Object.freeze({ ...o.memberLevel }),
    maxMovesPerRebalance: o.maxMovesPerRebalance,
    // Read through arrows, so a clock replaced later (by tests' spies) is the one used.
    now: o.now ?? (() => Date.now()),
    monotonicNow: o.monotonicNow ?? (() => performance.now()),
  });
}

/**
 * The controller's `trigger`: a trigger object when it has an `evaluate` key, threshold options
 * otherwise. Chosen by that key rather than by a zod union, whose error for a bad value would name
 * neither branch's problem ("Invalid input"); this way a bad threshold key is still reported as
 * `trigger.threshold` and a bad trigger object as `trigger.evaluate`.
 */
const controllerTriggerOption = z.custom<ThresholdTriggerOptions | Trigger>().check((ctx) => {
  const v: unknown = ctx.value;
  const schema = looksLikeTrigger(v) ? triggerObjectSchema : triggerSchema;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    ctx.issues.push({
      code: 'custom',
      input: v,
      message: 'expected threshold options ({ threshold, ... }) or a Trigger (an object with evaluate(observation))',
    });
    return;
  }
  const parsed = schema.safeParse(v);
  if (parsed.success) return;
  for (const issue of parsed.error.issues) {
    ctx.issues.push({ code: 'custom', input: v, path: issue.path, message: issue.message });
  }
  if (parsed.error.issues.some((i) => i.code === 'unrecognized_keys')) {
    ctx.issues.push({
      code: 'custom',
      input: v,
      message: 'a custom trigger needs an evaluate(observation) method; threshold options take only the keys above',
    });
  }
});

const controllerSchema = z
  .strictObject({
    checkIntervalMs: z.number().int().min(100).max(86_400_000).default(30_000),
    checkTimeoutMs: z.number().int().min(50).max(600_000).optional(),
    // Validated here too, so that a bad trigger key is reported with its path ("trigger.threshold").
    trigger: controllerTriggerOption.optional(),
    advise: z.boolean().default(false),
    awayProbeMs: z.number().int().min(100).max(60_000).default(2000),
    unheldRetryMs: z.number().int().min(1000).max(WEEK_MS).default(DEFAULT_UNHELD_RETRY_MS),
    sizing: z
      .strictObject({
        memberCapacity: z.number().positive().max(Number.MAX_SAFE_INTEGER).optional(),
        // No default here: a stated target and a latency SLA exclude each other (refined below).
        targetUtilization: z.number().gt(0).max(1).optional(),
        latencySla: z
          .strictObject({
            seconds: z
              .number()
              .positive()
              .max(WEEK_MS / 1000),
            quantile: z.number().gt(0).lt(1).default(DEFAULT_SLA_QUANTILE),
            variability: z.number().positive().max(100).default(DEFAULT_VARIABILITY),
          })
          .optional(),
        measured: z
          .strictObject({
            weightUnits: z.enum(['events', 'busy']),
            busyTime: z
              .custom<BusyTimeTotalsSource>(
                (v) => typeof v === 'object' && v !== null && typeof (v as { totals?: unknown }).totals === 'function',
                { message: 'expected a busy-time recorder: an object with totals()' },
              )
              .optional(),
            slots: z.number().int().min(1).max(1024).default(1),
          })
          .refine((m) => m.weightUnits !== 'events' || m.busyTime !== undefined, {
            message: "expected busyTime (the process's busy-time recorder) to derive a capacity in events/s",
            path: ['busyTime'],
          })
          .optional(),
      })
      .refine((s) => s.memberCapacity !== undefined || s.measured !== undefined, {
        message: 'expected memberCapacity, or measured to derive it from busy time',
        path: ['memberCapacity'],
      })
      .refine((s) => s.latencySla === undefined || s.targetUtilization === undefined, {
        message: 'expected targetUtilization or latencySla, not both: the SLA derives the target utilization',
        path: ['latencySla'],
      })
      .refine(
        (s) => s.latencySla === undefined || (s.memberCapacity === undefined && s.measured?.busyTime !== undefined),
        {
          message:
            "expected measured.busyTime (the process's busy-time recorder) and no memberCapacity with latencySla: " +
            'the target comes from the work a message measures, and the capacity from the same measurement',
          path: ['latencySla'],
        },
      )
      .optional(),
    lag: z.boolean().optional(),
    weights: z
      .custom<WeightSource>(isWeightSource, {
        message: 'expected a WeightSource: an object with getWeights(partitions)',
      })
      .optional(),
    logger: z
      .custom<Logger>(isLogger, { message: 'expected a pino-compatible logger (debug/info/warn/error)' })
      .optional(),
    registry: z.custom<Registry>(isRegistry, { message: 'expected a prom-client Registry' }).optional(),
  })
  .refine((o) => o.checkTimeoutMs === undefined || o.checkTimeoutMs <= o.checkIntervalMs, {
    message: 'expected checkTimeoutMs to be at most checkIntervalMs (one check at a time)',
    path: ['checkTimeoutMs'],
  });

/**
 * Options of {@link createTriggerController}. `D` is the decision of the trigger it runs:
 * {@link Evaluation} for the built-in threshold trigger.
 */
export interface TriggerControllerOptions<D extends TriggerDecision = Evaluation> {
  /** How often the group is checked. Default 30000. */
  checkIntervalMs?: number;
  /** Budget of one check (describe, weights, evaluation). Default min(10000, checkIntervalMs). */
  checkTimeoutMs?: number;
  /**
   * What decides when to rebalance. Threshold options (`{ threshold, minViolatedChecks, ... }`,
   * the default `{}`) run the threshold trigger with the assigner's `defaultWeight`,
   * `moveTolerance` and `maxMovesPerRebalance` unless given. Any {@link Trigger} object — a
   * periodic or composite trigger, or your own — runs instead; build threshold children for it with
   * `createThresholdTriggerFor(assigner, options)` so they judge with the assigner's settings too.
   */
  trigger?: ThresholdTriggerOptions | Trigger<D>;
  /** Dry run: log and count what the trigger would do, never rebalance. Default false. */
  advise?: boolean;
  /**
   * With a `staticMembership` assigner: before a fire, the group's progress is read twice this far
   * apart (ms, 100–60,000; at most half of `checkTimeoutMs`), and the fire is held (`member_away`)
   * when a member's partitions have messages waiting and none of its committed offsets moved: its
   * process is away, and a rebalance would wait for it. Default 2000.
   */
  awayProbeMs?: number;
  /**
   * Subscribed partitions that no member holds (added to a topic since the last rebalance) make
   * the coordinator force a rebalance at once, with no threshold, hysteresis or cooldown. When a
   * forced rebalance left them unheld, the next one waits this long (ms, at least 1000), then
   * twice as long after each further attempt, up to 30 min. Default 60000.
   */
  unheldRetryMs?: number;
  /**
   * Sizing: at each check the coordinator computes the fewest members and instances whose
   * placement keeps every member within `targetUtilization` (default 0.7) of the member capacity
   * (what one member processes at 100% busy, in the weights' units: events/s with offset-rate
   * weights), and whether a partition alone exceeds that, making scale-out futile. Published as
   * `load_aware_desired_members`, `load_aware_desired_instances` and `load_aware_scale_out_futile`.
   * The capacity is `memberCapacity` when stated, else derived from busy time (`measured`).
   * Default: off.
   */
  sizing?: SizingOptions;
  /**
   * Lag: at each check the coordinator reads the committed and end offsets of the held partitions
   * and publishes the group's lag in messages, in seconds behind at the current arrival rate (the
   * weights as events/s), and with `sizing` the time its slowest member needs to drain at
   * `sizing.memberCapacity` (`load_aware_group_lag_messages`, `load_aware_group_lag_seconds`,
   * `load_aware_group_drain_seconds`, ...). Needs a target that reads progress (KafkaJS consumers
   * do); without one, one WARN. Default: on with `sizing`, off without.
   */
  lag?: boolean;
  /** Where weights come from. Default: the assigner's own source, so both judge alike. */
  weights?: WeightSource;
  /** Any pino-compatible logger. Default: silent. */
  logger?: Logger;
  /** A prom-client registry for the trigger's metrics. Default: no metrics. */
  registry?: Registry;
}

/**
 * Where the sizing reads busy time: a `@load-aware/busy-time` recorder, or anything that counts
 * handler seconds and handled messages the same way.
 */
export interface BusyTimeTotalsSource {
  /** Busy seconds and handled messages so far, cumulative: the sizing divides their growth. */
  totals(): { readonly busySeconds: number; readonly messages: number };
}

/** How the sizing derives the member capacity from busy time; see {@link SizingOptions.measured}. */
export interface MeasuredCapacityOptions {
  /**
   * What the weights measure. `events`: events/s (offset rates, a records-rate query); the capacity
   * is `slots` ÷ the seconds of work per message `busyTime` measured. `busy`: busy seconds per
   * second (busy time, or its blend with offset rates); the capacity is `slots`, since a handler
   * slot is busy at most one second per second.
   */
  weightUnits: SizingWeightUnits;
  /** This process's busy-time recorder (`createBusyTimeRecorder`); required with `events`. */
  busyTime?: BusyTimeTotalsSource;
  /**
   * Handler slots of one member that run at once without slowing each other, 1–1024. Default 1.
   * KafkaJS's `partitionsConsumedConcurrently: n` gives `n` for handlers that await I/O; a
   * CPU-bound handler shares one event loop and has 1 however many KafkaJS runs.
   */
  slots?: number;
}

/** The trigger controller's `sizing` option; see {@link TriggerControllerOptions.sizing}. */
export interface SizingOptions {
  /**
   * What one member processes at 100% busy, in the weights' units (events/s with offset-rate
   * weights). When stated it is used as is, even with `measured`. Required without `measured`.
   */
  memberCapacity?: number;
  /**
   * The share of the member capacity a member of a sized group may use, in (0, 1]. Default 0.7,
   * or derived from `latencySla` when that is given (not both).
   */
  targetUtilization?: number;
  /**
   * Size for a latency SLA instead of a fixed target: at each check the target utilization is the
   * largest at which a member, a queue whose messages each cost the work busy time measured,
   * finishes `quantile` of its messages within `seconds` of their arrival (Kingman's
   * heavy-traffic approximation; see `utilizationForLatency`). Needs `measured.busyTime` and no
   * `memberCapacity`.
   */
  latencySla?: LatencySlaOptions;
  /**
   * Derive the member capacity from busy time when `memberCapacity` is not stated: over the last
   * 10 checks, the coordinator's busy seconds ÷ handled messages is the work one message costs.
   */
  measured?: MeasuredCapacityOptions;
}

/** The `sizing.latencySla` option; see {@link SizingOptions.latencySla}. */
export interface LatencySlaOptions {
  /** Seconds from a message reaching the handler's queue to the handler finishing it. */
  seconds: number;
  /** The share of messages the SLA holds for, in (0, 1). Default 0.99: the p99. */
  quantile?: number;
  /**
   * How irregular arrivals and work are: the squared coefficients of variation of the gaps between
   * messages and of a message's work, added (ca² + cs²), up to 100. Default 2: Poisson arrivals
   * and work as variable as an exponential draw. A handler of fixed cost on Poisson traffic is 1;
   * traffic that comes in bursts is above 2.
   */
  variability?: number;
}

/** What the controller's `sizing` option holds once resolved. */
export interface SizingSettings {
  /** What one member processes at 100% busy, in the weights' units, when stated. */
  readonly memberCapacity: number | undefined;
  /** The share of the member capacity a member may use, when no latency SLA derives it. */
  readonly targetUtilization: number;
  /** The latency SLA that derives the target utilization at each check, when given. */
  readonly latencySla: Readonly<Required<LatencySlaOptions>> | undefined;
  /** How to derive the capacity when it is not stated. */
  readonly measured:
    | {
        readonly weightUnits: SizingWeightUnits;
        readonly busyTime: BusyTimeTotalsSource | undefined;
        readonly slots: number;
      }
    | undefined;
}

/** Controller options after validation and defaults; frozen. */
export interface ResolvedTriggerControllerOptions {
  readonly checkIntervalMs: number;
  readonly checkTimeoutMs: number;
  /** A trigger object as given, or the threshold trigger's resolved options. */
  readonly trigger: Trigger | ResolvedThresholdTriggerOptions;
  readonly advise: boolean;
  readonly awayProbeMs: number;
  readonly unheldRetryMs: number;
  readonly sizing: SizingSettings | undefined;
  /** Measure the group's lag at each check. */
  readonly lag: boolean;
  readonly weights: WeightSource;
  readonly logger: Logger;
  readonly registry: Registry | undefined;
}

/**
 * What the controller works with: one consumer and its assigner as a {@link TriggerTarget}, which
 * both adapters build (`assigner.triggerTarget(consumer)` for KafkaJS,
 * `assigner.triggerTarget(consumer, admin)` for @platformatic/kafka).
 */
export interface TriggerControllerDeps {
  /** The consumer and assigner to watch and act through. */
  target: TriggerTarget;
}

/** What `createThresholdTriggerFor` reads: the balance() settings of a target's assigner. */
export const judgingSettingsSchema = z.custom<{ readonly assigner: JudgingSettings }>(
  (t) => {
    const a = typeof t === 'object' && t !== null ? (t as { assigner?: unknown }).assigner : undefined;
    return (
      typeof a === 'object' &&
      a !== null &&
      typeof (a as { defaultWeight?: unknown }).defaultWeight === 'number' &&
      typeof (a as { moveTolerance?: unknown }).moveTolerance === 'number'
    );
  },
  { message: "expected the consumer's trigger target (assigner.triggerTarget(...))" },
);

/** The balance() settings an assigner places with, which its trigger must judge with. */
export type JudgingSettings = Pick<TriggerAssigner, 'defaultWeight' | 'moveTolerance' | 'maxMovesPerRebalance'>;

const targetDepsSchema = z.object({ target: targetSchema });

/**
 * Threshold options with the assigner's `defaultWeight`, `moveTolerance` and
 * `maxMovesPerRebalance` wherever they are not given: the trigger must judge with the very
 * balance() settings the assignor places with. An explicit `undefined` must not hide them either.
 */
export function withAssignerSettings(
  assigner: JudgingSettings,
  options: ThresholdTriggerOptions | undefined,
): ThresholdTriggerOptions {
  const maxMoves = options?.maxMovesPerRebalance ?? assigner.maxMovesPerRebalance;
  return {
    ...options,
    defaultWeight: options?.defaultWeight ?? assigner.defaultWeight,
    moveTolerance: options?.moveTolerance ?? assigner.moveTolerance,
    ...(maxMoves === undefined ? {} : { maxMovesPerRebalance: maxMoves }),
  };
}

function isTriggerObject(value: ThresholdTriggerOptions | Trigger | undefined): value is Trigger {
  return looksLikeTrigger(value);
}

/** Validates the controller's collaborators and options once, at construction. */
export function resolveControllerOptions(
  deps: unknown,
  options: unknown,
): { target: TriggerTarget; options: ResolvedTriggerControllerOptions } {
  const { target } = validateOptions(targetDepsSchema, deps, 'createTriggerController dependencies');
  const o = validateOptions(controllerSchema, options, 'createTriggerController');
  // From the raw input: the parsed copy already carries the schema's defaults, which would hide
  // the assigner's.
  const raw = (options as { trigger?: ThresholdTriggerOptions | Trigger } | undefined)?.trigger;
  const trigger = isTriggerObject(raw) ? raw : resolveTriggerOptions(withAssignerSettings(target.assigner, raw));
  return {
    target,
    options: Object.freeze({
      checkIntervalMs: o.checkIntervalMs,
      checkTimeoutMs: o.checkTimeoutMs ?? Math.min(10_000, o.checkIntervalMs),
      trigger,
      advise: o.advise,
      awayProbeMs: o.awayProbeMs,
      unheldRetryMs: o.unheldRetryMs,
      sizing:
        o.sizing === undefined
          ? undefined
          : Object.freeze({
              memberCapacity: o.sizing.memberCapacity,
              targetUtilization: o.sizing.targetUtilization ?? DEFAULT_TARGET_UTILIZATION,
              latencySla:
                o.sizing.latencySla === undefined
                  ? undefined
                  : Object.freeze({
                      seconds: o.sizing.latencySla.seconds,
                      quantile: o.sizing.latencySla.quantile,
                      variability: o.sizing.latencySla.variability,
                    }),
              measured:
                o.sizing.measured === undefined
                  ? undefined
                  : Object.freeze({
                      weightUnits: o.sizing.measured.weightUnits,
                      busyTime: o.sizing.measured.busyTime,
                      slots: o.sizing.measured.slots,
                    }),
            }),
      lag: o.lag ?? o.sizing !== undefined,
      weights: o.weights ?? target.assigner.weights,
      logger: o.logger ?? noopLogger,
      registry: o.registry,
    }),
  };
}
