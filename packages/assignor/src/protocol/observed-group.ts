/**
 * The decoded shape of a described group: what the trigger, the CLI and a cross-group leader read
 * from DescribeGroups, whichever client described it. No client library here, so an adapter for
 * another client (platformatic's Admin) can build the same shape from its own decoding.
 */
import type { TopicPartition } from '../core/types.js';
import type { RebalancePause } from './user-data.js';

/**
 * A described group member as the trigger, the CLI and a cross-group leader see it: who it is,
 * what it subscribes to, what it holds now.
 */
export interface ObservedMember {
  readonly memberId: string;
  /** The member's instance (from its load-aware userData; its own id when it has none). */
  readonly instanceId: string;
  readonly topics: ReadonlyArray<string>;
  /** Partitions the member currently holds. */
  readonly assigned: ReadonlyArray<TopicPartition>;
  /** Its instance's capacity from userData. Default 1. */
  readonly capacity?: number | undefined;
  /** What its last rebalance cost it (userData version 4), when it reports it. */
  readonly lastPause?: RebalancePause | undefined;
  /** Its rack (userData version 5), when it reports one. */
  readonly rack?: string | undefined;
}

/** A described group, decoded. */
export interface ObservedGroup {
  readonly groupId: string;
  readonly state: string;
  /** The protocol the group chose (`LoadAwareAssigner` when every member offers it). */
  readonly protocol: string;
  readonly members: ReadonlyArray<ObservedMember>;
  /** Members whose metadata carries load-aware userData: the candidates for coordinator. */
  readonly loadAwareMemberIds: ReadonlyArray<string>;
}
