import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import type { Placement } from '../place/placement.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from '../improve/relink.js';
import type { SlotLoads } from './slot-loads.js';
import { EJECTION_BINS, shedCheapest, type Move } from '../improve/shed.js';

export type { Move } from '../improve/shed.js';

/**
 * The bin (not `avoid`) that `item` fits best, -1 if none: below the band's bottom first (the free
 * way to lift it), then one whose members take it without moves (`slots`), then the least room left
 * (large holes stay for large items). Ties go to the lowest index.
 */
export function bestFit(
  problem: Problem,
  walk: Placement,
  room: Float64Array,
  band: Band,
  item: number,
  avoid: number,
  slots: SlotLoads | undefined,
): number {
  const { binCount, capacity, eligible } = problem;
  const w = problem.weight[item]!;
  const row = problem.group[item]! * binCount;
  let best = -1;
  let bestLow = false;
  let bestTakes = false;
  for (let b = 0; b < binCount; b++) {
    if (b === avoid || eligible[row + b] === 0 || room[b]! < w - noiseAt(w)) continue;
    const low = walk.load[b]! < band.minTarget * capacity[b]! - noiseAt(walk.load[b]!);
    if (best >= 0 && !low && bestLow) continue;
    if (best >= 0 && low === bestLow && bestTakes && room[b]! >= room[best]!) continue;
    const takes = slots === undefined || slots.takes(b, w);
    if (best < 0 || (low && !bestLow) || (takes && !bestTakes) || (takes === bestTakes && room[b]! < room[best]!)) {
      best = b;
      bestLow = low;
      bestTakes = takes;
    }
  }
  return best;
}

/**
 * The cheapest set of items of `bin` to shed for `need` of room, each to the bin it fits best
 * (never `bin` or `avoid`): free items first (heaviest), then the lightest that closes the rest
 * alone, else the heaviest that fits somewhere. Failing that, given `chain`, one item may go to a
 * bin that makes room for it the same way: the cheapest such chain over the bins where `chain` says
 * room costs least (not the roomiest: on a packed group all have about the same room; BENCHMARKS.md,
 * "Leaves on untuned groups"). Undefined when the room is not there. `roomNow` is not touched.
 */
export function makeRoom(
  problem: Problem,
  ledger: MoveLedger,
  walk: Placement,
  items: number[][],
  roomNow: Float64Array,
  band: Band,
  bin: number,
  need: number,
  budget: WorkBudget,
  avoid = -1,
  chain?: RoomCosts,
  slots?: SlotLoads,
): { moves: Move[]; cost: number; room: Float64Array } | undefined {
  const { weight } = problem;
  const room = Float64Array.from(roomNow);
  room[bin] = 0;
  if (avoid >= 0) room[avoid] = 0;
  const { moves, cost, left } = shedCheapest(
    ledger,
    weight,
    items[bin]!,
    bin,
    need,
    noiseAt(need),
    room,
    budget,
    (item) => bestFit(problem, walk, room, band, item, bin, slots),
  );
  if (left <= noiseAt(need)) return { moves, cost, room };
  if (chain === undefined) return undefined;
  // Not enough fits directly: pass one item on to a bin that makes room for it, shed the rest directly.
  const { group } = problem;
  const fresh = Float64Array.from(roomNow);
  fresh[bin] = 0;
  if (avoid >= 0) fresh[avoid] = 0;
  let best: { moves: Move[]; cost: number; room: Float64Array } | undefined;
  const tried = new Set<string>();
  for (const item of items[bin]!) {
    if (budget.remaining <= 0) break;
    const w = weight[item]!;
    const key = `${String(w)}:${String(group[item])}`;
    if (tried.has(key)) continue;
    tried.add(key);
    for (const to of binsByRoomCost(problem, chain, fresh, item, bin, avoid).slice(0, EJECTION_BINS)) {
      const onward = makeRoom(
        problem,
        ledger,
        walk,
        items,
        fresh,
        band,
        to,
        w - fresh[to]!,
        budget,
        bin,
        undefined,
        slots,
      );
      if (onward === undefined) continue;
      onward.room[to] = 0;
      onward.room[bin] = 0;
      const rest =
        need - w > noiseAt(need)
          ? makeRoom(
              problem,
              ledger,
              walk,
              itemsWithout(items, bin, item),
              onward.room,
              band,
              bin,
              need - w,
              budget,
              to,
              undefined,
              slots,
            )
          : { moves: [], cost: 0, room: onward.room };
      if (rest === undefined) continue;
      const total = Math.max(0, costOf(ledger, weight, item, bin, to)) + onward.cost + rest.cost;
      const all = [...onward.moves, { item, to }, ...rest.moves];
      if (cheaper(total, all.length, best)) best = { moves: all, cost: total, room: rest.room };
    }
  }
  return best;
}

/**
 * The bins `item` may go to, but `exclude` and `exclude2`: those where making room for it can cost
 * least first ({@link RoomCosts}), then the roomiest, then by index.
 */
export function binsByRoomCost(
  problem: Problem,
  costs: RoomCosts,
  room: Float64Array,
  item: number,
  exclude = -1,
  exclude2 = -1,
): number[] {
  const { binCount, eligible, group, weight } = problem;
  const w = weight[item]!;
  const row = group[item]! * binCount;
  const bins: number[] = [];
  for (let b = 0; b < binCount; b++) if (b !== exclude && b !== exclude2 && eligible[row + b] === 1) bins.push(b);
  return bins.sort(
    (a, b) => costs.least(a, w - room[a]!) - costs.least(b, w - room[b]!) || room[b]! - room[a]! || a - b,
  );
}

/** True when a plan of `cost` and `moves` beats `best`: it costs less, or as much in fewer moves. */
export function cheaper(
  cost: number,
  moves: number,
  best: { readonly cost: number; readonly moves: ReadonlyArray<Move> } | undefined,
): boolean {
  if (best === undefined) return true;
  const eps = noiseAt(best.cost);
  return cost < best.cost - eps || (cost <= best.cost + eps && moves < best.moves.length);
}

/** `items` with `item` left out of `bin`'s list (a shallow copy of that one list). */
function itemsWithout(items: number[][], bin: number, item: number): number[][] {
  const copy = [...items];
  copy[bin] = items[bin]!.filter((i) => i !== item);
  return copy;
}

/**
 * The least a bin moves to make room, given the room bins have now: the room missing, when its
 * items that fit elsewhere add up to it; else that plus the least overflow of one that fits nowhere
 * (it must be passed on). Eligibility is left out: this only ranks bins.
 */
export interface RoomCosts {
  /** The least weight `bin` moves to make `need` of room. */
  least(bin: number, need: number): number;
}

/** {@link RoomCosts} for the bins' `items` and `room`: one pass over the items. */
export function roomCosts(
  problem: Problem,
  items: ReadonlyArray<ReadonlyArray<number>>,
  room: Float64Array,
): RoomCosts {
  const { binCount, weight } = problem;
  // The widest room outside a bin: the widest, or the second widest outside the bin holding it.
  let widestBin = -1;
  let widest = 0;
  let second = 0;
  for (let b = 0; b < binCount; b++) {
    const r = room[b]!;
    if (r > widest) {
      second = widest;
      widest = r;
      widestBin = b;
    } else if (r > second) second = r;
  }
  const fits = new Float64Array(binCount);
  const overflow = new Float64Array(binCount).fill(Infinity);
  for (let b = 0; b < binCount; b++) {
    const outside = b === widestBin ? second : widest;
    for (const item of items[b]!) {
      const w = weight[item]!;
      if (w <= outside) fits[b] = fits[b]! + w;
      else overflow[b] = Math.min(overflow[b]!, w - outside);
    }
  }
  return {
    least: (bin, need) => (need <= 0 ? 0 : fits[bin]! >= need ? need : need + overflow[bin]!),
  };
}
