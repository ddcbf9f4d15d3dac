import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import type { MoveLedger } from '../place/ledger.js';
import type { Move } from '../improve/shed.js';

/**
 * Each bin's load per slot (member, where the ledger has slots) as the level below will find it:
 * home items in their slot, newcomers on the least loaded one (placed greedily there, for free).
 */
export interface SlotLoads {
  /** Whether the level below takes `w` on `bin` without moves of its own. */
  takes(bin: number, w: number): boolean;
  /** Records `item` going from `from` (-1 for none) to `to`. */
  move(item: number, from: number, to: number): void;
  /** How far `bin`'s slot getting `w` ends above its tolerance after `moves`; records nothing. */
  excess(bin: number, w: number, moves: ReadonlyArray<Move>, binOf: Int32Array): number;
}

/**
 * {@link SlotLoads} of the homes, or undefined without slots or a tolerance for the level below,
 * which takes `w` without moves when the slot getting it stays within tolerance of the best it
 * could reach: the heavier of `w` and an even split.
 */
export function slotLoads(problem: Problem, ledger: MoveLedger, tolerance: number | undefined): SlotLoads | undefined {
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
  /** How far `bin`'s least loaded slot ends above its allowance when it takes `w`; ≤ 0 if it fits. */
  const over = (bin: number, w: number): number => {
    const members = loads[bin]!;
    if (members.size < 2) return 0;
    const after = total[bin]! + w;
    const lowest = members.get(least[bin]!)!;
    return lowest + w - slotAllowance(tolerance, w, after, members.size) - noiseAt(after);
  };
  const record = (item: number, from: number, to: number): void => {
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
  };
  return {
    takes(bin: number, w: number): boolean {
      return over(bin, w) <= 0;
    },
    excess(bin: number, w: number, moves: ReadonlyArray<Move>, binOf: Int32Array): number {
      const touched = new Set<number>([bin]);
      for (const m of moves) {
        if (binOf[m.item]! >= 0) touched.add(binOf[m.item]!);
        touched.add(m.to);
      }
      // Applied, read and undone: the bins touched and the moved items' slots are restored.
      const saved = [...touched].map((b) => ({ b, map: new Map(loads[b]) }));
      const savedAt = moves.map((m) => at[m.item]!);
      for (const m of moves) record(m.item, binOf[m.item]!, m.to);
      const result = Math.max(0, over(bin, w));
      for (const { b, map } of saved) {
        loads[b] = map;
        refresh(b);
      }
      moves.forEach((m, k) => (at[m.item] = savedAt[k]!));
      return result;
    },
    move: record,
  };
}

/**
 * The weight the level below is estimated to move among each bin's slots under `bin` (a placement):
 * home items in their slots, newcomers heaviest first onto the least loaded (free), then what each
 * slot holds beyond {@link slotAllowance}. 0 without slots or a tolerance for the level below.
 */
export function memberExcess(
  problem: Problem,
  ledger: MoveLedger,
  bin: Int32Array,
  tolerance: number | undefined,
): number {
  const slot = ledger.slot;
  if (slot === undefined || tolerance === undefined) return 0;
  const { binCount, weight } = problem;
  let slotCount = 0;
  for (let item = 0; item < slot.length; item++) slotCount = Math.max(slotCount, slot[item]! + 1);
  // Flat per bin and slot: a Map per bin was measurably slower on large leaves.
  const load = new Float64Array(binCount * slotCount);
  const held = new Uint8Array(binCount * slotCount);
  const slots = new Int32Array(binCount);
  const total = new Float64Array(binCount);
  const heaviest = new Float64Array(binCount);
  const incoming: number[] = [];
  for (let item = 0; item < bin.length; item++) {
    const b = bin[item]!;
    total[b] = total[b]! + weight[item]!;
    heaviest[b] = Math.max(heaviest[b]!, weight[item]!);
    if (ledger.home[item] === b && ledger.counted[item] === 1 && slot[item]! >= 0) {
      const at = b * slotCount + slot[item]!;
      load[at] = load[at]! + weight[item]!;
      if (held[at] === 0) slots[b] = slots[b]! + 1;
      held[at] = 1;
    } else {
      incoming.push(item);
    }
  }
  // Items are heaviest first already (`Problem.weight` is non-increasing).
  for (const item of incoming) {
    const first = bin[item]! * slotCount;
    let least = -1;
    for (let at = first; at < first + slotCount; at++) {
      if (held[at] === 1 && (least < 0 || load[at]! < load[least]!)) least = at;
    }
    if (least >= 0) load[least] = load[least]! + weight[item]!;
  }
  let excess = 0;
  for (let b = 0; b < binCount; b++) {
    if (slots[b]! < 2) continue;
    const allowed = slotAllowance(tolerance, heaviest[b]!, total[b]!, slots[b]!);
    for (let at = b * slotCount; at < (b + 1) * slotCount; at++) {
      if (held[at] === 1) excess += Math.max(0, load[at]! - allowed - noiseAt(allowed));
    }
  }
  return excess;
}

/**
 * The most a slot may hold before the level below evens it out: its tolerance above the best that
 * level could reach, the heavier of the heaviest item and an even split.
 */
function slotAllowance(tolerance: number, heaviest: number, total: number, slots: number): number {
  return (1 + tolerance) * Math.max(heaviest, total / slots);
}
