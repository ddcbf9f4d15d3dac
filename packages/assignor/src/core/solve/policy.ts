/*
 * How the core solves one level: the stickiness settings every level passes to `solve`.
 */

/** How sticky one level is. */
export interface StickyPolicy {
  /** See `BalanceOptions.moveTolerance`. */
  readonly tolerance: number;
  /**
   * Counted moves allowed per homeless item (owner left, or new) to place the homeless well: a
   * heavy orphan dropped on a balanced group otherwise sticks out by its whole weight.
   */
  readonly homelessAllowance: number;
  /**
   * Also use the expensive neighbourhoods when moves and swaps are stuck: optimal re-splits of
   * pairs of bins, and the exact search on small problems.
   */
  readonly thorough: boolean;
  /** Which core reaches the tolerance when the sticky start is outside it (see `CoreVersion`). */
  readonly core: CoreVersion;
  /**
   * The tolerance of the level below (members inside an instance), where the ledger has slots:
   * the by-weight core places a homeless item where that level can take it without moves.
   */
  readonly slotTolerance?: number | undefined;
  /**
   * The level whose busiest bin the objective ranks first (the instances): only there does the
   * by-weight core spend moves on the closer aim ({@link HOMELESS_AIM}) after placing homeless
   * items, shedding a start within the tolerance down to it or preferring a candidate that
   * reaches it. Below, member balance ranks after moves, so a placement that reaches the aim wins
   * only by moving less.
   */
  readonly aimsCloser?: boolean | undefined;
  /**
   * Judge the least busy bin only where some bin holds nothing from before (a member or an
   * instance that just joined): the by-weight core, on both levels. The objective ranks the
   * busiest instance first and never the least busy one: a lighter bin costs no latency, and
   * lifting it moves partitions for nothing. After a leave the others sit at (n − 1) ÷ n of the
   * new mean, so in a group of fewer than 20 instances the old rule (the least busy within the
   * tolerance of the mean) moved sticky partitions after every leave (leave sweep seed 8: 2.94
   * times what the instance held, 1.21 without it). An idle bin wastes a consumer, so it is still
   * lifted. With equal weights Kafka's count contract holds regardless.
   */
  readonly idleOnly?: boolean | undefined;
}

/**
 * Where a rebalance that places homeless partitions (an instance left, partitions are new) aims
 * the busiest level: this share of the tolerance above the lower bound or the best placement
 * found. The sticky start levels the homeless towards it for free (both cores), and the
 * by-weight core spends moves on it up to the homeless partitions' own weight (twice that in
 * all, the stickiness bound of docs/placement.md); where that budget reaches only half the
 * tolerance, or not even that, it aims there. Why closer than half: placing the homeless moves
 * partitions anyway, and the busiest level is the objective's first term. At half the tolerance
 * the by-weight core left the busiest instance 2.5% above the best known after the seeded leaves
 * of bench:quality (the cascade's: 0.8–2.0%) and at 2.4–2.5% after half the leaves of the leave
 * sweep; at a quarter, 1.2% on both, for about 3% more moved weight at the sweep's median.
 */
export const HOMELESS_AIM = 1 / 4;

/**
 * The two cores: `by-weight`, what `balance()` runs, takes the cheapest, in moved weight, of the
 * search, a repair and a walk towards the from-scratch placement (solve/by-weight.ts); `cascade`,
 * the core it replaced, improves the sticky start by the local search and adopts the from-scratch
 * placement when that fails. The cascade stays runnable until the comparison is published.
 */
export type CoreVersion = 'cascade' | 'by-weight';
