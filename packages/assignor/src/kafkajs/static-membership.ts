import type { Cluster } from 'kafkajs';
import { StaticMemberFencedError, StaticMembershipUnsupportedError } from '../errors/errors.js';
import { claimPlace, groupInstanceIdOf, type ConsumerPlace } from '../member/group-instance-id.js';
import { loadWire, STATIC_MEMBERSHIP_VERSIONS, type GroupApi, type KafkaWire, type WireBroker } from './wire.js';

/**
 * Static membership (KIP-345) for one KafkaJS consumer, through the coordinator view
 * (docs/deploys.md). KafkaJS fetches the group coordinator with `cluster.findGroupCoordinator()`
 * before every JoinGroup and sends JoinGroup, SyncGroup, Heartbeat and LeaveGroup through the
 * broker object it got back. The view hands KafkaJS a broker whose four group calls carry this
 * consumer's group instance id. Everything else passes through untouched.
 *
 * Three rules keep a deploy free of rebalances and two processes from fighting over one id:
 * - **No LeaveGroup on disconnect** (unless asked for: a scale-down). KafkaJS leaves on every
 *   `disconnect()` and crash; a static member that leaves rebalances the group, which is what
 *   static membership is there to avoid. The broker keeps its place for `sessionTimeout`.
 * - **Rejoin under the last member id.** After UNKNOWN_MEMBER_ID (an offset commit, which KafkaJS
 *   sends without the instance id, answers that once another process took the id), KafkaJS
 *   rejoins with an empty member id; for a static member that would take the place back from the
 *   other process, which would then do the same. The view sends the last member id the
 *   coordinator gave this consumer instead, so the broker answers FENCED_INSTANCE_ID when the place
 *   is taken, and UNKNOWN_MEMBER_ID when it expired (then the next join asks for a new one).
 * - **Fenced is final.** The first FENCED_INSTANCE_ID is logged once and every later JoinGroup
 *   fails at once with a non-retriable error, so KafkaJS stops the consumer instead of looping.
 */

/** What a static consumer needs from the assigner that installs it. */
export interface StaticMembershipContext {
  readonly instanceId: string;
  readonly groupId: string;
  /** Read at every LeaveGroup: false skips it (a deploy), true sends it (a scale-down). */
  leaveOnDisconnect(): boolean;
  /** Called once, on the first FENCED_INSTANCE_ID. */
  fenced(error: StaticMemberFencedError): void;
}

/** One consumer's static identity, as the assigner reports it. */
export interface StaticMember {
  /** The group instance id this consumer joins with. */
  readonly groupInstanceId: string;
  /** True once another process took this consumer's group instance id. */
  readonly isFenced: boolean;
}

type Call = (request?: Record<string, unknown>) => Promise<unknown>;

/** Errors whose `type` field is the Kafka error name, as KafkaJS's protocol errors are. */
function typeOf(err: unknown): unknown {
  return (err as { type?: unknown } | null)?.type;
}

/**
 * Installs static membership on one consumer's cluster. Throws
 * {@link StaticMembershipUnsupportedError} when the installed KafkaJS lacks what it needs, so the
 * misconfiguration shows when the consumer is created, not at its first join.
 */
export function installStaticMembership(cluster: Cluster, context: StaticMembershipContext): StaticMember {
  const wire = loadWire();
  const target = cluster as Partial<Cluster>;
  const { findGroupCoordinator: find, connect, disconnect } = target;
  if (
    wire === undefined ||
    typeof find !== 'function' ||
    typeof connect !== 'function' ||
    typeof disconnect !== 'function'
  ) {
    throw new StaticMembershipUnsupportedError('this KafkaJS is not 2.2.x: its group requests cannot carry an id');
  }
  const place: ConsumerPlace = claimPlace(context.instanceId, context.groupId);
  const groupInstanceId = (): string => groupInstanceIdOf(context.instanceId, place.ordinal);
  let lastMemberId: string | undefined;
  let fencedBy: StaticMemberFencedError | undefined;
  // Referenced by the cluster's wrapped methods below (through `fence`, which every group request
  // can reach), so it lives exactly as long as the consumer does: the assigner holds it weakly.
  const member: StaticMember = {
    get groupInstanceId() {
      return groupInstanceId();
    },
    get isFenced() {
      return fencedBy !== undefined;
    },
  };

  const fence = (cause: unknown): StaticMemberFencedError => {
    if (fencedBy === undefined) {
      fencedBy = new StaticMemberFencedError(context.groupId, member.groupInstanceId, { cause });
      context.fenced(fencedBy);
    }
    return fencedBy;
  };

  const send = async (broker: WireBroker, api: GroupApi, fields: Record<string, unknown>): Promise<unknown> => {
    requireVersion(wire, broker, api);
    try {
      return await wire.send(broker, wire.build(broker, api, { ...fields, groupInstanceId: groupInstanceId() }));
    } catch (err) {
      if (typeOf(err) === 'FENCED_INSTANCE_ID') throw fence(err);
      throw err;
    }
  };

  const joinGroup = async (broker: WireBroker, request: Record<string, unknown>): Promise<unknown> => {
    if (fencedBy !== undefined) throw fencedBy;
    const given = typeof request['memberId'] === 'string' ? request['memberId'] : '';
    const memberId = given !== '' ? given : (lastMemberId ?? '');
    const fields = { ...request, protocolType: request['protocolType'] ?? 'consumer', memberId };
    let answer: unknown;
    try {
      answer = await send(broker, 'JoinGroup', fields);
    } catch (err) {
      // The broker no longer knows the id (the session expired): the next join asks for a new one.
      if (typeOf(err) === 'UNKNOWN_MEMBER_ID' && memberId === lastMemberId) lastMemberId = undefined;
      // KIP-394's extra round trip is for dynamic members only: a static join never needs it, so
      // it is an error here rather than a retry that could repeat.
      if ((err as { name?: unknown } | null)?.name === 'KafkaJSMemberIdRequired') {
        throw new StaticMembershipUnsupportedError('the broker asked a static member for a member id round trip');
      }
      throw err;
    }
    const id = (answer as { memberId?: unknown } | null)?.memberId;
    if (typeof id === 'string' && id !== '') lastMemberId = id;
    return answer;
  };

  const leaveGroup = async (broker: WireBroker, request: Record<string, unknown>): Promise<unknown> => {
    if (!context.leaveOnDisconnect() || fencedBy !== undefined) {
      // The place stays held for sessionTimeout: the restarted process takes it back quietly.
      return { members: [] };
    }
    const answer = await send(broker, 'LeaveGroup', request);
    lastMemberId = undefined;
    return answer;
  };

  const calls: Record<string, (broker: WireBroker, request: Record<string, unknown>) => Promise<unknown>> = {
    joinGroup,
    syncGroup: (broker, request) => send(broker, 'SyncGroup', request),
    heartbeat: (broker, request) => send(broker, 'Heartbeat', request),
    leaveGroup,
  };

  const view = (broker: object): object =>
    new Proxy(broker, {
      get(base, key) {
        const value = Reflect.get(base, key, base) as unknown;
        const own = typeof key === 'string' ? calls[key] : undefined;
        if (own !== undefined)
          return ((request?: Record<string, unknown>) => own(base as WireBroker, request ?? {})) as Call;
        // Bound to the real broker: its methods keep state on `this` that every user shares.
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(base) : value;
      },
    });

  target.findGroupCoordinator = async (...args: Parameters<Cluster['findGroupCoordinator']>) => {
    const broker: unknown = await find.apply(cluster, args);
    if (broker === null || typeof broker !== 'object') return broker as never;
    return view(broker) as never;
  };
  target.connect = () => {
    place.reclaim();
    return connect.call(cluster);
  };
  target.disconnect = () => {
    // Freed, so a consumer created in its stead takes the same group instance id back.
    place.release();
    return disconnect.call(cluster);
  };
  return member;
}

/** The negotiated version of `api`, refused when it has no group instance id field. */
function requireVersion(wire: KafkaWire, broker: WireBroker, api: GroupApi): void {
  const version = wire.versionFor(broker, api);
  const needed = STATIC_MEMBERSHIP_VERSIONS[api];
  if (version === undefined || version < needed) {
    throw new StaticMembershipUnsupportedError(
      `the broker negotiated ${api} v${String(version ?? 'unknown')}; a group instance id needs v${String(needed)} ` +
        '(Kafka 2.3 or later)',
    );
  }
}
