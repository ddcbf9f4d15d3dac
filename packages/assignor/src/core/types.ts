/** Plain data shapes of the pure balancing core; the adapter translates KafkaJS metadata into them and back. */

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
   * The racks holding a replica (all replicas, or the leader's only: the caller's choice); a member in one
   * fetches it in-rack. Missing or empty: no preference, never counted as cross-rack.
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
   * The rack (availability zone) the member runs in, shared by its instance (the smallest reported counts
   * when they disagree). Missing: nothing it is assigned counts as cross-rack.
   */
  readonly rack?: string | undefined;
}

/** Everything `balance()` needs. */
export interface BalanceInput {
  readonly members: ReadonlyArray<BalanceMember>;
  readonly partitions: ReadonlyArray<WeightedPartition>;
  /**
   * The current owners, keyed by member id: partitions stay with their owner unless moving improves the
   * balance by more than `moveTolerance`. Entries that no longer make sense (unknown members or partitions,
   * unsubscribed topics, a partition under two members) are ignored, never an error.
   */
  readonly previous?: ReadonlyMap<string, ReadonlyArray<TopicPartition>> | undefined;
  /**
   * The instance of each previous owner, keyed by member id, read for owners no longer members: their
   * partitions prefer that instance if present (a consumer restarted in a pod gets a new member id).
   */
  readonly previousInstances?: ReadonlyMap<string, string> | undefined;
  /**
   * Load each instance already carries from elsewhere, keyed by instance id, in the weights' units: typically
   * its consumers of other groups (cross-group balancing). Every step then judges instances by combined load,
   * so heavy partitions go where other groups left room. Missing, non-finite or negative values count as 0.
   * Instances without a member in this group are not read and count in neither its ideal nor its bound.
   */
  readonly instanceBaseLoad?: ReadonlyMap<string, number> | undefined;
}

/** Tuning of `balance()`. */
export interface BalanceOptions {
  /** Weight given to partitions without a usable weight. Default 1. */
  readonly defaultWeight?: number;
  /**
   * How much better than the previous placement a new one must be before partitions move, as a fraction: with
   * 0.05, previous owners are kept while the busiest instance (per unit of capacity) is within 5% of the best
   * placement found and the least busy within 5% of that placement's. Beyond it, partitions move until within
   * half of it, so small drift does not move them again. Members of one instance share its process and use
   * twice this. Default `DEFAULT_MOVE_TOLERANCE` (0.05). Ignored without `previous`, and with equal weights on
   * equal capacities, where Kafka's rule holds exactly (no partition could move to a subscriber holding two
   * or more fewer).
   */
  readonly moveTolerance?: number;
  /**
   * Where a rebalance placing orphaned partitions (member left, or new) brings the busiest instance: this share
   * of `moveTolerance` above the best placement found, from 0 to 1 (anywhere within it). Moves beyond the
   * orphans are capped at their weight, so an orphaned load W moves about 2W at most; where that is not enough
   * (or the aim is out of reach: it is judged from the lower bound when the previous placement is within the
   * tolerance of it), half the tolerance is tried, then anywhere within it. Lower values leave more headroom;
   * higher ones move less after a leave. Default `DEFAULT_ORPHAN_AIM` (0.25).
   */
  readonly orphanAim?: number;
  /**
   * Most partitions that may leave a still-valid owner in one call. Partitions whose owner left
   * or stopped subscribing always move and do not count. Default: unbounded.
   */
  readonly maxMovesPerRebalance?: number;
  /**
   * Work budget of the improvement search, in steps (about one partition looked at), bounding a pathological
   * input without a clock; the best placement so far is returned. Default `DEFAULT_SEARCH_BUDGET` (5 million).
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
   * Every member present (possibly with an empty list); every partition exactly once. The map and lists are
   * the caller's; the partition objects are frozen and shared with other results (sparing large groups new
   * objects per call): compare them by value, and copy one to change it.
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
  /** Partitions of topics no member subscribes to, left out; shared as in {@link BalanceResult.assignments}. */
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
   * The combined counterpart of `idealLoad`: the busiest combined load per unit of capacity if this group's
   * load could be split at will on the base loads (never taking load off an instance), or the largest
   * base ÷ capacity when higher. Equal to `idealLoad` without base loads.
   */
  readonly idealCombinedLoad: number;
  /** Median of the usable (measured) weights, or undefined when no weight was usable. */
  readonly medianMeasuredWeight: number | undefined;
  /** Topics that only some instances subscribe to, sorted: their load cannot go everywhere. */
  readonly restrictedTopics: ReadonlyArray<string>;
  /**
   * No placement can have a max combined load (per unit of capacity) below this: the largest of the even
   * share on the base loads, the heaviest partition where it weighs least, pigeonhole bounds on the heaviest
   * partitions, and the same bounds on each set of instances a topic can go to. 0 when there is no load.
   */
  readonly lowerBound: number;
  /** `maxCombinedLoad ÷ lowerBound`: 1 means provably optimal; 1 when there is no load. */
  readonly optimalityRatio: number;
  /** Partitions `previous` gave to a member that now belong to another, forced moves included; 0 without it. */
  readonly movedCount: number;
  /** Of `movedCount`, those whose previous owner left or no longer subscribes to their topic. */
  readonly forcedMoveCount: number;
  /** Partitions placed here that `previous` named an owner for; 0 without `previous`. */
  readonly previouslyOwnedCount: number;
  /**
   * What every weight (defaulted included) was multiplied by: 1, unless their sum would overflow (weights near
   * `Number.MAX_VALUE`); then the power of two keeping it at most 1e290. Ratios are unchanged; every load,
   * weight and bound here is in scaled units (divide by this for the source's, which may overflow).
   */
  readonly weightScale: number;
  /**
   * Weight placed on an instance whose rack holds none of the partition's replicas: fetched across racks.
   * Partitions and members without racks never count; 0 when no member has a rack.
   */
  readonly crossRackWeight: number;
  /** How many partitions {@link BalanceResult.crossRackWeight} is made of (zero-weight ones included). */
  readonly crossRackPartitions: number;
  /**
   * No placement whose busiest instance is at most `maxCombinedLoad` can fetch less weight across racks
   * (so `crossRackWeight ÷ crossRackLowerBound` says how close matching came). At most `crossRackWeight`; 0 when
   * nothing has to cross.
   */
  readonly crossRackLowerBound: number;
  /**
   * Of {@link BalanceResult.crossRackWeight}, the weight no member in one of its racks (or rackless)
   * subscribes to, which no placement could fetch in-rack; the rest crosses because balance came first.
   */
  readonly crossRackForcedWeight: number;
}
