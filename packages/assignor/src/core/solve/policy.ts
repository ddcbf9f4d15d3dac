/* The stickiness settings every level passes to `solve`. */

/** How sticky one level is. */
export interface StickyPolicy {
  /** See `BalanceOptions.moveTolerance`. */
  readonly tolerance: number;
  /** When moves and swaps are stuck, also re-split pairs of bins and search small problems exactly. */
  readonly thorough: boolean;
  /** The level below's tolerance, where the ledger has slots: homeless go where it needs no moves. */
  readonly slotTolerance?: number | undefined;
  /**
   * The level whose busiest bin the objective ranks first (the instances): only there are moves
   * spent on `aim` after placing homeless items. Below, member balance ranks after moves, so a
   * placement that reaches the aim wins only by moving less.
   */
  readonly aimsCloser?: boolean | undefined;
  /**
   * Where a rebalance that places homeless items aims the busiest bin, as a share of the tolerance
   * above the best known (`BalanceOptions.orphanAim`). The sticky start levels the homeless towards
   * it for free; where `aimsCloser`, moves are spent on it too, up to the homeless items' weight.
   */
  readonly aim: number;
}
