/*
 * How the core solves one level: the stickiness settings every level passes to `solve`.
 */

/** How sticky one level is. */
export interface StickyPolicy {
  /** See `BalanceOptions.moveTolerance`. */
  readonly tolerance: number;
  /**
   * Also use the expensive neighbourhoods when moves and swaps are stuck: optimal re-splits of
   * pairs of bins, and the exact search on small problems.
   */
  readonly thorough: boolean;
  /**
   * The tolerance of the level below (members inside an instance), where the ledger has slots:
   * a homeless item is placed where that level can take it without moves.
   */
  readonly slotTolerance?: number | undefined;
  /**
   * The level whose busiest bin the objective ranks first (the instances): only there does the
   * core spend moves on the closer aim (`aim`) after placing homeless items,
   * shedding a start within the tolerance down to it or preferring a candidate that reaches it.
   * Below, member balance ranks after moves, so a placement that reaches the aim wins only by
   * moving less.
   */
  readonly aimsCloser?: boolean | undefined;
  /**
   * Where a rebalance that places homeless items aims the busiest bin: this share of the
   * tolerance above the lower bound or the best placement found (`BalanceOptions.orphanAim`).
   * The sticky start levels the homeless towards it for free; on the level that `aimsCloser`,
   * the core also spends moves on it, up to the homeless items' own weight.
   */
  readonly aim: number;
}
