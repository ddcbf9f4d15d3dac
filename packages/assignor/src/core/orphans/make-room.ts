import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import type { Placement } from '../place/placement.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from '../improve/relink.js';
import type { SlotLoads } from './slot-loads.js';
import { EJECTION_BINS, shedCheapest, type Move } from '../improve/shed.js';

export type { Move } from '../improve/shed.js';

/**
 * The bin (not `avoid`) that `item` fits best: below the band's bottom first, then one whose
 * members take it without moves of their own (`slots`), then the least room left after it; -1
 * when it fits nowhere. Ties go to the lowest index.
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
 * (never back to `bin` or to `avoid`): free items first (heaviest), then the lightest that closes
 * what is left alone, else the heaviest that fits somewhere. When nothing of the bin fits
 * anywhere and `chain` is given, one item may go to a bin that makes room for it the same way (its
 * heavy newcomer pushing lighter items on): the cheapest such chain, over the bins where `chain`
 * says making that room can cost least. (The roomiest instead: on a tightly packed group every bin
 * has about the same room, and the chain went to bins whose items could not make it; leave sweep
 * seed 101 moved up to 7.09 times the weight an instance held, 5.68 with this ranking.)
 * Undefined when the room is not there. `roomNow` is not touched.
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
  // What fits directly is not enough: pass one item on to a bin that makes room for it, and shed
  // the rest of the need directly.
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
 * What making room in a bin costs at least, by bin, for the room the bins have now: the room
 * missing itself when the bin's items that fit in some other bin's room add up to it, else that
 * plus the least overflow one of its items that fit nowhere causes where it goes (it must be
 * passed on). Eligibility is left out: this only ranks bins.
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
