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
  /**
   * The racks holding a replica of the partition (all replicas, or the leader's only: the
   * caller's choice). A member in one of them fetches it in-rack. Missing or empty: no
   * preference, the partition is never counted as cross-rack.
   */
  readonly racks?: ReadonlyArray<string> | undefined;
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
  /**
   * The rack (availability zone) the member runs in; members of one instance share it (the
   * smallest one reported counts when they disagree). Missing: no rack, nothing it is assigned
   * counts as cross-rack.
   */
  readonly rack?: string | undefined;
}

/** Everything `balance()` needs. */
export interface BalanceInput {
  readonly members: ReadonlyArray<BalanceMember>;
  readonly partitions: ReadonlyArray<WeightedPartition>;
  /**
   * The current owners, keyed by member id. When present, partitions stay with their owner
   * unless moving them improves the balance by more than `moveTolerance`. Entries that no longer
   * make sense (unknown members, partitions that no longer exist, topics the member stopped
   * subscribing to, a partition listed under two members) are ignored, never an error.
   */
  readonly previous?: ReadonlyMap<string, ReadonlyArray<TopicPartition>> | undefined;
  /**
   * The instance of each previous owner, keyed by member id. Only consulted for owners that are
   * no longer members: their partitions then prefer to stay on that instance if it is still
   * present (a consumer restarted inside a pod comes back with a new member id).
   */
  readonly previousInstances?: ReadonlyMap<string, string> | undefined;
  /**
   * Load each instance already carries from elsewhere, keyed by instance id, in the weights'
   * units: typically what its consumers of other groups hold (cross-group balancing). Placement,
   * the lower bound, the search and stickiness then judge every instance by its combined load
   * (base plus this group's), so this group's heavy partitions go where the other groups left
   * room. Missing, non-finite or negative values count as 0. Instances without a member in this
   * group are not read: they can take nothing from it, so their load is what it is whatever this
   * group does, and they count neither in its ideal nor in its bound.
   */
  readonly instanceBaseLoad?: ReadonlyMap<string, number> | undefined;
}

/** Tuning of `balance()`. */
export interface BalanceOptions {
  /** Weight given to partitions without a usable weight. Default 1. */
  readonly defaultWeight?: number;
  /**
   * How much better than the previous placement a new one must be before partitions move, as a
   * fraction: with 0.05, the previous owners are kept while the busiest instance (per unit of
   * capacity) is within 5% of the best placement found from scratch and the least busy one is
   * within 5% of that placement's least busy one. When something is beyond it, partitions move
   * until it is within half of it, so the next small drift does not trigger moves again. Members
   * inside an instance use twice this tolerance: they share their instance's process, so their
   * balance is secondary. Default `DEFAULT_MOVE_TOLERANCE` (0.05). Ignored without `previous`,
   * and where all partitions weigh the same on bins of equal capacity: there Kafka's rule holds
   * exactly (no partition could move to a subscriber holding two or more fewer).
   */
  readonly moveTolerance?: number;
  /**
   * Where a rebalance that places orphaned partitions (their member left, or they are new) brings
   * the busiest instance: this share of `moveTolerance` above the best placement found, from 0
   * (the best found) to 1 (anywhere within the tolerance). Moves spent on it beyond the orphans
   * are capped at the orphans' own weight, so placing an orphaned load W moves about 2W at most;
   * where that is not enough (or the aim is below what the group can reach: the aim is judged
   * from the lower bound when the previous placement is within the tolerance of it), half the
   * tolerance is tried, then anywhere within it. Lower values leave more headroom before the
   * next drift moves anything; higher ones move less after a leave. Default `DEFAULT_ORPHAN_AIM`
   * (0.25).
   */
  readonly orphanAim?: number;
  /**
   * Most partitions that may leave a still-valid owner in one call. Partitions whose owner left
   * or stopped subscribing always move and do not count. Default: unbounded.
   */
  readonly maxMovesPerRebalance?: number;
  /**
   * Work budget of the improvement search, in elementary steps (roughly one partition looked at
   * once). Bounds the time a pathological input can take without a clock; when it runs out the
   * best placement found so far is returned. Default `DEFAULT_SEARCH_BUDGET` (5 million).
   */
  readonly searchBudget?: number;
}

/** Load of one instance after balancing. */
export interface InstanceLoad {
  readonly instanceId: string;
  readonly capacity: number;
  /** Sum of the weights placed on the instance: this group's load. */
  readonly load: number;
  /** The load it carries from elsewhere (`BalanceInput.instanceBaseLoad`, as counted); 0 without. */
  readonly baseLoad: number;
  /** `baseLoad + load`: what the instance carries in all. */
  readonly combinedLoad: number;
  readonly partitionCount: number;
  /** Member ids of the instance, sorted. */
  readonly memberIds: ReadonlyArray<string>;
  /** The instance's rack (see `BalanceMember.rack`); absent when it has none. */
  readonly rack?: string;
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
  /**
   * Every member present (possibly with an empty list); every partition exactly once. The map and
   * its lists are the caller's. The partition objects in them are frozen and shared with other
   * results (every call naming a partition gets the same object, which spares large groups the
   * cost of 100k new objects per call): compare them by value, and copy one to change it.
   */
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
  /**
   * Partitions of topics no member subscribes to: they cannot be placed and are left out. Frozen
   * shared objects, as in {@link BalanceResult.assignments}.
   */
  readonly unassignable: ReadonlyArray<TopicPartition>;
  /** The heaviest single partition's weight (0 when there are none). */
  readonly heaviestWeight: number;
  /** Largest instance load (this group's only) divided by its capacity. */
  readonly maxInstanceLoad: number;
  /** Load per unit of capacity if the total were spread perfectly: total ÷ total capacity. */
  readonly idealLoad: number;
  /**
   * Largest combined load (base plus this group's) divided by capacity: what balancing with base
   * loads minimizes. Equal to `maxInstanceLoad` without base loads.
   */
  readonly maxCombinedLoad: number;
  /**
   * The combined counterpart of `idealLoad`: the busiest combined load per unit of capacity if this
   * group's load could be split at will on top of the base loads. That is the level this group's
   * load fills the instances up to (base ÷ capacity plus their share, never taking load off an
   * instance), or the largest base ÷ capacity when that is higher. Equal to `idealLoad` without
   * base loads.
   */
  readonly idealCombinedLoad: number;
  /** Median of the usable (measured) weights, or undefined when no weight was usable. */
  readonly medianMeasuredWeight: number | undefined;
  /** Topics that only some instances subscribe to, sorted: their load cannot go everywhere. */
  readonly restrictedTopics: ReadonlyArray<string>;
  /**
   * No placement can have a max combined load (per unit of capacity) below this: the largest of
   * the even share (on top of the base loads), the heaviest partition on the instance where it
   * would weigh least, the pigeonhole bounds on the heaviest partitions, and the same bounds
   * restricted to each set of instances a topic can go to. 0 when there is no load. Without base
   * loads the combined load is the instance load.
   */
  readonly lowerBound: number;
  /** `maxCombinedLoad ÷ lowerBound`: 1 means provably optimal; 1 when there is no load. */
  readonly optimalityRatio: number;
  /**
   * Partitions that `previous` gave to a member and that now belong to another member, forced
   * moves included. 0 without `previous`.
   */
  readonly movedCount: number;
  /** Of `movedCount`, those whose previous owner left or no longer subscribes to their topic. */
  readonly forcedMoveCount: number;
  /** Partitions placed here that `previous` named an owner for; 0 without `previous`. */
  readonly previouslyOwnedCount: number;
  /**
   * What every weight (defaulted ones included) was multiplied by before balancing: 1, unless
   * the weights are so large (near `Number.MAX_VALUE`) that their sum would overflow; then the
   * power of two that keeps it at most 1e290. Ratios are unchanged; every load, weight and bound
   * in this result is in the scaled units (divide by this for the source's units, which may
   * overflow).
   */
  readonly weightScale: number;
  /**
   * Weight placed on an instance with a rack that holds none of the partition's replicas: what
   * is fetched across racks (availability zones). Partitions without racks and members without a
   * rack never count. 0 when no member has a rack.
   */
  readonly crossRackWeight: number;
  /** How many partitions {@link BalanceResult.crossRackWeight} is made of (zero-weight ones included). */
  readonly crossRackPartitions: number;
  /**
   * No placement whose busiest instance is at most `maxCombinedLoad` (per unit of capacity) can
   * fetch less weight across racks than this: `crossRackWeight ÷ crossRackLowerBound` says how
   * close rack matching came. At most `crossRackWeight`; 0 when nothing has to cross.
   */
  readonly crossRackLowerBound: number;
  /**
   * Of {@link BalanceResult.crossRackWeight}, the weight of partitions that no member in one of
   * their racks (or without a rack) subscribes to: no placement could fetch them in-rack. The rest
   * crosses racks because the balance came first.
   */
  readonly crossRackForcedWeight: number;
}
