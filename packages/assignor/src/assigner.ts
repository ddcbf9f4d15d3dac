import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';
import { assignGroup } from './assign.js';
import { createAssignmentMemory } from './assignment-memory.js';
import { createAssignorMetrics } from './metrics.js';
import { resolveOptions, type LoadAwareAssignerOptions } from './options.js';
import { createRejoinSwitchboard } from './rejoin.js';
import { encodeUserData } from './user-data.js';
import type { WeightSource } from './weight-source.js';

/** The protocol name members advertise in JoinGroup; all members must share it to use it. */
export const ASSIGNER_NAME = 'LoadAwareAssigner';

/** How many member ids the "warn once" memory holds before it starts over. */
const WARNED_MEMBERS_LIMIT = 10_000;

/** A KafkaJS `PartitionAssigner` with a handle on this process's load-aware identity. */
export interface LoadAwarePartitionAssigner extends PartitionAssigner {
  /** The instance id every consumer using this assigner advertises. */
  readonly instanceId: string;
  /** The rebalance epoch currently advertised in userData. */
  readonly epoch: number;
  /**
   * Advances the epoch. The next JoinGroup of a consumer using this assigner carries changed
   * metadata, which makes the broker rebalance the whole group (used by the trigger).
   */
  bumpEpoch(): number;
  /** The weight source assignments use, so that the trigger judges with the very same weights. */
  readonly weights: WeightSource;
  /** The weight given to partitions without a usable weight (counted as defaulted). */
  readonly defaultWeight: number;
  /** The stickiness tolerance `balance()` runs with, so the trigger judges with the same one. */
  readonly moveTolerance: number;
  /** The churn bound `balance()` runs with (undefined: unbounded). */
  readonly maxMovesPerRebalance: number | undefined;
  /**
   * Makes every joined consumer of `groupId` that uses this assigner re-send JoinGroup once, from
   * its fetch loop (within about `maxWaitTimeInMs`). After {@link bumpEpoch} that JoinGroup
   * carries changed metadata, so the broker rebalances the whole group, whether or not this
   * member is the leader. Returns how many consumers were asked (0 when none is in a group).
   */
  requestRejoin(groupId: string): number;
}

/**
 * Creates the load-aware partition assigner for KafkaJS. Register it first in
 * `partitionAssigners` and keep KafkaJS's round-robin after it, so the group still forms while
 * some members run an older version.
 *
 * Options are validated here, once: a bad key throws a `ConfigError` naming it.
 *
 * @example
 * ```ts
 * import { Kafka, PartitionAssigners } from 'kafkajs';
 * import { LoadAwareAssigner } from '@load-aware/assignor';
 *
 * const consumer = new Kafka({ brokers: ['localhost:9092'] }).consumer({
 *   groupId: 'orders',
 *   partitionAssigners: [LoadAwareAssigner({ weights: mySource }), PartitionAssigners.roundRobin],
 * });
 * ```
 */
export function LoadAwareAssigner(options: LoadAwareAssignerOptions = {}): LoadAwarePartitionAssigner {
  const resolved = resolveOptions(options);
  const metrics = createAssignorMetrics(resolved.registry);
  // Shared by every consumer of this assigner, so leadership moving between them keeps it.
  const memory = createAssignmentMemory();
  let epoch = 0;
  const warned = new Set<string>();
  const warnOnce = (memberId: string): boolean => {
    if (warned.has(memberId)) return false;
    // Member ids change on every restart; start over rather than grow without bound.
    if (warned.size >= WARNED_MEMBERS_LIMIT) warned.clear();
    warned.add(memberId);
    return true;
  };

  const rejoins = createRejoinSwitchboard();

  const factory: PartitionAssigner = ({ cluster, groupId }) => {
    const rejoin = rejoins.install(cluster, groupId);
    return {
      name: ASSIGNER_NAME,
      version: 0,
      protocol({ topics }) {
        rejoin.joining();
        const userData = encodeUserData({ instanceId: resolved.instanceId, capacity: resolved.capacity, epoch });
        return {
          name: ASSIGNER_NAME,
          metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData }),
        };
      },
      assign: (group) => assignGroup({ cluster, groupId, options: resolved, metrics, warnOnce, memory }, group),
    };
  };

  return Object.defineProperties(factory, {
    instanceId: { value: resolved.instanceId, enumerable: true },
    epoch: { get: () => epoch, enumerable: true },
    bumpEpoch: {
      value: (): number => {
        epoch = (epoch + 1) % 0x1_0000_0000;
        return epoch;
      },
    },
    weights: { value: resolved.weights, enumerable: true },
    defaultWeight: { value: resolved.defaultWeight, enumerable: true },
    moveTolerance: { value: resolved.moveTolerance, enumerable: true },
    maxMovesPerRebalance: { value: resolved.maxMovesPerRebalance, enumerable: true },
    requestRejoin: { value: (groupId: string): number => rejoins.request(groupId) },
  }) as LoadAwarePartitionAssigner;
}
