import type { Problem } from '../model/problem.js';
import { NODE_COST, type WorkBudget } from '../place/ledger.js';
import { binClasses } from '../place/relabel.js';

/** Problems up to this many items get the exact search; beyond, local search is what we have. */
const EXACT_MAX_ITEMS = 48;
/** And up to this many bins: with more, few items share a bin and local search is already exact. */
const EXACT_MAX_BINS = 16;
/** True for problems small enough for a branch and bound over every placement. */
function smallEnoughToSearch(problem: Problem): boolean {
  const n = problem.weight.length;
  return n > 0 && n <= EXACT_MAX_ITEMS && problem.binCount >= 2 && problem.binCount <= EXACT_MAX_BINS;
}

/** Nodes the exact search may visit; the work budget is charged for each. */
const MAX_NODES = 50_000;

/**
 * Branch and bound over the whole (small) problem for a placement whose busiest level is below
 * `upperBound`: items heaviest first, each on its eligible bins from least to most loaded, skipping bins
 * interchangeable with one already tried, cutting branches that cannot beat the best found; stops at
 * `lowerBound`, which nothing can beat. Small groups are where local search is weakest (three-way
 * exchanges) and this is cheap. A better placement found before the node cap is still returned.
 */
export function searchExactly(
  problem: Problem,
  upperBound: number,
  lowerBound: number,
  budget: WorkBudget,
): Int32Array | undefined {
  const { weight, capacity, baseLoad, group, groupBins, binCount } = problem;
  const n = weight.length;
  if (!smallEnoughToSearch(problem)) return undefined;
  const maxNodes = Math.min(MAX_NODES, Math.floor(budget.remaining / NODE_COST));
  const eps = 1e-9 * upperBound;
  const classOf = binClasses(problem);
  const load = Float64Array.from(baseLoad);
  const bin = new Int32Array(n).fill(-1);
  let best = upperBound - eps;
  let found: Int32Array | undefined;
  let nodes = 0;
  // One candidate list per depth, reused: no allocation per node.
  const order = Array.from({ length: n }, () => new Int32Array(binCount));

  const visit = (k: number, level: number): boolean => {
    if (nodes++ >= maxNodes) return true;
    if (k === n) {
      best = level - eps;
      found = Int32Array.from(bin);
      return level <= lowerBound + eps;
    }
    const w = weight[k]!;
    const eligibleBins = groupBins[group[k]!]!;
    const bins = order[k]!;
    // Insertion sort by level after taking the item, ties by index: few bins, so this is cheap.
    for (let c = 0; c < eligibleBins.length; c++) {
      const b = eligibleBins[c]!;
      const after = (load[b]! + w) / capacity[b]!;
      let at = c;
      while (at > 0 && (load[bins[at - 1]!]! + w) / capacity[bins[at - 1]!]! > after) {
        bins[at] = bins[at - 1]!;
        at--;
      }
      bins[at] = b;
    }
    for (let c = 0; c < eligibleBins.length; c++) {
      const b = bins[c]!;
      const next = (load[b]! + w) / capacity[b]!;
      if (Math.max(level, next) >= best) break; // bins are sorted: the rest are worse
      let symmetric = false;
      for (let t = 0; t < c && !symmetric; t++) {
        const other = bins[t]!;
        symmetric = classOf[other] === classOf[b] && load[other] === load[b];
      }
      if (symmetric) continue;
      bin[k] = b;
      // Restore the saved value rather than subtract: (x + w) − w need not be x in floating point.
      const before = load[b]!;
      load[b] = before + w;
      const stop = visit(k + 1, Math.max(level, next));
      load[b] = before;
      if (stop) return true;
    }
    return false;
  };
  let start = 0;
  for (let b = 0; b < binCount; b++) start = Math.max(start, baseLoad[b]! / capacity[b]!);
  visit(0, start);
  budget.remaining -= nodes * NODE_COST;
  return found;
}
