/**
 * Plain data shapes of the pure balancing core. Nothing here knows about KafkaJS: the adapter
 * translates group metadata into these shapes and back.
 */

/** One partition of one topic. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** A partition to place, with its measured weight (events/s, bytes/s, any unit: only ratios matter). */
export interface WeightedPartition extends TopicPartition {
  /** Missing, non-finite or negative weights count as the default weight and are reported as defaulted. */
  readonly weight?: number | null | undefined;
}

/** A consumer group member as the balancer sees it. */
export interface BalanceMember {
  readonly memberId: string;
  /** The process or pod the member runs in; members sharing it share its load budget. */
  readonly instanceId: string;
  /** Topics this member subscribes to; it only ever receives partitions of these. */
  readonly topics: ReadonlyArray<string>;
  /** Relative capacity of the member's instance (default 1). Members of one instance should agree. */
  readonly capacity?: number | undefined;
}

/** Everything `balance()` needs. */
export interface BalanceInput {
  readonly members: ReadonlyArray<BalanceMember>;
  readonly partitions: ReadonlyArray<WeightedPartition>;
  /** The current owners, keyed by member id (used by the stickiness logic when present). */
  readonly previous?: ReadonlyMap<string, ReadonlyArray<TopicPartition>> | undefined;
}

/** Tuning of `balance()`. */
export interface BalanceOptions {
  /** Weight given to partitions without a usable weight. Default 1. */
  readonly defaultWeight?: number;
}

/** Load of one instance after balancing. */
export interface InstanceLoad {
  readonly instanceId: string;
  readonly capacity: number;
  /** Sum of the weights placed on the instance. */
  readonly load: number;
  readonly partitionCount: number;
  /** Member ids of the instance, sorted. */
  readonly memberIds: ReadonlyArray<string>;
}

/** Load of one member after balancing. */
export interface MemberLoad {
  readonly memberId: string;
  readonly instanceId: string;
  readonly load: number;
  readonly partitionCount: number;
}

/** What `balance()` returns: the assignment plus everything needed to explain it. */
export interface BalanceResult {
  /** Every member present (possibly with an empty list); every partition exactly once. */
  readonly assignments: Map<string, TopicPartition[]>;
  /** Instances sorted by id. */
  readonly instances: ReadonlyArray<InstanceLoad>;
  /** Members sorted by id. */
  readonly members: ReadonlyArray<MemberLoad>;
  /** Number of distinct partitions placed. */
  readonly partitionCount: number;
  readonly totalWeight: number;
  /** Partitions whose weight was missing or unusable and got the default weight. */
  readonly defaultedCount: number;
  /** Partitions whose weight is exactly zero (placed by count). */
  readonly zeroWeightCount: number;
  /** Partitions of topics no member subscribes to: they cannot be placed and are left out. */
  readonly unassignable: ReadonlyArray<TopicPartition>;
  /** The heaviest single partition's weight (0 when there are none). */
  readonly heaviestWeight: number;
  /** Largest instance load divided by its capacity. */
  readonly maxInstanceLoad: number;
  /** Load per unit of capacity if the total were spread perfectly: total ÷ total capacity. */
  readonly idealLoad: number;
  /** Median of the usable (measured) weights, or undefined when no weight was usable. */
  readonly medianMeasuredWeight: number | undefined;
  /** Topics that only some instances subscribe to, sorted: their load cannot go everywhere. */
  readonly restrictedTopics: ReadonlyArray<string>;
}
