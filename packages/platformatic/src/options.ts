import { z } from 'zod';
import {
  assignerOptionsSchema,
  resolveParsedOptions,
  validateOptions,
  type LoadAwareAssignerOptions,
  type ResolvedLoadAwareAssignerOptions,
} from '@load-aware/assignor/portable';

/** Default of `weightsRefreshMs`. */
export const DEFAULT_WEIGHTS_REFRESH_MS = 30_000;
/** Default of `maxWeightsAgeMs`. */
export const DEFAULT_MAX_WEIGHTS_AGE_MS = 120_000;

/**
 * The KafkaJS assigner's schema with what has no meaning here taken out (the static membership
 * switches: platformatic consumers take `groupInstanceId` themselves, and the trigger reads it
 * from the consumer), plus the keys only a synchronous assigner needs. The shared keys keep their
 * rules and messages.
 */
const schema = assignerOptionsSchema.omit({ staticMembership: true, leaveOnDisconnect: true }).extend({
  mode: z.enum(['eager', 'cooperative']).default('eager'),
  weightsRefreshMs: z.number().int().min(0).max(3_600_000).default(DEFAULT_WEIGHTS_REFRESH_MS),
  maxWeightsAgeMs: z.number().int().min(1000).max(86_400_000).default(DEFAULT_MAX_WEIGHTS_AGE_MS),
});

/**
 * Options of {@link LoadAwareAssigner}: those of the KafkaJS `LoadAwareAssigner` that mean
 * the same here (documented there, and validated by the same rules), plus the keys below.
 * `weightsTimeoutMs` bounds each weight refresh (at a join and in the background); a refresh that
 * takes longer leaves the previous snapshot in place. `crossGroup` needs an `Admin` to read the
 * sibling groups with: `attach(consumer, { admin })` (or `triggerTarget(consumer, admin)`).
 */
export interface PlatformaticAssignerOptions extends Pick<
  LoadAwareAssignerOptions,
  | 'weights'
  | 'instanceId'
  | 'rack'
  | 'replicaRacks'
  | 'capacity'
  | 'logger'
  | 'registry'
  | 'weightsTimeoutMs'
  | 'defaultWeight'
  | 'moveTolerance'
  | 'orphanAim'
  | 'maxMovesPerRebalance'
  | 'crossGroup'
> {
  /**
   * `'eager'` (default): the `LoadAwareAssigner` protocol, the one KafkaJS members with
   * `@load-aware/assignor` speak, so both clients can share a group. `'cooperative'`: offers
   * `cooperative-sticky` first, the protocol platformatic rebalances incrementally, and follows
   * Kafka's two-round cooperative contract; `LoadAwareAssigner` stays second, so the group keeps
   * forming (eagerly) while members of the eager kind remain. See docs/platformatic.md.
   */
  mode?: 'eager' | 'cooperative';
  /**
   * How often (ms) the weight snapshot is refreshed in the background, besides at each join; 0
   * turns the background refresh off. Default 30,000.
   */
  weightsRefreshMs?: number;
  /**
   * The oldest weight snapshot (ms) an assignment still uses; older, or none at all, and it falls
   * back to round-robin as the KafkaJS assigner does when its source fails. Default 120,000.
   */
  maxWeightsAgeMs?: number;
}

/** Options after validation and defaults; frozen. */
export interface ResolvedPlatformaticAssignerOptions {
  /** The options every placement reads, resolved as the KafkaJS assigner resolves them. */
  readonly placement: ResolvedLoadAwareAssignerOptions;
  readonly mode: 'eager' | 'cooperative';
  readonly weightsRefreshMs: number;
  readonly maxWeightsAgeMs: number;
}

/** Validates options once, at construction; throws a `ConfigError` naming every bad key. */
export function resolvePlatformaticOptions(options: unknown): ResolvedPlatformaticAssignerOptions {
  const { mode, weightsRefreshMs, maxWeightsAgeMs, ...shared } = validateOptions(schema, options, 'LoadAwareAssigner');
  return Object.freeze({ placement: resolveParsedOptions(shared), mode, weightsRefreshMs, maxWeightsAgeMs });
}
