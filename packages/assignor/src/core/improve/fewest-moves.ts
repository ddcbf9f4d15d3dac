import type { Problem } from '../model/problem.js';
import { countMoves, NODE_COST, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { extremes, type Placement } from '../place/placement.js';
import { binClasses } from '../place/relabel.js';
import { noiseAt } from '../structures/numbers.js';
import { smallEnoughToSearch } from './exact.js';

/** Nodes the search may visit; the work budget is charged for each. */
const MAX_NODES = 10_000;

/**
 * Branch and bound over a small sticky problem for a placement with fewer counted moves than `current`
 * that keeps every bin within `current`'s least busy and busiest levels (its band): items heaviest first,
 * each tried at home first. A branch is cut when a bin would rise above the band, when what is left
 * could no longer fill the bins below it, or when its moves plus the fewest its bins must still shed
 * reach the best found. On a handful of partitions local search can move one or two more than needed;
 * this finds a placement as balanced at its extremes that moves fewer. Undefined when nothing better
 * was found within the node cap, or when the problem is too large.
 */
export function searchFewestMoves(
  problem: Problem,
  ledger: MoveLedger,
  current: Placement,
  budget: WorkBudget,
): Int32Array | undefined {
  // Checked first: large problems, the common case on a hot path, pay nothing below.
  if (!smallEnoughToSearch(problem)) return undefined;
  const moves = countMoves(ledger, current.bin);
  if (moves === 0) return undefined;
  const { weight, capacity, baseLoad, group, groupBins, binCount } = problem;
  const n = weight.length;
  const maxNodes = Math.min(MAX_NODES, Math.floor(budget.remaining / NODE_COST));
  const band = extremes(problem, current);
  const high = band.max + noiseAt(band.max);
  const low = band.min - noiseAt(band.min);
  const room = Float64Array.from(capacity, (c) => high * c);
  const floor = Float64Array.from(capacity, (c) => low * c);
  const classOf = binClasses(problem);
  // homeOf[k]: the bin where item k may stay for free or for a saved move, -1 for none.
  const homeOf = Int32Array.from(ledger.home, (h, k) =>
    h >= 0 && problem.eligible[group[k]! * binCount + h] === 1 ? h : -1,
  );
  const counted = ledger.counted;
  // Weight of the items from depth k on; per bin, its counted home items (heaviest first) and
  // how much of their weight is still to place from depth k on.
  const rest = new Float64Array(n + 1);
  for (let k = n - 1; k >= 0; k--) rest[k] = rest[k + 1]! + weight[k]!;
  const ownFrom = new Float64Array((n + 1) * binCount);
  const own: number[][] = Array.from({ length: binCount }, () => []);
  for (let k = n - 1; k >= 0; k--) {
    ownFrom.copyWithin(k * binCount, (k + 1) * binCount, (k + 2) * binCount);
    const h = homeOf[k]!;
    if (h >= 0 && counted[k] === 1) ownFrom[k * binCount + h]! += weight[k]!;
  }
  for (let k = 0; k < n; k++) if (homeOf[k]! >= 0 && counted[k] === 1) own[homeOf[k]!]!.push(k);

  const load = Float64Array.from(baseLoad);
  const bin = new Int32Array(n).fill(-1);
  let best = moves;
  let found: Int32Array | undefined;
  let nodes = 0;

  // Moves the remaining counted items must still make: per bin, heaviest first, its own items
  // that cannot all stay without lifting it above the band.
  const mustShed = (k: number): number => {
    let shed = 0;
    for (let b = 0; b < binCount; b++) {
      let excess = load[b]! + ownFrom[k * binCount + b]! - room[b]!;
      const items = own[b]!;
      for (let j = 0; j < items.length && excess > 0; j++) {
        if (items[j]! < k) continue;
        shed++;
        excess -= weight[items[j]!]!;
      }
    }
    return shed;
  };

  // Weight the bins below the band still need: more than is left, and the branch is dead.
  const starved = (k: number): boolean => {
    let need = 0;
    for (let b = 0; b < binCount; b++) need += Math.max(0, floor[b]! - load[b]!);
    return need > rest[k]! + noiseAt(rest[k]!);
  };

  const visit = (k: number, cost: number): boolean => {
    if (nodes++ >= maxNodes) return true;
    if (cost >= best || starved(k)) return false;
    if (k === n) {
      best = cost;
      found = Int32Array.from(bin);
      return false;
    }
    if (cost + mustShed(k) >= best) return false;
    const w = weight[k]!;
    const home = homeOf[k]!;
    const price = counted[k] === 1 ? 1 : 0;
    const tryBin = (b: number, extra: number): boolean => {
      if (load[b]! + w > room[b]!) return false;
      bin[k] = b;
      // Restore the saved value rather than subtract: (x + w) − w need not be x in floating point.
      const before = load[b]!;
      load[b] = before + w;
      const stop = visit(k + 1, cost + extra);
      load[b] = before;
      return stop;
    };
    if (home >= 0 && tryBin(home, 0)) return true;
    const eligibleBins = groupBins[group[k]!]!;
    for (let c = 0; c < eligibleBins.length; c++) {
      const b = eligibleBins[c]!;
      if (b === home) continue;
      if (interchangeable(b, eligibleBins, c, home, k)) continue;
      if (tryBin(b, home >= 0 ? price : 0)) return true;
    }
    return false;
  };

  // Bin b repeats an earlier candidate when both are of one class, equally loaded and the home
  // of no item still to place (nor of this one): every branch below would cost the same.
  const interchangeable = (b: number, bins: Int32Array, c: number, home: number, k: number): boolean => {
    if (ownFrom[(k + 1) * binCount + b] !== 0) return false;
    for (let t = 0; t < c; t++) {
      const other = bins[t]!;
      if (other === home || ownFrom[(k + 1) * binCount + other] !== 0) continue;
      if (classOf[other] === classOf[b] && load[other] === load[b]) return true;
    }
    return false;
  };

  // Nothing to gain when the bins' own excess alone already costs the moves made.
  if (mustShed(0) >= moves) return undefined;
  visit(0, 0);
  budget.remaining -= nodes * NODE_COST;
  return found;
}
