import { z } from 'zod';
import type { Registry } from 'prom-client';
import { validateOptions } from '../base/validate.js';
import { findUnsafeLogChar } from '../base/log-text.js';
import { isLogger, noopLogger, type Logger } from '../base/logger.js';
import { MAX_INSTANCE_ID_BYTES } from '../protocol/user-data.js';
import { createUniformWeightSource, isWeightSource, type WeightSource } from '../inputs/weight-source.js';
import { processInstanceId } from '../protocol/instance-id.js';
import { DEFAULT_MOVE_TOLERANCE, DEFAULT_ORPHAN_AIM } from '../core/model/tuning.js';
import { MAX_CAPACITY, MIN_CAPACITY } from '../core/model/capacity.js';
import type { CrossGroupSettings } from '../inputs/sibling-groups.js';

/** True for anything usable as a prom-client `Registry`. */
export function isRegistry(value: unknown): value is Registry {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['registerMetric'] === 'function' && typeof r['getSingleMetric'] === 'function';
}

/** Most groups one cross-group set may name: each is described at every assignment. */
export const MAX_CROSS_GROUPS = 50;
/** Default of `crossGroup.maxStaleMs`: long enough to cover a sibling's rebalance during a deploy. */
export const DEFAULT_MAX_STALE_MS = 120_000;
/** Default of `crossGroup.turnMs`. */
export const DEFAULT_TURN_MS = 60_000;

/**
 * A name every member's logs carry and userData transports (the instance id, the rack): 1–255
 * UTF-8 bytes, and no character that could break or reorder a log line.
 */
function idText() {
  return z
    .string()
    .min(1)
    .refine((id) => Buffer.byteLength(id, 'utf8') <= MAX_INSTANCE_ID_BYTES, {
      message: `expected at most ${String(MAX_INSTANCE_ID_BYTES)} UTF-8 bytes`,
    })
    .superRefine((id, ctx) => {
      const bad = findUnsafeLogChar(id);
      if (bad === undefined) return;
      const code = `U+${bad.char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      ctx.addIssue({
        code: 'custom',
        message: `must not contain a control or bidirectional-formatting character (${code} at index ${String(bad.index)})`,
      });
    });
}

/**
 * The option schema of `LoadAwareAssigner`, before the cross-field checks. Exported (through
 * `./portable`) so that adapters for other clients derive theirs from it (`omit`, `extend`) and
 * validate the shared keys with the very same rules and messages.
 */
export const assignerOptionsSchema = z.strictObject({
  weights: z
    .custom<WeightSource>(isWeightSource, { message: 'expected a WeightSource: an object with getWeights(partitions)' })
    .optional(),
  instanceId: idText().optional(),
  rack: idText().optional(),
  replicaRacks: z.enum(['all', 'leader']).default('all'),
  capacity: z
    .number()
    .min(MIN_CAPACITY, { message: `expected a capacity from ${String(MIN_CAPACITY)} to ${String(MAX_CAPACITY)}` })
    .max(MAX_CAPACITY, { message: `expected a capacity from ${String(MIN_CAPACITY)} to ${String(MAX_CAPACITY)}` })
    .default(1),
  logger: z
    .custom<Logger>(isLogger, { message: 'expected a pino-compatible logger (debug/info/warn/error)' })
    .optional(),
  registry: z.custom<Registry>(isRegistry, { message: 'expected a prom-client Registry' }).optional(),
  weightsTimeoutMs: z.number().int().positive().max(600_000).default(5000),
  defaultWeight: z.number().min(0).max(Number.MAX_SAFE_INTEGER).default(1),
  moveTolerance: z.number().min(0).max(1).default(DEFAULT_MOVE_TOLERANCE),
  orphanAim: z.number().min(0).max(1).default(DEFAULT_ORPHAN_AIM),
  maxMovesPerRebalance: z.number().int().min(0).optional(),
  crossGroup: z
    .strictObject({
      groups: z.array(z.string().min(1)).min(1).max(MAX_CROSS_GROUPS),
      maxStaleMs: z.number().int().min(0).max(3_600_000).default(DEFAULT_MAX_STALE_MS),
      turnMs: z.number().int().min(1000).max(86_400_000).default(DEFAULT_TURN_MS),
    })
    .optional(),
  staticMembership: z.boolean().default(false),
  leaveOnDisconnect: z.boolean().default(false),
});

/** Static membership needs an id that survives restarts: a random per-process one cannot. */
const checkedSchema = assignerOptionsSchema.superRefine((o, ctx) => {
  if (o.staticMembership && o.instanceId === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['instanceId'],
      message:
        'required with staticMembership: true (a random id per process cannot be static; pass a name ' +
        'that survives restarts, such as the pod name of a StatefulSet)',
    });
  }
});

/**
 * The `crossGroup` option: the consumer groups whose members run on the same instances as this
 * one, so that their load counts when this group is balanced.
 */
export interface CrossGroupOptions {
  /**
   * Every group of the set (1–50 ids). The same list can go to every group's assigner, or to one
   * assigner shared by all of them: each group skips its own id. The leader reads the other groups
   * (DescribeGroups) at each assignment and balances its own on top of what their members on each
   * instance hold, weighed by this assigner's weight source.
   */
  groups: string[];
  /**
   * How long a group's last Stable reading stands in for it while it rebalances or cannot be read
   * (ms, 0–3,600,000). Older, the group is left out with a WARN. Default 120,000.
   */
  maxStaleMs?: number;
  /**
   * Proactive rebalances of the set take turns of this length (ms, 1,000–86,400,000): the trigger of
   * a group fires only in the first half of its own turn, so two groups never correct at once and
   * each judges the other's result. Use the same value on every group. Default 60,000.
   */
  turnMs?: number;
}

/**
 * Options of {@link LoadAwareAssigner}.
 */
export interface LoadAwareAssignerOptions {
  /** Where partition weights come from. Default: every partition weighs 1 (balance by count). */
  weights?: WeightSource;
  /**
   * This process's instance id: 1–255 UTF-8 bytes, no control, line-separator or bidi-formatting
   * characters. Default: one random id per process, shared by all its consumers.
   */
  instanceId?: string;
  /**
   * The rack (availability zone) this process runs in: pass the same value as the KafkaJS
   * consumer's `rackId`. The leader then prefers to give this instance partitions with a replica
   * in its rack, as far as that costs no balance (see docs/racks.md). The same rules as
   * `instanceId`. Default: none, this instance has no rack preference.
   */
  rack?: string;
  /**
   * Which replicas make a partition local to a rack: `'all'` (default) every replica, as Kafka's
   * rack-aware assignors count them, for consumers that fetch from the closest replica (KIP-392:
   * the consumer's `rackId` and the brokers' `replica.selector.class` set); `'leader'` only the
   * leader's broker, for clusters without follower fetching, where every fetch goes to the leader.
   */
  replicaRacks?: 'all' | 'leader';
  /**
   * This instance's relative capacity (e.g. cores); load is balanced per unit of capacity.
   * 0.001 to 1e6; the leader also bounds each instance's capacity to within 1000x of the group's
   * median, with a WARN. Default 1.
   */
  capacity?: number;
  /** Any pino-compatible logger. Default: silent. */
  logger?: Logger;
  /** A prom-client registry to register the assignor's metrics on. Default: no metrics. */
  registry?: Registry;
  /** How long an assignment waits for weights before falling back to round-robin. Default 5000. */
  weightsTimeoutMs?: number;
  /** Weight given to partitions the source does not know (counted as defaulted). Default 1. */
  defaultWeight?: number;
  /**
   * How much better a new placement must be before partitions leave their current owner, as a
   * fraction of the max instance load (0–1). The leader keeps the assignment it computed last
   * while that stays within this of the best placement it finds. Default 0.05.
   */
  moveTolerance?: number;
  /**
   * After a rebalance places partitions whose member left (or new ones), where the busiest
   * instance is brought: this share of `moveTolerance` above the best placement found (0–1).
   * Moves spent on it are capped at the orphaned partitions' own weight. Lower leaves more
   * headroom before the next drift; higher moves less after a leave. Default 0.25.
   */
  orphanAim?: number;
  /**
   * Most partitions that may leave a still-present owner in one rebalance; partitions whose owner
   * left always move and do not count. Default: unbounded.
   */
  maxMovesPerRebalance?: number;
  /**
   * Balance this group together with other consumer groups of the same instances (see
   * {@link CrossGroupOptions}). Default: off, the group is balanced on its own.
   */
  crossGroup?: CrossGroupOptions;
  /**
   * Static membership (KIP-345) for every consumer using this assigner: each joins with a group
   * instance id derived from `instanceId` (required then), so a restarted process takes its
   * members' places back within `sessionTimeout` with no rebalance. `disconnect()` then sends no
   * LeaveGroup (see `leaveOnDisconnect`). Default false.
   */
  staticMembership?: boolean;
  /**
   * With `staticMembership`: send LeaveGroup on `disconnect()`, so the group rebalances at once
   * (a scale-down). Can also be switched on at run time with the assigner's `leaveOnDisconnect()`.
   * Without static membership KafkaJS always leaves. Default false.
   */
  leaveOnDisconnect?: boolean;
}

/** Options after validation and defaults; frozen. */
export interface ResolvedLoadAwareAssignerOptions {
  readonly weights: WeightSource;
  readonly instanceId: string;
  /** Undefined: no rack configured. */
  readonly rack: string | undefined;
  readonly replicaRacks: 'all' | 'leader';
  readonly capacity: number;
  readonly logger: Logger;
  readonly registry: Registry | undefined;
  readonly weightsTimeoutMs: number;
  readonly defaultWeight: number;
  readonly moveTolerance: number;
  readonly orphanAim: number;
  /** Undefined: unbounded. */
  readonly maxMovesPerRebalance: number | undefined;
  /** Undefined: cross-group balancing is off. */
  readonly crossGroup: CrossGroupSettings | undefined;
  readonly staticMembership: boolean;
  readonly leaveOnDisconnect: boolean;
}

/** Validates options once, at construction; throws {@link ConfigError} naming every bad key. */
export function resolveOptions(options: unknown): ResolvedLoadAwareAssignerOptions {
  return resolveParsedOptions(validateOptions(checkedSchema, options, 'LoadAwareAssigner'));
}

/**
 * Fills in the defaults that depend on the process (uniform weights, the process instance id, the
 * silent logger) and freezes the result. Takes what {@link assignerOptionsSchema} (or a schema
 * derived from it) parsed; keys such a schema left out take their off value.
 */
export function resolveParsedOptions(
  o: Omit<
    z.output<typeof assignerOptionsSchema>,
    'crossGroup' | 'staticMembership' | 'leaveOnDisconnect' | 'rack' | 'replicaRacks'
  > &
    Partial<
      Pick<
        z.output<typeof assignerOptionsSchema>,
        'crossGroup' | 'staticMembership' | 'leaveOnDisconnect' | 'rack' | 'replicaRacks'
      >
    >,
): ResolvedLoadAwareAssignerOptions {
  return Object.freeze({
    weights: o.weights ?? createUniformWeightSource(),
    instanceId: o.instanceId ?? processInstanceId,
    rack: o.rack,
    replicaRacks: o.replicaRacks ?? 'all',
    capacity: o.capacity,
    logger: o.logger ?? noopLogger,
    registry: o.registry,
    weightsTimeoutMs: o.weightsTimeoutMs,
    defaultWeight: o.defaultWeight,
    moveTolerance: o.moveTolerance,
    orphanAim: o.orphanAim,
    maxMovesPerRebalance: o.maxMovesPerRebalance,
    crossGroup:
      o.crossGroup === undefined
        ? undefined
        : Object.freeze({
            groups: Object.freeze([...new Set(o.crossGroup.groups)].sort()),
            maxStaleMs: o.crossGroup.maxStaleMs,
            turnMs: o.crossGroup.turnMs,
          }),
    staticMembership: o.staticMembership ?? false,
    leaveOnDisconnect: o.leaveOnDisconnect ?? false,
  });
}
