import type { Problem } from '../model/problem.js';
import { lighter } from '../structures/tournament.js';
import type { Placement } from './placement.js';
import { atomsOf, buildLoserTree, placeByAtoms } from './loser-trees.js';

/** Below this many item × bin steps, the greedy scans every eligible bin for every item. */
const SCAN_WORK = 1_000_000;

/**
 * The reference placement rule (docs/architecture.md, "Placement rule") for every unplaced item,
 * heaviest first: onto the eligible bin whose load per unit of capacity would be smallest after taking
 * it, then the smallest secondary tally, then the lowest index (the smallest id).
 */
export function placeGreedily(problem: Problem, placement: Placement): void {
  if (dealsInTurn(problem, placement)) placeInTurn(problem, placement);
  else if (tournamentsPay(problem)) placeByTournament(problem, placement);
  else placeByScan(problem, placement);
  placement.items = undefined;
}

/**
 * With equal capacities the best bin does not depend on the item's weight, so a tournament per group
 * finds it in log time. It ranks by load where the scan ranks by load after taking the item, and the two
 * can disagree on a float rounding tie, so small problems keep the cheap scan and match the reference
 * exactly. Too many groups make keeping every tree up to date cost more than scanning. Exported for
 * the fast-path tests, which state which path a case takes.
 */
export function tournamentsPay(problem: Problem): boolean {
  const { capacity, groupBins, binCount, weight } = problem;
  if (weight.length * binCount < SCAN_WORK || !capacity.every((c) => c === capacity[0])) return false;
  let treeSize = 0;
  for (const bins of groupBins) treeSize += bins.length;
  return treeSize <= 4 * binCount + 64;
}

/**
 * True when the rule reduces to dealing items out in bin order: every item unplaced, equally heavy and
 * free to go anywhere, every bin equally big and empty. The lowest-index bin holding one item fewer is
 * then bin `item mod binCount`: after r full rounds every bin holds the same sum, and a positive weight
 * added to a load that started at zero always makes it larger (no rounding absorbs it below 2^53 items).
 */
function dealsInTurn(problem: Problem, placement: Placement): boolean {
  const { weight, capacity, groupBins, binCount, baseLoad, baseTie } = problem;
  if (binCount === 0 || groupBins.length !== 1 || groupBins[0]!.length !== binCount) return false;
  const w = weight[0]!;
  if (!(w > 0)) return false;
  for (let k = 1; k < weight.length; k++) if (weight[k] !== w) return false;
  for (let b = 0; b < binCount; b++) {
    if (capacity[b] !== capacity[0] || baseLoad[b] !== 0 || baseTie[b] !== baseTie[0]) return false;
  }
  for (let item = 0; item < weight.length; item++) if (placement.bin[item] !== -1) return false;
  return true;
}

function placeInTurn(problem: Problem, placement: Placement): void {
  const { weight, tieWeight, binCount } = problem;
  const { bin, load, tie } = placement;
  for (let item = 0, b = 0; item < weight.length; item++) {
    bin[item] = b;
    // Added one by one, as the general rule does, so loads match it to the last bit.
    load[b] = load[b]! + weight[item]!;
    tie[b] = tie[b]! + tieWeight;
    if (++b === binCount) b = 0;
  }
}

function placeByTournament(problem: Problem, placement: Placement): void {
  if (problem.groupBins.length === 1) {
    placeBySingleTournament(problem, placement);
    return;
  }
  const atoms = atomsOf(problem);
  if (atoms !== undefined) placeByAtoms(problem, placement, atoms);
  else placeByWinnerTrees(problem, placement);
}

/**
 * {@link placeByTournament} with a tree of winners per group (leaves padded to a power of two, node k
 * the winner of 2k and 2k + 1) in one flat array: group g's at `node[offset[g] ..]`, its leaves from
 * `offset[g] + size`. For groups of many atoms (mixed subscriptions), where comparing champions nears a scan.
 */
function placeByWinnerTrees(problem: Problem, placement: Placement): void {
  const { weight, tieWeight, group, groupBins, binCount } = problem;
  const { bin, load, tie } = placement;
  const groupCount = groupBins.length;
  const offset = new Int32Array(groupCount + 1);
  const leaves = new Int32Array(binCount + 1);
  for (let g = 0; g < groupCount; g++) {
    let size = 1;
    while (size < groupBins[g]!.length) size *= 2;
    offset[g + 1] = offset[g]! + 2 * size;
    for (const b of groupBins[g]!) leaves[b + 1] = leaves[b + 1]! + 1;
  }
  for (let b = 0; b < binCount; b++) leaves[b + 1] = leaves[b + 1]! + leaves[b]!;
  // Each bin's leaves, by (tree offset, position in the tree).
  const leafTree = new Int32Array(leaves[binCount]!);
  const leafAt = new Int32Array(leaves[binCount]!);
  const filled = leaves.slice(0, binCount);
  const node = new Int32Array(offset[groupCount]!).fill(-1);
  for (let g = 0; g < groupCount; g++) {
    const base = offset[g]!;
    const size = (offset[g + 1]! - base) >> 1;
    groupBins[g]!.forEach((b, k) => {
      node[base + size + k] = b;
      leafTree[filled[b]!] = base;
      leafAt[filled[b]!] = size + k;
      filled[b] = filled[b]! + 1;
    });
    for (let k = size - 1; k >= 1; k--)
      node[base + k] = lighter(node[base + 2 * k]!, node[base + 2 * k + 1]!, load, tie);
  }
  for (let item = 0; item < weight.length; item++) {
    if (bin[item] !== -1) continue;
    const best = node[offset[group[item]!]! + 1]!;
    bin[item] = best;
    load[best] = load[best]! + weight[item]!;
    tie[best] = tie[best]! + tieWeight;
    // The bin only got heavier: matches it did not win are unchanged, so each walk stops at its first loss.
    for (let j = leaves[best]!; j < leaves[best + 1]!; j++) {
      const base = leafTree[j]!;
      for (let k = leafAt[j]! >> 1; k >= 1 && node[base + k] === best; k >>= 1) {
        node[base + k] = lighter(node[base + 2 * k]!, node[base + 2 * k + 1]!, load, tie);
      }
    }
  }
}

/**
 * The tournament for a single group (everyone subscribes to everything), walked inline: a call per item
 * and per tree was most of this greedy's cost. A tree of losers (each match keeps the bin that lost it,
 * the champion apart): only the champion changes, so re-playing walks up from its leaf against the stored
 * loser at each match, one read per level where a tree of winners reads both players. The order is
 * total (load, tie tally, index), so the placement is the same.
 */
function placeBySingleTournament(problem: Problem, placement: Placement): void {
  const { weight, tieWeight, binCount } = problem;
  const bins = problem.groupBins[0]!;
  const { bin, load, tie } = placement;
  let size = 1;
  while (size < bins.length) size *= 2;
  const leafOf = new Int32Array(binCount);
  const loser = new Int32Array(size).fill(-1);
  let champion = buildLoserTree(bins, size, placement, loser, 0, leafOf);
  for (let item = 0; item < weight.length; item++) {
    if (bin[item] !== -1) continue;
    const best = champion;
    bin[item] = best;
    load[best] = load[best]! + weight[item]!;
    tie[best] = tie[best]! + tieWeight;
    let candidate = best;
    for (let k = leafOf[best]! >> 1; k >= 1; k >>= 1) {
      const opponent = loser[k]!;
      if (lighter(opponent, candidate, load, tie) === opponent) {
        loser[k] = candidate;
        candidate = opponent;
      }
    }
    champion = candidate;
  }
}

/** The rule applied literally, every eligible bin of every item: for small problems, and the tests' oracle. */
export function placeByScan(problem: Problem, placement: Placement): void {
  const { weight, tieWeight, capacity, group, groupBins } = problem;
  const { bin, load, tie } = placement;
  // Dividing by a capacity of 1 changes nothing, so a level of equal members (capacity 1) skips it.
  const unit = capacity.every((c) => c === 1);
  for (let item = 0; item < weight.length; item++) {
    if (bin[item] !== -1) continue;
    const w = weight[item]!;
    const bins = groupBins[group[item]!]!;
    // The first bin with the smallest primary key; the secondary key matters only on a tie, rare with
    // real weights, so it is computed only then. Loads are finite: both keys at every bin pick the same.
    let best = bins[0]!;
    let bestPrimary = unit ? load[best]! + w : (load[best]! + w) / capacity[best]!;
    let tied = false;
    for (let k = 1; k < bins.length; k++) {
      const b = bins[k]!;
      const primary = unit ? load[b]! + w : (load[b]! + w) / capacity[b]!;
      if (primary < bestPrimary) {
        best = b;
        bestPrimary = primary;
        tied = false;
      } else if (primary === bestPrimary) {
        tied = true;
      }
    }
    if (tied) best = lowestSecondary(problem, placement, bins, w, bestPrimary);
    bin[item] = best;
    load[best] = load[best]! + w;
    tie[best] = tie[best]! + tieWeight;
  }
}

/** Among `bins` whose primary key for weight `w` is `primary`: the first with the smallest secondary key. */
function lowestSecondary(problem: Problem, placement: Placement, bins: Int32Array, w: number, primary: number): number {
  const { capacity, tieWeight } = problem;
  const { load, tie } = placement;
  let best = -1;
  let bestSecondary = Infinity;
  for (let k = 0; k < bins.length; k++) {
    const b = bins[k]!;
    if ((load[b]! + w) / capacity[b]! !== primary) continue;
    const secondary = (tie[b]! + tieWeight) / capacity[b]!;
    if (best < 0 || secondary < bestSecondary) {
      best = b;
      bestSecondary = secondary;
    }
  }
  return best;
}
