import { AssignerProtocol, type Cluster } from 'kafkajs';
import type { TopicPartition } from '../core/types.js';
import { samePartitions, type OwnedPartitions } from '../protocol/owned-partitions.js';
import { decodeAssignmentNote, type RebalanceCause } from '../protocol/rebalance-cause.js';
import type { RebalancePause } from '../protocol/user-data.js';

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
   * The JoinGroup protocols of this consumer's last successful JoinGroup (what the coordinator
   * now holds for it), unless a rebalance was signalled since, or that JoinGroup made it the
   * leader. While this is defined, a rejoin is not part of any rebalance the consumer knows of
   * (KafkaJS rejoins a Stable group when the coordinator moves): sending these exact bytes again
   * keeps the broker from rebalancing the group for it.
   */
  quietRejoinProtocols(): ReadonlyArray<{ name: string; metadata: Buffer }> | undefined;
  /** The member id of the latest JoinGroup answer. */
  memberId(): string | undefined;
  /**
   * The latest rebalance this consumer synced: its generation and cause (the leader's note, with
   * `unknown` refined to `coordinator_move` when this consumer's coordinator changed just before).
   */
  lastRebalance(): { readonly generation: number; readonly cause: RebalanceCause } | undefined;
  /** What the last rebalance cost this consumer, once measured (sent in the next userData). */
  lastPause(): RebalancePause | undefined;
  /** Records that cost; see {@link lastPause}. */
  notePause(pause: RebalancePause): void;
  /**
   * The last JoinGroup request KafkaJS sent for this consumer, with the member id the coordinator
   * gave it: what a JoinGroup sent on the consumer's behalf must repeat (see the assigner's
   * `startRebalance`). Undefined before the first answer.
   */
  lastJoinRequest(): JoinRequestFields | undefined;
}

/** The fields of a KafkaJS `broker.joinGroup()` request. */
export interface JoinRequestFields {
  readonly groupId: string;
  readonly sessionTimeout: number;
  readonly rebalanceTimeout: number;
  readonly memberId: string;
  readonly protocolType?: string | undefined;
  readonly groupProtocols: ReadonlyArray<{ name: string; metadata: Buffer }>;
}

/** Coordinator errors that mean a rebalance is under way or this member is out of it. */
const REBALANCE_SIGNALS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID']);

interface CoordinatorLike {
  joinGroup?(request: unknown): Promise<unknown>;
  syncGroup?(request: unknown): Promise<unknown>;
}

const nothingKnown: OwnAssignment = Object.freeze({
  owned: () => undefined,
  generation: () => undefined,
  quietRejoinProtocols: () => undefined,
  memberId: () => undefined,
  lastRebalance: () => undefined,
  lastPause: () => undefined,
  notePause: () => undefined,
  lastJoinRequest: () => undefined,
});

interface JoinRequest {
  readonly groupProtocols?: ReadonlyArray<{ name: string; metadata: Buffer }>;
  readonly [field: string]: unknown;
}

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
  let joined: { protocols: ReadonlyArray<{ name: string; metadata: Buffer }>; leader: boolean } | undefined;
  let rebalanceSignalled = false;
  let memberId: string | undefined;
  let lastRebalance: { generation: number; cause: RebalanceCause } | undefined;
  let lastPause: RebalancePause | undefined;
  let lastJoin: JoinRequestFields | undefined;
  // The coordinator's node at the last SyncGroup, and whether it changed since.
  let syncedNode: unknown;
  let currentNode: unknown;

  const noteError = (err: unknown): void => {
    const type = (err as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && REBALANCE_SIGNALS.has(type)) rebalanceSignalled = true;
  };

  const joinGroup = async (base: CoordinatorLike, request: JoinRequest): Promise<unknown> => {
    const answer = (await base.joinGroup!(request)) as {
      generationId?: unknown;
      memberId?: unknown;
      leaderId?: unknown;
    };
    if (typeof answer.generationId === 'number') generation = answer.generationId;
    if (typeof answer.memberId === 'string') memberId = answer.memberId;
    if (Array.isArray(request.groupProtocols)) {
      joined = { protocols: request.groupProtocols, leader: answer.leaderId === answer.memberId };
      rebalanceSignalled = false;
      const { groupId, sessionTimeout, rebalanceTimeout, protocolType } = request;
      if (typeof groupId === 'string' && typeof sessionTimeout === 'number' && typeof rebalanceTimeout === 'number') {
        lastJoin = {
          groupId,
          sessionTimeout,
          rebalanceTimeout,
          memberId: typeof answer.memberId === 'string' ? answer.memberId : '',
          protocolType: typeof protocolType === 'string' ? protocolType : undefined,
          groupProtocols: request.groupProtocols,
        };
      }
    }
    return answer;
  };

  const syncGroup = async (base: CoordinatorLike, request: { generationId?: unknown }): Promise<unknown> => {
    const answer = await base.syncGroup!(request);
    const received = decodeOwn(answer);
    if (typeof request.generationId === 'number') {
      const note = decodeAssignmentNote(assignmentUserData(answer));
      const moved = syncedNode !== undefined && currentNode !== syncedNode;
      const cause = note ?? 'unknown';
      lastRebalance = {
        generation: request.generationId,
        cause: cause === 'unknown' && moved ? 'coordinator_move' : cause,
      };
      syncedNode = currentNode;
    }
    if (received !== undefined && typeof request.generationId === 'number') {
      // Keep the generation of the last *change*, so unchanged userData stays identical.
      if (owned === undefined || !samePartitions(owned.partitions, received)) {
        owned = { generation: request.generationId, partitions: received };
      }
    }
    return answer;
  };

  const observe = (broker: CoordinatorLike): CoordinatorLike =>
    new Proxy(broker, {
      get(base, key) {
        const value = Reflect.get(base, key, base) as unknown;
        if (typeof value !== 'function') return value;
        // Bound to the real broker: its methods keep state on `this` that every user shares.
        const call =
          key === 'joinGroup'
            ? (request: JoinRequest) => joinGroup(base, request)
            : key === 'syncGroup'
              ? (request: { generationId?: unknown }) => syncGroup(base, request)
              : (value as (...a: unknown[]) => unknown).bind(base);
        return (...args: unknown[]): unknown => {
          const out = (call as (...a: unknown[]) => unknown)(...args);
          // Heartbeats, commits and syncs are where a rebalance shows; the caller still gets the error.
          if (out instanceof Promise) out.catch(noteError);
          return out;
        };
      },
    });

  target.findGroupCoordinator = async (...args: Parameters<Cluster['findGroupCoordinator']>) => {
    const broker: unknown = await find.apply(cluster, args);
    if (broker === null || typeof broker !== 'object') return broker as never;
    currentNode = (broker as { nodeId?: unknown }).nodeId;
    return observe(broker) as never;
  };
  target.disconnect = () => {
    owned = undefined;
    generation = undefined;
    joined = undefined;
    rebalanceSignalled = false;
    memberId = undefined;
    lastRebalance = undefined;
    lastPause = undefined;
    lastJoin = undefined;
    return disconnect.call(cluster);
  };
  return {
    owned: () => owned,
    generation: () => generation,
    memberId: () => memberId,
    lastRebalance: () => lastRebalance,
    lastPause: () => lastPause,
    notePause: (pause) => {
      lastPause = pause;
    },
    lastJoinRequest: () => lastJoin,
    // A leader's JoinGroup rebalances the group whatever it carries, so it may as well be current.
    quietRejoinProtocols: () => (rebalanceSignalled || joined?.leader !== false ? undefined : joined.protocols),
  };
}

/** The userData of the assignment in a SyncGroup answer (where the leader's note is), if any. */
function assignmentUserData(answer: unknown): Buffer | undefined {
  const bytes = (answer as { memberAssignment?: unknown } | null)?.memberAssignment;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) return undefined;
  try {
    const userData = (AssignerProtocol.MemberAssignment.decode(bytes) as { userData?: unknown } | null)?.userData;
    return Buffer.isBuffer(userData) ? userData : undefined;
  } catch {
    return undefined;
  }
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
