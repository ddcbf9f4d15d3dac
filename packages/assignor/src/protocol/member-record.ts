import type { OwnedPartitions } from './owned-partitions.js';
import { decodeUserData, type RebalancePause } from './user-data.js';

/** A group member's subscription as the leader reads it from JoinGroup metadata. */
export interface DecodedMember {
  readonly memberId: string;
  /** Subscribed topics, or undefined when the metadata itself could not be read. */
  readonly topics: ReadonlyArray<string> | undefined;
  readonly instanceId: string;
  readonly capacity: number;
  readonly epoch: number;
  /** The partitions the member reports owning (userData version 2), when it reports them. */
  readonly owned: OwnedPartitions | undefined;
  /** The sending process's token (userData version 3), when it sends one. */
  readonly processToken: string | undefined;
  /** What the member's last rebalance cost it (userData version 4), when it reports it. */
  readonly lastPause: RebalancePause | undefined;
  /** The member's rack (userData version 5), when it reports one. */
  readonly rack: string | undefined;
  /** Why the member's load-aware userData was not usable; undefined when it was. */
  readonly problem: string | undefined;
}

/** Prefix of the synthetic instance id given to a member without usable userData. */
export const OWN_INSTANCE_PREFIX = 'member:';

/**
 * One member as the leader sees it, from its subscribed topics and userData bytes however the
 * client unwrapped them (KafkaJS hands the leader raw metadata, @platformatic/kafka a decoded
 * subscription). Never throws: a member whose userData is absent or unreadable (an older
 * version, another assigner's data, garbage) becomes an instance of its own, which keeps
 * mixed-version groups working during a rolling upgrade.
 */
export function memberFromRecord(
  memberId: string,
  topics: ReadonlyArray<string> | undefined,
  userData: Buffer | null | undefined,
): DecodedMember {
  const decoded = decodeUserData(userData);
  if (decoded.ok) {
    const { instanceId, capacity, epoch, owned, processToken, lastPause, rack } = decoded.value;
    return { memberId, topics, instanceId, capacity, epoch, owned, processToken, lastPause, rack, problem: undefined };
  }
  const problem = topics === undefined ? 'unreadable subscription metadata' : decoded.reason;
  return {
    memberId,
    topics,
    instanceId: `${OWN_INSTANCE_PREFIX}${memberId}`,
    capacity: 1,
    epoch: 0,
    owned: undefined,
    processToken: undefined,
    lastPause: undefined,
    rack: undefined,
    problem,
  };
}
