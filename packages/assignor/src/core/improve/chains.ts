import { moveDelta } from '../place/ledger.js';
import type { Problem } from '../model/problem.js';
import { createsTwoWay } from './crossings.js';
import { firstLighterThan, levelOf, type SearchContext } from './moves.js';

/** Transfers along subscription edges: `items[k]` goes to bin `to[k]`; no two leave the same bin. */
export interface Chain {
  readonly items: number[];
  readonly to: number[];
}

/**
 * An ejection chain off bin `source` when no single move helps: `source` gives a partition to a bin
 * subscribed to it, that bin passes one of its own on, and so on until a bin can keep what it receives.
 * Every bin on the chain ends strictly below `source`'s level and `source` drops, so the busiest level
 * never rises and the search cannot cycle. Breadth first (bins in index order), so the fewest partitions
 * move; each bin passes on the lightest partition of each group that keeps it below the ceiling. With
 * equal weights and capacities this is an augmenting path of the load-balancing flow: with none from any
 * bin, the placement is (lexicographically) optimal.
 *
 * `dead` (optional): bins known to lead nowhere below a ceiling at least this one, not entered, and
 * joined on failure by this search's bins ({@link markDead}). Exact with equal weights, so a sweep over
 * many givers costs one pass over the graph; with weights it may miss a chain, never take a bad one.
 */
export function findChain(ctx: SearchContext, source: number, dead?: Uint8Array): Chain | undefined {
  const { problem, placement, ledger, budget } = ctx;
  const { binCount, capacity, weight, group, groupBins } = problem;
  const ceiling = levelOf(ctx, source) - ctx.eps;
  const seen = dead === undefined ? new Uint8Array(binCount) : Uint8Array.from(dead);
  const incoming = new Float64Array(binCount);
  const spent = new Int32Array(binCount);
  const parentBin = new Int32Array(binCount).fill(-1);
  const parentItem = new Int32Array(binCount).fill(-1);
  const groupDone = new Uint8Array(groupBins.length);
  seen[source] = 1;
  const queue = [source];
  for (let head = 0; head < queue.length && budget.remaining > 0; head++) {
    const c = queue[head]!;
    const load = placement.load[c]!;
    // What c passes on must exceed this for c to end below the ceiling (anything, for the source).
    const need = c === source ? 0 : load + incoming[c]! - ceiling * capacity[c]!;
    const list = ctx.items[c]!;
    groupDone.fill(0);
    // Once every group that may be at c is done, nothing further down c's list can open a path.
    let openGroups = countGroupsAt(problem, c);
    for (let k = firstLighterThan(ctx, list, need) - 1; k >= 0 && openGroups > 0; k--) {
      const item = list[k]!;
      const w = weight[item]!;
      budget.remaining--;
      if (w <= need) continue;
      const g = group[item]!;
      if (groupDone[g] === 1) continue;
      let blocked = false;
      for (const d of groupBins[g]!) {
        if (seen[d] === 1) continue;
        budget.remaining--;
        const cost = spent[c]! + moveDelta(ledger, item, c, d);
        const guarded = ctx.crossings !== undefined && createsTwoWay(ctx.crossings, problem, ledger, item, d);
        if (ledger.used + cost > ledger.limit || guarded) {
          blocked = true; // a heavier partition of this group may still be allowed to go there
          continue;
        }
        seen[d] = 1;
        parentBin[d] = c;
        parentItem[d] = item;
        if ((placement.load[d]! + w) / capacity[d]! < ceiling) return chainTo(d, parentBin, parentItem);
        incoming[d] = w;
        spent[d] = cost;
        queue.push(d);
      }
      if (!blocked) {
        groupDone[g] = 1;
        if (problem.eligible[g * binCount + c] === 1) openGroups--;
      }
    }
  }
  if (dead !== undefined) markDead(ctx, source, ceiling, seen, dead);
  return undefined;
}

/**
 * After a failed search, marks `dead` the source and every bin reached below the ceiling (with equal weights
 * these could pass on anything). One reached at or above it, not searched from, may start a chain: it stays a giver.
 */
function markDead(ctx: SearchContext, source: number, ceiling: number, seen: Uint8Array, dead: Uint8Array): void {
  for (let b = 0; b < seen.length; b++) {
    if (seen[b] === 1 && (b === source || levelOf(ctx, b) < ceiling)) dead[b] = 1;
  }
}

/**
 * Groups that may go to bin `c`: every item on `c` belongs to one of them. Infinite (the scan is
 * never cut short) past {@link COUNTED_GROUPS} groups, where counting would cost more than it saves.
 */
function countGroupsAt(problem: Problem, c: number): number {
  const groups = problem.groupBins.length;
  if (groups > COUNTED_GROUPS) return Number.POSITIVE_INFINITY;
  let n = 0;
  for (let g = 0; g < groups; g++) n += problem.eligible[g * problem.binCount + c]!;
  return n;
}

/** Most groups {@link countGroupsAt} counts. */
const COUNTED_GROUPS = 64;

function chainTo(end: number, parentBin: Int32Array, parentItem: Int32Array): Chain {
  const items: number[] = [];
  const to: number[] = [];
  for (let d = end; parentBin[d]! >= 0; d = parentBin[d]!) {
    items.push(parentItem[d]!);
    to.push(d);
  }
  return { items, to };
}
