import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { extremeBins, placementOf, shiftItem, type Placement } from '../place/placement.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from './relink.js';
import { preferred, roomiestBins, shedCheapest, type Move } from './shed.js';

/** A set of moves that closes one bin's gap, with the weight it moves. */
interface Plan {
  readonly moves: ReadonlyArray<Move>;
  readonly cost: number;
  /** How much of the gap it closes (all of it, or as much as the room allowed). */
  readonly closed: number;
}

/**
 * Brings every bin into `band` for as little moved weight as it can find, one gap at a time (the busiest
 * bin above the band sheds, the least busy below it takes) until all are in or a gap cannot be closed.
 * Each gap is closed by the cheapest of these plans:
 *
 * - direct: items of the bin go to bins with room below the band's top, picked by {@link preferred};
 * - ejection: one item goes to a roomiest bin, which sheds the overflow (a heavy newcomer making room);
 * - exchange (a busiest bin only): one item trades places with a lighter one of a roomy bin, for two or
 *   three bins of lumpy items (one instance's members), where the ejection's bin may not send anything
 *   back and local search would move several items where one pair does.
 *
 * A step costs the weight of each counted item leaving its home (one going home gives it back; homeless
 * items cost nothing), the objective's second term. Returns a new placement; `start` is not touched.
 */
export function repair(
  problem: Problem,
  start: Placement,
  band: Band,
  ledger: MoveLedger,
  budget: WorkBudget,
): Placement {
  const walk = placementOf(problem, start.bin);
  const items = itemsOf(problem, walk.bin);
  // Each step closes a gap and opens none above the band: a few rounds per bin suffice bar float noise.
  for (let round = 0; round < 4 * problem.binCount && budget.remaining > 0; round++) {
    const { top, bottom } = extremeBins(problem, walk);
    const maxGap = walk.load[top]! - band.maxTarget * problem.capacity[top]!;
    const minGap = band.minTarget * problem.capacity[bottom]! - walk.load[bottom]!;
    let plan: Plan | undefined;
    if (maxGap > noiseAt(walk.load[top]!))
      plan = better(
        better(
          shed(problem, ledger, walk, items, top, maxGap, band, -1, budget),
          eject(problem, ledger, walk, items, top, maxGap, band, budget),
          maxGap,
        ),
        swap(problem, ledger, walk, items, top, maxGap, band, budget),
        maxGap,
      );
    else if (minGap > noiseAt(walk.load[bottom]!))
      plan = better(fill(problem, ledger, walk, items, bottom, minGap, band, budget), undefined, minGap);
    else break;
    if (plan === undefined) break;
    for (const move of plan.moves) moveTo(problem, walk, items, move.item, move.to);
  }
  return walk;
}

/** The better of two plans for a gap: closing it beats not; then the cheaper, else the one closing more. */
function better(a: Plan | undefined, b: Plan | undefined, gap: number): Plan | undefined {
  if (a === undefined || a.closed <= 0) return b !== undefined && b.closed > 0 ? b : undefined;
  if (b === undefined || b.closed <= 0) return a;
  const eps = noiseAt(gap);
  const aCloses = a.closed >= gap - eps;
  const bCloses = b.closed >= gap - eps;
  if (aCloses !== bCloses) return aCloses ? a : b;
  if (aCloses) return b.cost < a.cost ? b : a;
  return b.closed > a.closed ? b : a;
}

/** Direct shedding of `gap` off `bin` onto bins with room below the band's top (never `avoid`). */
function shed(
  problem: Problem,
  ledger: MoveLedger,
  walk: Placement,
  items: number[][],
  bin: number,
  gap: number,
  band: Band,
  avoid: number,
  budget: WorkBudget,
): Plan | undefined {
  const { binCount, capacity, weight, eligible, group } = problem;
  const room = new Float64Array(binCount);
  for (let b = 0; b < binCount; b++)
    room[b] = b === bin || b === avoid ? 0 : band.maxTarget * capacity[b]! - walk.load[b]!;
  const { moves, cost, left } = shedCheapest(ledger, weight, items[bin]!, bin, gap, 0, room, budget, (item) =>
    roomiest(room, eligible, group[item]! * binCount, binCount, weight[item]!),
  );
  return { moves, cost, closed: gap - Math.max(0, left) };
}

/** Ejection: one item of `bin` to a roomiest bin, which sheds the overflow (never back to `bin`); the cheapest. */
function eject(
  problem: Problem,
  ledger: MoveLedger,
  walk: Placement,
  items: number[][],
  bin: number,
  gap: number,
  band: Band,
  budget: WorkBudget,
): Plan | undefined {
  const { binCount, capacity, weight, eligible, group } = problem;
  const roomy = roomiestBins(problem, walk, bin, band);
  let best: Plan | undefined;
  const tried = new Set<string>();
  for (const item of items[bin]!) {
    const w = weight[item]!;
    // One item of each weight is enough: equally heavy items of one group eject alike.
    const key = `${String(w)}:${String(group[item])}`;
    if (tried.has(key)) continue;
    tried.add(key);
    for (const to of roomy) {
      if (eligible[group[item]! * binCount + to] === 0 || budget.remaining <= 0) continue;
      const c = Math.max(0, costOf(ledger, weight, item, bin, to));
      const overflow = walk.load[to]! + w - band.maxTarget * capacity[to]!;
      let plan: Plan = { moves: [{ item, to }], cost: c, closed: Math.min(w, gap) };
      if (overflow > 0) {
        moveTo(problem, walk, items, item, to);
        const onward = shed(problem, ledger, walk, items, to, overflow, band, bin, budget);
        moveTo(problem, walk, items, item, bin);
        const unshed = overflow - (onward?.closed ?? 0);
        plan = {
          moves: [{ item, to }, ...(onward?.moves ?? [])],
          cost: c + (onward?.cost ?? 0),
          closed: Math.min(w, gap) - Math.max(0, unshed),
        };
      }
      best = better(best, plan, gap);
    }
  }
  return best;
}

/**
 * Exchange: an item of `bin` trades places with a lighter one of a roomiest bin, so `bin` sheds the
 * difference where none of its items fits anywhere alone. The cheapest that closes the gap without taking
 * the other bin above the band's top or `bin` below its bottom, lighter pairs first among equals.
 */
function swap(
  problem: Problem,
  ledger: MoveLedger,
  walk: Placement,
  items: number[][],
  bin: number,
  gap: number,
  band: Band,
  budget: WorkBudget,
): Plan | undefined {
  const { binCount, capacity, weight, eligible, group } = problem;
  const eps = noiseAt(gap);
  const floor = walk.load[bin]! - band.minTarget * capacity[bin]!;
  const roomy = roomiestBins(problem, walk, bin, band);
  let best: Plan | undefined;
  let bestWeight = Infinity;
  for (const other of roomy) {
    const room = band.maxTarget * capacity[other]! - walk.load[other]!;
    const theirs = items[other]!;
    budget.remaining -= items[bin]!.length * theirs.length;
    if (budget.remaining <= 0) break;
    for (const mine of items[bin]!) {
      if (eligible[group[mine]! * binCount + other] === 0) continue;
      const wm = weight[mine]!;
      const out = costOf(ledger, weight, mine, bin, other);
      for (const back of theirs) {
        const delta = wm - weight[back]!;
        if (delta < gap - eps || delta > room + eps || delta > floor + eps) continue;
        if (eligible[group[back]! * binCount + bin] === 0) continue;
        const cost = Math.max(0, out + costOf(ledger, weight, back, other, bin));
        const pair = wm + weight[back]!;
        if (
          best === undefined ||
          cost < best.cost - noiseAt(best.cost) ||
          (cost <= best.cost + noiseAt(best.cost) && pair < bestWeight)
        ) {
          best = {
            moves: [
              { item: mine, to: other },
              { item: back, to: bin },
            ],
            cost,
            closed: gap,
          };
          bestWeight = pair;
        }
      }
    }
  }
  return best;
}

/** Fills `gap` on `bin` from bins staying at or above the band's bottom, never lifting `bin` above its top. */
function fill(
  problem: Problem,
  ledger: MoveLedger,
  walk: Placement,
  items: number[][],
  bin: number,
  gap: number,
  band: Band,
  budget: WorkBudget,
): Plan | undefined {
  const { binCount, capacity, weight, eligible, group } = problem;
  const surplus = new Float64Array(binCount);
  for (let b = 0; b < binCount; b++) surplus[b] = b === bin ? 0 : walk.load[b]! - band.minTarget * capacity[b]!;
  let room = band.maxTarget * capacity[bin]! - walk.load[bin]!;
  const taken = new Set<number>();
  const moves: Move[] = [];
  let cost = 0;
  let left = gap;
  while (left > 0 && budget.remaining > 0) {
    let pick = -1;
    let pickCost = Infinity;
    let pickCloses = false;
    for (let from = 0; from < binCount; from++) {
      if (from === bin || !(surplus[from]! > 0)) continue;
      const list = items[from]!;
      budget.remaining -= list.length;
      for (const item of list) {
        const w = weight[item]!;
        if (taken.has(item) || w > surplus[from]! || w > room || eligible[group[item]! * binCount + bin] === 0)
          continue;
        const c = costOf(ledger, weight, item, from, bin);
        const closes = w >= left;
        if (pick < 0 || preferred(c, w, closes, pickCost, weight[pick]!, pickCloses)) {
          pick = item;
          pickCost = c;
          pickCloses = closes;
        }
      }
    }
    if (pick < 0) break;
    const from = walk.bin[pick]!;
    taken.add(pick);
    moves.push({ item: pick, to: bin });
    surplus[from] = surplus[from]! - weight[pick]!;
    room -= weight[pick]!;
    cost += Math.max(0, pickCost);
    left -= weight[pick]!;
  }
  return { moves, cost, closed: gap - Math.max(0, left) };
}

/** The eligible bin with the most room that can take weight `w`, or -1. */
function roomiest(room: Float64Array, eligible: Uint8Array, row: number, binCount: number, w: number): number {
  let best = -1;
  for (let b = 0; b < binCount; b++) {
    if (eligible[row + b] === 0 || room[b]! < w) continue;
    if (best < 0 || room[b]! > room[best]!) best = b;
  }
  return best;
}

function itemsOf(problem: Problem, bin: Int32Array): number[][] {
  const items: number[][] = Array.from({ length: problem.binCount }, () => []);
  bin.forEach((b, item) => items[b]!.push(item));
  return items;
}

function moveTo(problem: Problem, walk: Placement, items: number[][], item: number, to: number): void {
  const list = items[walk.bin[item]!]!;
  list.splice(list.indexOf(item), 1);
  items[to]!.push(item);
  shiftItem(problem, walk, item, to);
}
