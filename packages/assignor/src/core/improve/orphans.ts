import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { emptyPlacement, place, type Placement } from '../place/placement.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from './relink.js';
import { EJECTION_BINS } from './repair.js';

/** One planned move: `item` goes to bin `to`. */
interface Move {
  readonly item: number;
  readonly to: number;
}

/**
 * The homes kept and the homeless placed into the room the band leaves, heaviest first, each
 * where it fits best: a bin below the band's bottom first (the homeless are the free way to lift
 * it), then one whose members take it without moves of their own (given `slotTolerance`, the
 * tolerance of the level below: after a leave most of what members move is the newcomers that
 * tip one member of an even instance out of that tolerance), else the bin it leaves the least
 * room in, so that the large holes stay for the large items.
 * A homeless item that fits nowhere goes to the bin where making room for it moves the least
 * weight (then the fewest items): that bin sheds the cheapest items that restore its top onto
 * bins with room, the same way. Placing an orphaned load W this way moves W plus what the
 * receivers shed, and a receiver sheds only what the heavier newcomer does not leave room for.
 *
 * Only the bins where making room can cost least are tried (the repair's work cap). What is left outside the band (bins below its bottom, a newcomer too heavy for any
 * room) is for the repair to close. Homeless items left when the work budget runs out stay where
 * `sticky` (the sticky start) put them. Returns a new placement.
 */
export function placeOrphans(
  problem: Problem,
  sticky: Placement,
  ledger: MoveLedger,
  band: Band,
  budget: WorkBudget,
  slotTolerance?: number,
): Placement {
  const { binCount, weight } = problem;
  const walk = emptyPlacement(problem);
  const slots = slotLoads(problem, ledger, slotTolerance);
  const items: number[][] = Array.from({ length: binCount }, () => []);
  const orphans: number[] = [];
  for (let item = 0; item < weight.length; item++) {
    const home = ledger.home[item]!;
    if (home < 0) orphans.push(item);
    else {
      place(problem, walk, item, home);
      items[home]!.push(item);
    }
  }
  orphans.sort((a, b) => weight[b]! - weight[a]! || a - b);
  const room = new Float64Array(binCount);
  const refresh = (): void => {
    for (let b = 0; b < binCount; b++) room[b] = band.maxTarget * problem.capacity[b]! - walk.load[b]!;
  };
  const apply = (move: Move): void => {
    const from = walk.bin[move.item]!;
    slots?.move(move.item, from, move.to);
    if (from >= 0) {
      const list = items[from]!;
      list.splice(list.indexOf(move.item), 1);
      walk.load[from] = walk.load[from]! - weight[move.item]!;
      walk.tie[from] = walk.tie[from]! - problem.tieWeight;
      walk.bin[move.item] = -1;
    }
    place(problem, walk, move.item, move.to);
    items[move.to]!.push(move.item);
  };
  for (const orphan of orphans) {
    if (budget.remaining <= 0) {
      // Out of work: the rest stay where the sticky start put them.
      apply({ item: orphan, to: sticky.bin[orphan]! });
      continue;
    }
    refresh();
    const w = weight[orphan]!;
    const to = bestFit(problem, walk, room, band, orphan, -1, slots);
    if (to >= 0) {
      apply({ item: orphan, to });
      continue;
    }
    // No room anywhere: make it where that moves the least weight, then the fewest items.
    const row = problem.group[orphan]! * binCount;
    const candidates: number[] = [];
    for (let b = 0; b < binCount; b++) if (problem.eligible[row + b] === 1) candidates.push(b);
    // The bins where making room can cost least first: what it costs at least is the room
    // missing, plus, where the items that fit elsewhere cannot make it up, what the lightest
    // item that fits nowhere would in turn push out. Only the most promising are tried.
    const estimate = new Float64Array(binCount);
    for (const b of candidates) estimate[b] = leastCost(problem, items[b]!, room, b, w - room[b]!);
    candidates.sort((a, b) => estimate[a]! - estimate[b]! || room[b]! - room[a]! || a - b);
    let chosen: { bin: number; moves: Move[]; cost: number } | undefined;
    for (const bin of candidates.slice(0, EJECTION_BINS)) {
      const plan = makeRoom(problem, ledger, walk, items, room, band, bin, w - room[bin]!, budget, -1, true, slots);
      if (plan === undefined) continue;
      if (
        chosen === undefined ||
        plan.cost < chosen.cost - noiseAt(chosen.cost) ||
        (plan.cost <= chosen.cost + noiseAt(chosen.cost) && plan.moves.length < chosen.moves.length)
      )
        chosen = { bin, moves: plan.moves, cost: plan.cost };
    }
    if (chosen === undefined) {
      // Nowhere can shed enough: the roomiest bin overflows least; the repair takes it from there.
      apply({ item: orphan, to: candidates[0] ?? sticky.bin[orphan]! });
      continue;
    }
    for (const move of chosen.moves) apply(move);
    apply({ item: orphan, to: chosen.bin });
  }
  walk.items = undefined;
  return walk;
}

/**
 * A lower bound on the weight `bin` moves to make `need` of room: `need` itself when its items
 * that fit in some other bin's room add up to it, else `need` plus the least overflow one of the
 * items that fit nowhere causes where it goes (it must be passed on). Eligibility is left out:
 * this only ranks bins.
 */
function leastCost(
  problem: Problem,
  list: ReadonlyArray<number>,
  room: Float64Array,
  bin: number,
  need: number,
): number {
  if (need <= 0) return 0;
  let widest = 0;
  for (let b = 0; b < problem.binCount; b++) if (b !== bin && room[b]! > widest) widest = room[b]!;
  let fits = 0;
  let overflow = Infinity;
  for (const item of list) {
    const w = problem.weight[item]!;
    if (w <= widest) fits += w;
    else overflow = Math.min(overflow, w - widest);
  }
  return fits >= need ? need : need + overflow;
}

/**
 * The bin (not `avoid`) that `item` fits best: below the band's bottom first, then one whose
 * members take it without moves of their own (`slots`), then the least room left after it; -1
 * when it fits nowhere. Ties go to the lowest index.
 */
function bestFit(
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
 * Each bin's load per slot (its members, where the ledger has slots), as the level below will
 * find it: home items in their slot, items coming in on the least loaded slot (the level below
 * places them greedily, for free).
 */
interface SlotLoads {
  /** Whether the level below takes `w` on `bin` without moves of its own. */
  takes(bin: number, w: number): boolean;
  /** Records `item` going from `from` (-1 for none) to `to`. */
  move(item: number, from: number, to: number): void;
}

/**
 * {@link SlotLoads} of the homes, or undefined without slots or a tolerance for the level below.
 * The level below takes `w` without moves when the slot that gets it stays within its tolerance
 * of what the level below could reach at best: the heavier of `w` and an even split.
 */
function slotLoads(problem: Problem, ledger: MoveLedger, tolerance: number | undefined): SlotLoads | undefined {
  const slot = ledger.slot;
  if (slot === undefined || tolerance === undefined) return undefined;
  const { binCount, weight } = problem;
  const loads: Map<number, number>[] = Array.from({ length: binCount }, () => new Map<number, number>());
  // Where each item sits in its bin: its home slot, or the slot it was given when it came in.
  const at = new Int32Array(weight.length).fill(-1);
  for (let item = 0; item < at.length; item++) {
    const home = ledger.home[item]!;
    if (home < 0 || ledger.counted[item] === 0 || slot[item]! < 0) continue;
    at[item] = slot[item]!;
    const bin = loads[home]!;
    bin.set(slot[item]!, (bin.get(slot[item]!) ?? 0) + weight[item]!);
  }
  // Per bin: the least loaded slot and the total, kept up to date so that a look costs nothing.
  const least = new Int32Array(binCount).fill(-1);
  const total = new Float64Array(binCount);
  const refresh = (b: number): void => {
    let pick = -1;
    let sum = 0;
    const bin = loads[b]!;
    for (const [s, load] of bin) {
      sum += load;
      if (pick < 0 || load < bin.get(pick)! || (load === bin.get(pick)! && s < pick)) pick = s;
    }
    least[b] = pick;
    total[b] = sum;
  };
  for (let b = 0; b < binCount; b++) refresh(b);
  return {
    takes(bin: number, w: number): boolean {
      const members = loads[bin]!;
      if (members.size < 2) return true;
      const after = total[bin]! + w;
      const lowest = members.get(least[bin]!)!;
      return lowest + w <= (1 + tolerance) * Math.max(w, after / members.size) + noiseAt(after);
    },
    move(item: number, from: number, to: number): void {
      const w = weight[item]!;
      if (from >= 0 && at[item]! >= 0) {
        const bin = loads[from]!;
        bin.set(at[item]!, bin.get(at[item]!)! - w);
        refresh(from);
      }
      const s = to === ledger.home[item] && slot[item]! >= 0 ? slot[item]! : least[to]!;
      at[item] = s;
      if (s >= 0) {
        const bin = loads[to]!;
        bin.set(s, (bin.get(s) ?? 0) + w);
        refresh(to);
      }
    },
  };
}

/**
 * The cheapest set of items of `bin` to shed for `need` of room, each to the bin it fits best
 * (never back to `bin` or to `avoid`): free items first (heaviest), then the lightest that closes
 * what is left alone, else the heaviest that fits somewhere. When nothing of the bin fits
 * anywhere and `chain` allows, one item may go to one of the roomiest bins that makes room for
 * it the same way (its heavy newcomer pushing lighter items on): the cheapest such chain.
 * Undefined when the room is not there. `roomNow` is not touched.
 */
function makeRoom(
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
  chain = true,
  slots?: SlotLoads,
): { moves: Move[]; cost: number; room: Float64Array } | undefined {
  const { weight } = problem;
  const room = Float64Array.from(roomNow);
  room[bin] = 0;
  if (avoid >= 0) room[avoid] = 0;
  const taken = new Set<number>();
  const moves: Move[] = [];
  let cost = 0;
  let left = need;
  while (left > noiseAt(need) && budget.remaining > 0) {
    const list = items[bin]!;
    budget.remaining -= list.length;
    let pick = -1;
    let pickTo = -1;
    let pickCost = Infinity;
    let pickCloses = false;
    for (const item of list) {
      if (taken.has(item)) continue;
      const to = bestFit(problem, walk, room, band, item, bin, slots);
      if (to < 0) continue;
      const c = costOf(ledger, weight, item, bin, to);
      const w = weight[item]!;
      const closes = w >= left;
      if (pick < 0 || preferred(c, w, closes, pickCost, weight[pick]!, pickCloses)) {
        pick = item;
        pickTo = to;
        pickCost = c;
        pickCloses = closes;
      }
    }
    if (pick < 0) break;
    taken.add(pick);
    moves.push({ item: pick, to: pickTo });
    room[pickTo] = room[pickTo]! - weight[pick]!;
    cost += Math.max(0, pickCost);
    left -= weight[pick]!;
  }
  if (left <= noiseAt(need)) return { moves, cost, room };
  if (!chain) return undefined;
  // What fits directly is not enough: pass one item on to a bin that makes room for it, and shed
  // the rest of the need directly.
  const { binCount, eligible, group } = problem;
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
    const row = group[item]! * binCount;
    const roomy: number[] = [];
    for (let b = 0; b < binCount; b++) if (b !== bin && b !== avoid && eligible[row + b] === 1) roomy.push(b);
    roomy.sort((a, b) => fresh[b]! - fresh[a]! || a - b);
    for (const to of roomy.slice(0, EJECTION_BINS)) {
      const onward = makeRoom(problem, ledger, walk, items, fresh, band, to, w - fresh[to]!, budget, bin, false, slots);
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
              false,
              slots,
            )
          : { moves: [], cost: 0, room: onward.room };
      if (rest === undefined) continue;
      const total = Math.max(0, costOf(ledger, weight, item, bin, to)) + onward.cost + rest.cost;
      const all = [...onward.moves, { item, to }, ...rest.moves];
      if (
        best === undefined ||
        total < best.cost - noiseAt(best.cost) ||
        (total <= best.cost + noiseAt(best.cost) && all.length < best.moves.length)
      )
        best = { moves: all, cost: total, room: rest.room };
    }
  }
  return best;
}

/** `items` with `item` left out of `bin`'s list (a shallow copy of that one list). */
function itemsWithout(items: number[][], bin: number, item: number): number[][] {
  const copy = [...items];
  copy[bin] = items[bin]!.filter((i) => i !== item);
  return copy;
}

/**
 * True when a candidate beats the current pick: free ones first (heaviest), then the lightest
 * that closes the gap alone, then the heaviest.
 */
function preferred(
  cost: number,
  weight: number,
  closes: boolean,
  pickCost: number,
  pickWeight: number,
  pickCloses: boolean,
): boolean {
  if (cost <= 0) return pickCost > 0 || weight > pickWeight;
  if (pickCost <= 0) return false;
  return closes ? !pickCloses || weight < pickWeight : !pickCloses && weight > pickWeight;
}
