/**
 * The one interface between a load-aware assigner and `@load-aware/trigger`'s controller, whatever
 * the Kafka client: one consumer's view of its group (described, and its own joins and leaves) and
 * the assigner that consumer places with. Both adapters build one with `assigner.triggerTarget(...)`
 * (KafkaJS: `triggerTarget(consumer)`; @platformatic/kafka: `triggerTarget(consumer, admin)`), and
 * the controller takes nothing else. Types only: the trigger validates a target, adapters build it.
 */
import type { TopicPartition } from './core/types.js';
import type { WeightSource } from './inputs/weight-source.js';
import type { CrossGroupSettings, SiblingReading } from './inputs/sibling-groups.js';
import type { ObservedGroup } from './protocol/observed-group.js';
import type { PartitionProgress, TopicPartitionsReading } from './protocol/group-reads.js';

/** A change in the watched consumer's membership, as the controller follows it. */
export type MembershipEvent =
  /** The consumer completed a join (one per rebalance it took part in). */
  | { readonly kind: 'join'; readonly groupId: string; readonly memberId: string; readonly isLeader: boolean }
  /** The consumer heartbeated as a member: how a controller attached after the join learns its id. */
  | { readonly kind: 'heartbeat'; readonly groupId: string; readonly memberId: string }
  /** The consumer is no longer a member (stopped, crashed, left, closed); `reason` is for the log. */
  | { readonly kind: 'leave'; readonly reason: string };

/**
 * The assigner side of a {@link TriggerTarget}: the settings the trigger judges with (the very
 * ones the assigner places with) and the rebalance it starts. The optional readers turn on the
 * controller's extra checks; a target without one skips that check.
 */
export interface TriggerAssigner {
  /** The weight source assignments use, so that the trigger judges with the same weights. */
  readonly weights: WeightSource;
  /** The weight of partitions without a usable weight. */
  readonly defaultWeight: number;
  /** The stickiness tolerance `balance()` places with. */
  readonly moveTolerance: number;
  /** The churn bound `balance()` places with (undefined: unbounded). */
  readonly maxMovesPerRebalance: number | undefined;
  /** Advances the epoch this process's members of `groupId` advertise; returns the new epoch. */
  bumpEpoch(groupId: string): number;
  /**
   * After {@link bumpEpoch}: makes one joined consumer of `groupId` send JoinGroup with the new
   * metadata, so the broker rebalances the whole group whichever member leads. Returns how many
   * consumers were asked (0 when none of this process is in the group).
   */
  startRebalance(groupId: string): number;
  /** The cross-group settings; undefined (or absent) when cross-group is off. */
  readonly crossGroup?: CrossGroupSettings | undefined;
  /** Reads the other groups of the cross-group set as the leader does; as the leader of `groupId` reads them. */
  readSiblings?(groupId: string, timeoutMs: number): Promise<SiblingReading[]> | undefined;
  /** True when the consumers join as static members: fires are held while one is away (needs `readProgress`). */
  readonly staticMembership?: boolean;
  /** Committed and end offsets of `partitions` for `groupId`; what tells an away static member. */
  readProgress?(
    groupId: string,
    partitions: ReadonlyArray<TopicPartition>,
    timeoutMs: number,
  ): Promise<PartitionProgress[]> | undefined;
  /** Fresh partition lists of `topics`; what tells subscribed partitions no member holds. */
  readTopicPartitions?(
    groupId: string,
    topics: ReadonlyArray<string>,
    timeoutMs: number,
  ): Promise<TopicPartitionsReading> | undefined;
  /**
   * The racks holding a replica of each of `partitions`, as the leader places with them (absent:
   * the plan ignores racks, as a leader without racks does).
   */
  replicaRacksOf?(
    groupId: string,
    partitions: ReadonlyArray<TopicPartition>,
  ): Array<ReadonlyArray<string> | undefined> | undefined;
}

/**
 * One consumer of a load-aware group as the trigger controller sees it, whatever its client:
 * `createTriggerController({ target: assigner.triggerTarget(consumer) })`.
 */
export interface TriggerTarget {
  readonly assigner: TriggerAssigner;
  /** Describes the consumer's group (DescribeGroups), decoded as the leader decodes members. */
  describeGroup(): Promise<ObservedGroup>;
  /** Follows the consumer's membership; returns a function that stops following it. */
  onMembership(listener: (event: MembershipEvent) => void): () => void;
  /**
   * Optional: starts measuring what each rebalance costs this consumer (reported to the assigner,
   * exported as `load_aware_rebalance_pause_seconds` and sent to the group); returns a function
   * that stops measuring.
   */
  measurePauses?(): () => void;
}
