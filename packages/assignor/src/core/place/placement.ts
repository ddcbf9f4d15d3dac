import type { Problem } from '../model/problem.js';
import { lighter } from '../structures/tournament.js';
import { presizedLists } from '../structures/presized-lists.js';

/** Below this many item × bin steps, the greedy scans every eligible bin for every item. */
const SCAN_WORK = 1_000_000;

/** A (partial) placement of a {@link Problem}'s items, with the tallies it implies. */
export interface Placement {
  /** Bin of each item, -1 while unplaced. */
  readonly bin: Int32Array;
  /** Load of each bin, base load included. */
  readonly load: Float64Array;
  /** Secondary tally of each bin, base included. */
  readonly tie: Float64Array;
  /**
   * Items of each bin in ascending index order (heaviest first), for the search. Built once by
   * {@link indexItems} and kept up to date by {@link moveItem}.
   */
  items: number[][] | undefined;
}

/** A placement with nothing placed: every bin carries its base load only. */
export function emptyPlacement(problem: Problem): Placement {
  return {
    bin: new Int32Array(problem.weight.length).fill(-1),
    load: Float64Array.from(problem.baseLoad),
    tie: Float64Array.from(problem.baseTie),
    items: undefined,
  };
}

/** A placement of every item to the bins given (a copy: `bin` is not kept). */
export function placementOf(problem: Problem, bin: Int32Array): Placement {
  const placement = emptyPlacement(problem);
  bin.forEach((b, item) => {
    place(problem, placement, item, b);
  });
  return placement;
}

/** Puts an unplaced item on a bin. */
export function place(problem: Problem, placement: Placement, item: number, bin: number): void {
  placement.bin[item] = bin;
  placement.load[bin] = placement.load[bin]! + problem.weight[item]!;
  placement.tie[bin] = placement.tie[bin]! + problem.tieWeight;
  placement.items = undefined;
}

/**
 * The reference placement rule (docs/architecture.md, "Placement rule") for every item still unplaced, heaviest first:
 * onto the eligible bin whose load per unit of capacity would be smallest after taking it, then
 * the smallest secondary tally, then the lowest index (the smallest id).
 */
export function placeGreedily(problem: Problem, placement: Placement): void {
  if (dealsInTurn(problem, placement)) placeInTurn(problem, placement);
  else if (tournamentsPay(problem)) placeByTournament(problem, placement);
  else placeByScan(problem, placement);
  placement.items = undefined;
}

/**
 * With equal capacities the best bin does not depend on the item's weight, so a tournament per
 * group finds it in log time. It ranks bins by load where the scan ranks them by load after
 * taking the item, and the two can disagree on a float rounding tie, so small problems, where the
 * scan is cheap anyway, keep the scan and match the reference exactly. Not worth it either when
 * there are so many groups that keeping every tree up to date costs more than scanning.
 */
function tournamentsPay(problem: Problem): boolean {
  const { capacity, groupBins, binCount, weight } = problem;
  if (weight.length * binCount < SCAN_WORK || !capacity.every((c) => c === capacity[0])) return false;
  let treeSize = 0;
  for (const bins of groupBins) treeSize += bins.length;
  return treeSize <= 4 * binCount + 64;
}

/**
 * True when the rule reduces to dealing items out in bin order: every item unplaced, equally
 * heavy and free to go anywhere, every bin equally big and empty. The rule then always picks the
 * lowest-index bin among those holding one item fewer, which is bin `item mod binCount`: loads
 * after r full rounds are the same sum on every bin, and a positive weight added to a load that
 * started at zero always makes it larger (no rounding can absorb it below 2^53 items).
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
 * Most atoms a group may be made of for {@link placeByAtoms}: each item compares the champions of
 * its group's atoms, so past a few of them one tree per group is cheaper.
 */
const MAX_ATOMS_PER_GROUP = 8;

/**
 * The bins in classes of those that belong to exactly the same groups (atoms), and the atoms
 * making up each group. Racks make few atoms: with one replica each rack's instances are a group
 * and an atom of their own, with two every group is the union of two racks' atoms.
 */
interface Atoms {
  /** Bins of each atom, ascending. */
  readonly bins: ReadonlyArray<Int32Array>;
  /** Atoms of each group. */
  readonly ofGroup: ReadonlyArray<Int32Array>;
}

/** The {@link Atoms} of `problem`; undefined when some group is made of too many of them. */
function atomsOf(problem: Problem): Atoms | undefined {
  const { binCount, groupBins } = problem;
  const memberships: number[][] = Array.from({ length: binCount }, () => []);
  groupBins.forEach((bins, g) => {
    for (const b of bins) memberships[b]!.push(g);
  });
  const atomOfKey = new Map<string, number>();
  const atomOf = new Int32Array(binCount).fill(-1);
  const bins: number[][] = [];
  for (let b = 0; b < binCount; b++) {
    if (memberships[b]!.length === 0) continue;
    const key = memberships[b]!.join(',');
    let a = atomOfKey.get(key);
    if (a === undefined) atomOfKey.set(key, (a = bins.push([]) - 1));
    bins[a]!.push(b);
    atomOf[b] = a;
  }
  const seen = new Int32Array(bins.length).fill(-1);
  const ofGroup: Int32Array[] = [];
  for (let g = 0; g < groupBins.length; g++) {
    const list: number[] = [];
    for (const b of groupBins[g]!) {
      const a = atomOf[b]!;
      if (seen[a] === g) continue;
      seen[a] = g;
      list.push(a);
    }
    if (list.length > MAX_ATOMS_PER_GROUP) return undefined;
    ofGroup.push(Int32Array.from(list));
  }
  return { bins: bins.map((list) => Int32Array.from(list)), ofGroup };
}

/**
 * {@link placeByTournament} through atoms: a tree of losers per atom (as
 * {@link placeBySingleTournament} keeps for one group), all in one flat array. A group's lightest
 * bin is the lightest of its atoms' champions, and a placed item changes only its own atom's
 * champion, so each item costs a look at its group's few champions and one walk up one tree,
 * where a tree per group would walk up every tree the bin is in, reading both players at each
 * match. The order is total (load, tie tally, index), so the placement is the same.
 */
function placeByAtoms(problem: Problem, placement: Placement, atoms: Atoms): void {
  const { weight, tieWeight, group, binCount } = problem;
  const { bin, load, tie } = placement;
  const atomCount = atoms.bins.length;
  // Atom a's tree occupies `loser[offset[a] .. offset[a] + size)`, matches 1 .. size - 1 (as in a
  // heap), and its bin b's leaf is `leaf[b]` (size + position).
  const offset = new Int32Array(atomCount + 1);
  const leaf = new Int32Array(binCount);
  for (let a = 0; a < atomCount; a++) {
    let size = 1;
    while (size < atoms.bins[a]!.length) size *= 2;
    offset[a + 1] = offset[a]! + size;
  }
  const loser = new Int32Array(offset[atomCount]!).fill(-1);
  const atomOfBin = new Int32Array(binCount);
  const champion = new Int32Array(atomCount);
  for (let a = 0; a < atomCount; a++) {
    const base = offset[a]!;
    champion[a] = buildLoserTree(atoms.bins[a]!, offset[a + 1]! - base, placement, loser, base, leaf);
    for (const b of atoms.bins[a]!) atomOfBin[b] = a;
  }
  for (let item = 0; item < weight.length; item++) {
    if (bin[item] !== -1) continue;
    const list = atoms.ofGroup[group[item]!]!;
    let best = champion[list[0]!]!;
    for (let k = 1; k < list.length; k++) best = lighter(best, champion[list[k]!]!, load, tie);
    bin[item] = best;
    load[best] = load[best]! + weight[item]!;
    tie[best] = tie[best]! + tieWeight;
    const a = atomOfBin[best]!;
    const base = offset[a]!;
    let candidate = best;
    for (let k = leaf[best]! >> 1; k >= 1; k >>= 1) {
      const opponent = loser[base + k]!;
      if (lighter(opponent, candidate, load, tie) === opponent) {
        loser[base + k] = candidate;
        candidate = opponent;
      }
    }
    champion[a] = candidate;
  }
}

/**
 * {@link placeByTournament} with a tree of winners per group (leaves padded to a power of two,
 * internal node k the winner of 2k and 2k + 1), all in one flat array: group g's occupies
 * `node[offset[g] ..]`, its leaves from `offset[g] + size` on. For groups made of many atoms
 * (mixed subscriptions), where comparing atom champions would approach a scan.
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
    // The bin only got heavier: matches it did not win stay as they are, so each walk up stops
    // at the first one it lost.
    for (let j = leaves[best]!; j < leaves[best + 1]!; j++) {
      const base = leafTree[j]!;
      for (let k = leafAt[j]! >> 1; k >= 1 && node[base + k] === best; k >>= 1) {
        node[base + k] = lighter(node[base + 2 * k]!, node[base + 2 * k + 1]!, load, tie);
      }
    }
  }
}

/**
 * The tournament for a single group, walked inline: this is the whole
 * greedy of a group where everyone subscribes to everything, and a call per item and per tree was
 * most of its cost.
 *
 * Kept as a tree of losers: every match remembers the bin that lost it, and the champion is kept
 * apart. The greedy only ever changes the champion (it takes the item), so re-playing means
 * walking up from its leaf and facing the loser stored at each match: one stored bin read per
 * level, where a tree of winners reads both players. The champion is the lightest bin either way
 * (the order is total: load, tie tally, index), so the placement is the same.
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

/**
 * Plays a tournament over `bins` (`size` leaves, a power of two, -1 for none) as a tree of winners
 * would, and keeps each match's loser in `loser[base + k]` for match k (1 .. size - 1, as in a
 * heap); bin b's leaf goes to `leafOf[b]`. Returns the champion, the lightest bin by (load, tie
 * tally, index). Shared by the trees of losers of {@link placeBySingleTournament} and
 * {@link placeByAtoms}, which then only replay the champion's path.
 */
function buildLoserTree(
  bins: Int32Array,
  size: number,
  placement: Placement,
  loser: Int32Array,
  base: number,
  leafOf: Int32Array,
): number {
  const { load, tie } = placement;
  const winner = new Int32Array(2 * size).fill(-1);
  bins.forEach((b, k) => {
    winner[size + k] = b;
    leafOf[b] = size + k;
  });
  for (let k = size - 1; k >= 1; k--) {
    const left = winner[2 * k]!;
    const right = winner[2 * k + 1]!;
    const won = lighter(left, right, load, tie);
    winner[k] = won;
    loser[base + k] = won === left ? right : left;
  }
  return winner[1]!;
}

/**
 * The rule applied literally: every eligible bin of every item looked at. Used on small problems,
 * and exported for the tests that check the faster paths against it.
 */
export function placeByScan(problem: Problem, placement: Placement): void {
  const { weight, tieWeight, capacity, group, groupBins } = problem;
  const { bin, load, tie } = placement;
  // Dividing by a capacity of 1 changes nothing, so a level of equal members (always capacity 1)
  // skips the divisions: the same numbers, compared the same way.
  const unit = capacity.every((c) => c === 1);
  for (let item = 0; item < weight.length; item++) {
    if (bin[item] !== -1) continue;
    const w = weight[item]!;
    const bins = groupBins[group[item]!]!;
    // The smallest primary key first (the first bin holding it); the secondary key only matters
    // among bins that share that minimum, which real weights rarely produce, so it is only
    // computed then. Loads are finite, so this picks what comparing both keys at every bin would.
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

/** Among `bins` whose primary key for an item of weight `w` is `primary`: the first with the smallest secondary key. */
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

/** Builds the per-bin item lists the search needs. */
export function indexItems(problem: Problem, placement: Placement): number[][] {
  const items = itemsByBin(placement.bin, problem.binCount);
  placement.items = items;
  return items;
}

/**
 * The items of each bin, ascending. Loops of their own: compiled on-stack inside
 * `indexItems`, the store after them had no type feedback yet, and that code, kept for later
 * calls, left every one of them there.
 */
function itemsByBin(bin: Int32Array, binCount: number): number[][] {
  // Counted first so each list is allocated once at its size.
  const sizes = new Int32Array(binCount);
  for (let item = 0; item < bin.length; item++) {
    const b = bin[item]!;
    if (b >= 0) sizes[b] = sizes[b]! + 1;
  }
  const items = presizedLists<number>(sizes);
  const filled = new Int32Array(binCount);
  for (let item = 0; item < bin.length; item++) {
    const b = bin[item]!;
    if (b >= 0) items[b]![filled[b]!++] = item;
  }
  return items;
}

/** Moves a placed item to another bin, keeping tallies and item lists in step. */
export function moveItem(problem: Problem, placement: Placement, item: number, to: number): void {
  const from = placement.bin[item]!;
  const w = problem.weight[item]!;
  placement.bin[item] = to;
  placement.load[from] = placement.load[from]! - w;
  placement.load[to] = placement.load[to]! + w;
  placement.tie[from] = placement.tie[from]! - problem.tieWeight;
  placement.tie[to] = placement.tie[to]! + problem.tieWeight;
  const items = placement.items;
  if (items === undefined) return;
  const source = items[from]!;
  source.splice(firstNotBelow(source, item), 1);
  const target = items[to]!;
  target.splice(firstNotBelow(target, item), 0, item);
}

/** First position in an ascending list whose value is not below `value`. */
export function firstNotBelow(list: ReadonlyArray<number>, value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Largest and smallest load per unit of capacity over all bins (0 and 0 without bins). */
export function extremes(problem: Problem, placement: Placement): { max: number; min: number } {
  if (problem.binCount === 0) return { max: 0, min: 0 };
  let max = -Infinity;
  let min = Infinity;
  for (let b = 0; b < problem.binCount; b++) {
    const l = placement.load[b]! / problem.capacity[b]!;
    if (l > max) max = l;
    if (l < min) min = l;
  }
  return { max, min };
}
