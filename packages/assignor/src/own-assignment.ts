import { AssignerProtocol, type Cluster } from 'kafkajs';
import type { TopicPartition } from './core/types.js';
import type { OwnedPartitions } from './owned-partitions.js';

/**
 * What one KafkaJS consumer knows about its own membership, learnt without any user code: the
 * assigner factory receives the consumer's own `cluster`, and KafkaJS fetches the group
 * coordinator through `cluster.findGroupCoordinator()` right before every JoinGroup, then sends
 * JoinGroup and SyncGroup through the broker object it got back. Handing back a view of that
 * broker whose `joinGroup`/`syncGroup` report their answers lets the consumer learn its
 * generation and the partitions it was given, which it then reports in its next JoinGroup.
 */
export interface OwnAssignment {
  /** The partitions this consumer owns, with the generation in which that set last changed. */
  owned(): OwnedPartitions | undefined;
  /** The generation of the consumer's latest JoinGroup answer (the one `assign()` computes for). */
  generation(): number | undefined;
  /**
   * True when the coordinator this JoinGroup goes to is not the one the consumer last joined
   * through: KafkaJS is rejoining because the coordinator moved, not because of a rebalance.
   */
  coordinatorMoved(): boolean;
}

interface CoordinatorLike {
  readonly nodeId?: unknown;
  joinGroup?(request: unknown): Promise<unknown>;
  syncGroup?(request: unknown): Promise<unknown>;
}

const nothingKnown: OwnAssignment = Object.freeze({
  owned: () => undefined,
  generation: () => undefined,
  coordinatorMoved: () => false,
});

/**
 * Wraps one consumer's cluster so that its own JoinGroup/SyncGroup answers are observed. A
 * cluster without `findGroupCoordinator` (a test fake, a future KafkaJS) gets a view that knows
 * nothing, which only costs stickiness across leader changes. A stopped consumer owns nothing.
 */
export function observeOwnAssignment(cluster: Cluster): OwnAssignment {
  const target = cluster as Partial<Cluster>;
  const { findGroupCoordinator: find, disconnect } = target;
  if (typeof find !== 'function' || typeof disconnect !== 'function') return nothingKnown;

  let owned: OwnedPartitions | undefined;
  let generation: number | undefined;
  let coordinatorNode: unknown;
  let joinedThrough: unknown;

  const observe = (broker: CoordinatorLike): CoordinatorLike =>
    new Proxy(broker, {
      get(base, key) {
        if (key === 'joinGroup' && typeof base.joinGroup === 'function') {
          return async (request: unknown) => {
            const answer = await base.joinGroup!(request);
            const g = (answer as { generationId?: unknown } | null)?.generationId;
            if (typeof g === 'number') generation = g;
            return answer;
          };
        }
        if (key === 'syncGroup' && typeof base.syncGroup === 'function') {
          return async (request: { generationId?: unknown }) => {
            const answer = await base.syncGroup!(request);
            const received = decodeOwn(answer);
            if (received !== undefined && typeof request.generationId === 'number') {
              // Keep the generation of the last *change*, so unchanged userData stays identical.
              if (owned === undefined || !samePartitions(owned.partitions, received)) {
                owned = { generation: request.generationId, partitions: received };
              }
              joinedThrough = base.nodeId;
            }
            return answer;
          };
        }
        const value = Reflect.get(base, key, base) as unknown;
        // Bound to the real broker: its methods keep state on `this` that every user shares.
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(base) : value;
      },
    });

  target.findGroupCoordinator = async (...args: Parameters<Cluster['findGroupCoordinator']>) => {
    const broker: unknown = await find.apply(cluster, args);
    if (broker === null || typeof broker !== 'object') return broker as never;
    coordinatorNode = (broker as CoordinatorLike).nodeId;
    return observe(broker) as never;
  };
  target.disconnect = () => {
    owned = undefined;
    generation = undefined;
    joinedThrough = undefined;
    return disconnect.call(cluster);
  };
  return {
    owned: () => owned,
    generation: () => generation,
    coordinatorMoved: () => joinedThrough !== undefined && coordinatorNode !== joinedThrough,
  };
}

/** The partitions in a SyncGroup answer, or undefined when it cannot be read. */
function decodeOwn(answer: unknown): TopicPartition[] | undefined {
  const bytes = (answer as { memberAssignment?: unknown } | null)?.memberAssignment;
  if (!Buffer.isBuffer(bytes)) return undefined;
  try {
    // An empty buffer is how the coordinator says "nothing for you" (KafkaJS decodes it to null).
    const decoded = bytes.length === 0 ? null : AssignerProtocol.MemberAssignment.decode(bytes);
    const assignment = (decoded?.assignment ?? {}) as Record<string, unknown>;
    const partitions: TopicPartition[] = [];
    for (const [topic, list] of Object.entries(assignment)) {
      if (!Array.isArray(list)) continue;
      for (const partition of list) if (typeof partition === 'number') partitions.push({ topic, partition });
    }
    return partitions;
  } catch {
    return undefined;
  }
}

function samePartitions(a: ReadonlyArray<TopicPartition>, b: ReadonlyArray<TopicPartition>): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((p) => `${p.topic}\u0000${String(p.partition)}`));
  return b.every((p) => keys.has(`${p.topic}\u0000${String(p.partition)}`));
}
