import { memberFromRecord, type DecodedMember, type TopicPartition } from '@load-aware/assignor/portable';
import { isCooperativeRound } from './protocol.js';

/**
 * One member's subscription as platformatic hands it to the leader's `partitionAssigner`
 * (its `ExtendedGroupProtocolSubscription`, already decoded from the JoinGroup metadata).
 */
export interface MemberSubscription {
  readonly memberId: string;
  readonly version: number;
  readonly topics?: ReadonlyArray<string> | undefined;
  /** The subscription's userData: the load-aware record, for members that run load-aware. */
  readonly metadata?: Buffer | string | undefined;
  /** Sent by the member only under `cooperative-sticky` (subscription version 1 and up). */
  readonly ownedPartitions?: ReadonlyArray<{ readonly topic: string; readonly partitions: ReadonlyArray<number> }>;
  /** The member's generation (version 2 and up), -1 when it owns nothing it knows of. */
  readonly generationId?: number | undefined;
}

/** A member that should not be in a group this assigner leads cooperatively. */
export interface ForeignMember {
  readonly memberId: string;
  /**
   * `plain_cooperative_sticky`: no load-aware record (platformatic's own count-based assigner or
   * another client's), whose leadership would undo this placement; `eager_member`: a load-aware
   * member that offers only the eager protocol (KafkaJS, or platformatic in eager mode), which
   * keeps the whole group eager.
   */
  readonly kind: 'plain_cooperative_sticky' | 'eager_member';
}

/** The group as the leader reads it. */
export interface DecodedGroup {
  readonly members: DecodedMember[];
  /** True when the broker chose `cooperative-sticky` for this generation. */
  readonly cooperative: boolean;
  readonly foreign: ForeignMember[];
}

/**
 * Reads every member with the assignor's own record decoder, so that KafkaJS and platformatic
 * members are understood alike. Under `cooperative-sticky` the owned partitions and generation
 * come from the subscription's own fields (Kafka's rule, and current even when the member lost
 * its membership and dropped them); otherwise from the record, as KafkaJS members send them.
 * Never throws.
 */
export function decodeGroup(
  subscriptions: ReadonlyMap<string, MemberSubscription>,
  cooperativeOffered: boolean,
): DecodedGroup {
  const entries = [...subscriptions.entries()].map(([memberId, s]) => ({
    s,
    member: memberFromRecord(memberId, s.topics, userDataOf(s.metadata)),
  }));
  const loadAware = entries.filter((e) => e.member.problem === undefined);
  const cooperative = cooperativeOffered && isCooperativeRound(loadAware.map((e) => e.s.version));
  const foreign: ForeignMember[] = [];
  if (cooperativeOffered) {
    for (const e of entries) {
      if (e.member.problem !== undefined && (cooperative || e.s.version >= 1)) {
        foreign.push({ memberId: e.member.memberId, kind: 'plain_cooperative_sticky' });
      } else if (e.member.problem === undefined && e.s.version < 1) {
        foreign.push({ memberId: e.member.memberId, kind: 'eager_member' });
      }
    }
  }
  const members = entries.map((e) => (cooperative ? { ...e.member, owned: nativeOwned(e.s) } : e.member));
  return { members, cooperative, foreign };
}

/** The owned partitions a cooperative subscription carries; undefined when it knows of none. */
function nativeOwned(s: MemberSubscription): DecodedMember['owned'] {
  const generation = s.generationId ?? -1;
  if (generation < 0) return undefined;
  const partitions: TopicPartition[] = [];
  for (const { topic, partitions: list } of s.ownedPartitions ?? []) {
    for (const partition of list) partitions.push({ topic, partition });
  }
  return { generation, partitions };
}

/** Platformatic types userData as a Buffer or a string; the record decoder reads bytes. */
export function userDataOf(metadata: Buffer | string | undefined): Buffer | undefined {
  if (metadata === undefined) return undefined;
  return typeof metadata === 'string' ? Buffer.from(metadata) : metadata;
}
