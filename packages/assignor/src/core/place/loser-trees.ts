import type { Problem } from '../model/problem.js';
import { lighter } from '../structures/tournament.js';
import type { Placement } from './placement.js';

/** Most atoms per group for {@link placeByAtoms}: past a few, comparing champions costs more than a tree per group. */
const MAX_ATOMS_PER_GROUP = 8;

/**
 * The bins in classes of those in exactly the same groups (atoms), and each group's atoms. Racks make few:
 * with one replica each rack's instances are a group and an atom, with two each group is two racks' atoms.
 */
export interface Atoms {
  /** Bins of each atom, ascending. */
  readonly bins: ReadonlyArray<Int32Array>;
  /** Atoms of each group. */
  readonly ofGroup: ReadonlyArray<Int32Array>;
}

/** The {@link Atoms} of `problem`; undefined when some group is made of too many of them. */
export function atomsOf(problem: Problem): Atoms | undefined {
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
 * {@link placeByTournament} through atoms: a tree of losers per atom (as {@link placeBySingleTournament}
 * keeps for one group) in one flat array. A group's lightest bin is the lightest of its atoms' champions,
 * and a placed item changes only its own atom's champion, so each item costs a look at a few champions
 * and one walk up one tree, not up every tree holding the bin. Same placement: the order is total.
 */
export function placeByAtoms(problem: Problem, placement: Placement, atoms: Atoms): void {
  const { weight, tieWeight, group, binCount } = problem;
  const { bin, load, tie } = placement;
  const atomCount = atoms.bins.length;
  // Atom a's tree: `loser[offset[a] .. offset[a] + size)`, matches 1 .. size - 1 as in a heap; bin b's
  // leaf is `leaf[b]` (size + position).
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
 * Plays a tournament over `bins` (`size` leaves, a power of two, -1 for none) as a tree of winners
 * would, keeping match k's loser in `loser[base + k]` (k in 1 .. size - 1, as in a heap) and bin b's
 * leaf in `leafOf[b]`. Returns the champion, the lightest bin by (load, tie tally, index). Shared by
 * {@link placeBySingleTournament} and {@link placeByAtoms}, which then replay only the champion's path.
 */
export function buildLoserTree(
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
