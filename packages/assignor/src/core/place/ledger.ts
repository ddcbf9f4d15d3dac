/** Stickiness bookkeeping: where each item started and how many left a valid owner (`maxMovesPerRebalance`). */
export interface MoveLedger {
  /** Bin each item starts in (its previous owner's), -1 for items without one. */
  readonly home: Int32Array;
  /** 1 when leaving `home` counts as a move (the previous owner is still valid). */
  readonly counted: Uint8Array;
  /**
   * Where inside its home bin each counted item sat (its previous member, on the instance level), -1 for
   * none; absent when the level below has nothing to rebalance. A shedding bin sheds from one slot first
   * ({@link preferredSlot}), so the level below finds that slot emptied for the homeless items.
   */
  readonly slot?: Int32Array | undefined;
  /** Moves allowed in total for this placement. */
  readonly limit: number;
  /** Moves made so far (items currently away from a counted home). */
  used: number;
}

/**
 * A ledger that counts nothing and never refuses: for placements without a previous owner. Ledgers are
 * always built with every field, in this order: one object shape keeps the search's optimized code on
 * one map (a spread copy gets a map of its own, and that code dies with it at the next full collection).
 */
export function freeLedger(itemCount: number): MoveLedger {
  return {
    home: new Int32Array(itemCount).fill(-1),
    counted: new Uint8Array(itemCount),
    slot: undefined,
    limit: Number.POSITIVE_INFINITY,
    used: 0,
  };
}

/** `ledger`'s homes with another limit and no move made yet. */
export function limitedLedger(ledger: MoveLedger, limit: number): MoveLedger {
  return { home: ledger.home, counted: ledger.counted, slot: ledger.slot, limit, used: 0 };
}

/** An independent copy of `ledger`: the same homes and limit, its own count of moves. */
export function copyLedger(ledger: MoveLedger): MoveLedger {
  return { home: ledger.home, counted: ledger.counted, slot: ledger.slot, limit: ledger.limit, used: ledger.used };
}

/** How the number of moves changes if `item` goes from bin `from` to bin `to` (-1, 0 or 1). */
export function moveDelta(ledger: MoveLedger, item: number, from: number, to: number): number {
  if (ledger.counted[item] === 0) return 0;
  const home = ledger.home[item]!;
  return (to !== home ? 1 : 0) - (from !== home ? 1 : 0);
}

/**
 * The slot bin `bin` should shed its next counted item from: the one with the least of its home items
 * still in the bin, also where the level below puts the heaviest incoming item; ties to the lowest
 * slot. -1 without slots, or when nothing came in (no homeless or moved item in the bin): the level
 * below then has nothing to refill an emptied slot with, and shedding evenly leaves it less to do.
 */
export function preferredSlot(
  ledger: MoveLedger,
  weight: Float64Array,
  bin: number,
  items: ReadonlyArray<number>,
): number {
  const slot = ledger.slot;
  if (slot === undefined) return -1;
  const kept = new Map<number, number>();
  let incoming = false;
  for (const item of items) {
    const s = slot[item]!;
    if (ledger.counted[item] === 0 || ledger.home[item] !== bin) incoming = true;
    else if (s >= 0) kept.set(s, (kept.get(s) ?? 0) + weight[item]!);
  }
  if (!incoming) return -1;
  let best = -1;
  let least = Infinity;
  for (const [s, load] of kept) {
    if (load < least || (load === least && s < best)) {
      best = s;
      least = load;
    }
  }
  return best;
}

/** Moves of a complete placement: counted items that are not in their home bin. */
export function countMoves(ledger: MoveLedger, bin: Int32Array): number {
  let moves = 0;
  for (let item = 0; item < bin.length; item++) {
    if (ledger.counted[item] === 1 && bin[item] !== ledger.home[item]) moves++;
  }
  return moves;
}

/** Work left to the improvement search over one `balance()` call; one unit is about one partition looked at. */
export interface WorkBudget {
  remaining: number;
}

/** Work units charged per branch-and-bound node: a node costs about ten partition looks. */
export const NODE_COST = 10;

/**
 * True when some item has a home (`homed` true) or some has none (`homed` false: this rebalance placed
 * it). A plain loop: `some` with a closure per item was measurably slower on large groups.
 */
export function anyItem(home: Int32Array, homed: boolean): boolean {
  for (let k = 0; k < home.length; k++) if (home[k]! >= 0 === homed) return true;
  return false;
}
