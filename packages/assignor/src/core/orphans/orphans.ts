import type { Problem } from '../model/problem.js';
import { emptyPlacement, place, type Placement } from '../place/placement.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import type { Band } from '../improve/relink.js';
import { EJECTION_BINS } from '../improve/shed.js';
import { bestFit, binsByRoomCost, cheaper, makeRoom, roomCosts, type Move } from './make-room.js';
import { slotLoads } from './slot-loads.js';

/**
 * The homes kept and the homeless placed into the room the band leaves, heaviest first, each where
 * it fits best ({@link bestFit}; `slotTolerance` is the level below's: after a leave, newcomers that
 * tip a member of an even instance are most of what members move). One that fits nowhere goes where
 * making room ({@link makeRoom}) moves the least weight, then the fewest items, members' trades
 * included (`SlotLoads.excess`). What is left outside the band is for the repair; homeless items
 * left when the budget runs out stay where `sticky` put them. Returns a new placement.
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
    // No room anywhere: only the bins where making room can cost least are tried (the work cap).
    const costs = roomCosts(problem, items, room);
    const candidates = binsByRoomCost(problem, costs, room, orphan);
    let chosen: { bin: number; moves: Move[]; cost: number } | undefined;
    for (const bin of candidates.slice(0, EJECTION_BINS)) {
      const plan = makeRoom(problem, ledger, walk, items, room, band, bin, w - room[bin]!, budget, -1, costs, slots);
      if (plan === undefined) continue;
      // The level below pays too: what the receiver's members trade to take the newcomer.
      const cost = plan.cost + (slots === undefined ? 0 : slots.excess(bin, w, plan.moves, walk.bin));
      if (cheaper(cost, plan.moves.length, chosen)) chosen = { bin, moves: plan.moves, cost };
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
