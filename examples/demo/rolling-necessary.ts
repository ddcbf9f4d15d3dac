/**
 * The rolling-restart benchmark's weighted "necessary": the fewest partitions any assignment must
 * move, from the previous generation, to reach a busiest instance load ÷ capacity no worse than
 * the new generation's. The count-only necessary (rolling-analysis.ts) keeps the new per-member
 * counts and so misses that a weighted balance may need more moves; this one asks only for the
 * balance and lets the search pick the partitions. Computed exactly by branch and bound, which
 * is quick at the benchmark's 24 partitions over a handful of instances. Pure.
 *
 * The model: a partition whose previous owner is still in the group may stay on that owner's
 * instance at no cost (it keeps its member, and only instance loads enter the ratio); any other
 * placement is a move. A partition whose owner left must move wherever it goes. Every running
 * instance `i` may carry at most `limit × capacity(i)`.
 */

/** What the search is asked. */
export interface NecessaryInput {
  /** Index = partition: its load (msg/s). */
  weights: readonly number[];
  /** Index = partition: the instance it may stay on for free, or undefined when its owner left. */
  keepAt: readonly (string | undefined)[];
  /** Running instance → capacity (its members in the new generation). */
  capacities: ReadonlyMap<string, number>;
  /** Highest load ÷ capacity any instance may end with. */
  limit: number;
}

/** The cheapest set of moves found. */
export interface NecessaryMoves {
  /** Partitions moved. */
  moves: number;
  /** Their total weight. */
  weight: number;
  /** False when the node budget ran out first: then an upper bound, not the minimum. */
  exact: boolean;
}

/** Search nodes before giving up and keeping the best found (never reached at 24 partitions in practice). */
export const NECESSARY_NODE_BUDGET = 20_000_000;

// Loads within this relative slack of the limit count as meeting it (the limit is itself a measured ratio).
const SLACK = 1e-9;

/**
 * Fewest moves (`by: 'count'`, ties broken by weight) or least moved weight (`by: 'weight'`,
 * ties by count) reaching `limit`. Partitions are placed heaviest first, staying first; a branch
 * is cut when an instance would exceed its limit, or when its cost plus a lower bound on what the
 * rest must still cost (every partition without a home, plus for each instance the fewest of its
 * remaining own partitions that have to leave so the rest fit) reaches the best found.
 * Returns undefined when no assignment reaches the limit.
 */
export function fewestMoves(
  input: NecessaryInput,
  by: 'count' | 'weight',
  nodeBudget = NECESSARY_NODE_BUDGET,
): NecessaryMoves | undefined {
  const { weights, keepAt, capacities, limit } = input;
  const instances = [...capacities.keys()].sort();
  const index = new Map(instances.map((id, i) => [id, i]));
  const room = instances.map((id) => limit * capacities.get(id)! * (1 + SLACK));
  const order = weights.map((_, p) => p).sort((a, b) => weights[b]! - weights[a]! || a - b);
  const home = order.map((p) => {
    const at = keepAt[p];
    return at === undefined ? -1 : (index.get(at) ?? -1);
  });
  const w = order.map((p) => weights[p]!);
  // The search's cost: a primary (what is minimised) and a secondary (the tie-break), as one number.
  const total = w.reduce((a, b) => a + b, 0);
  const costOf = (weight: number): number =>
    by === 'count' ? 1 + weight / (total + 1) : weight + 1 / (order.length + 1);
  // Suffix sums of the cost of the remaining homeless partitions: they cost at least that.
  const homeless = new Array<number>(order.length + 1).fill(0);
  for (let d = order.length - 1; d >= 0; d--) homeless[d] = homeless[d + 1]! + (home[d] === -1 ? costOf(w[d]!) : 0);

  // homesLeft[d][i]: partitions from depth d on that may stay on instance i.
  const homesLeft = Array.from({ length: order.length + 1 }, () => new Array<number>(instances.length).fill(0));
  for (let d = order.length - 1; d >= 0; d--) {
    homesLeft[d] = [...homesLeft[d + 1]!];
    if (home[d] !== -1) homesLeft[d]![home[d]!]! += 1;
  }

  const load = new Array<number>(instances.length).fill(0);
  let best = Infinity;
  let bestMoves = 0;
  let bestWeight = 0;
  let nodes = 0;
  let exhausted = false;

  // Lower bound on the cost still to pay from depth d: homeless partitions, plus per instance the
  // cheapest set of its remaining own partitions whose departure lets the others fit (heaviest first
  // for counts; by weight, at least the excess itself).
  const remainingBound = (d: number): number => {
    let bound = homeless[d]!;
    for (let i = 0; i < instances.length; i++) {
      let own = 0;
      for (let k = d; k < order.length; k++) if (home[k] === i) own += w[k]!;
      let excess = load[i]! + own - room[i]!;
      if (excess <= 0) continue;
      if (by === 'weight') {
        bound += excess;
        continue;
      }
      for (let k = d; k < order.length && excess > 0; k++) {
        if (home[k] !== i) continue;
        bound += 1;
        excess -= w[k]!;
      }
    }
    return bound;
  };

  const search = (d: number, cost: number, moves: number, moved: number): void => {
    if (exhausted) return;
    if (++nodes > nodeBudget) {
      exhausted = true;
      return;
    }
    if (d === order.length) {
      if (cost < best) {
        best = cost;
        bestMoves = moves;
        bestWeight = moved;
      }
      return;
    }
    if (cost + remainingBound(d) >= best * (1 - SLACK)) return;
    const weight = w[d]!;
    const stay = home[d]!;
    if (stay !== -1 && load[stay]! + weight <= room[stay]!) {
      load[stay]! += weight;
      search(d + 1, cost, moves, moved);
      load[stay]! -= weight;
    }
    const tried: Array<[number, number]> = [];
    for (let i = 0; i < instances.length; i++) {
      if (i === stay || load[i]! + weight > room[i]!) continue;
      // Two instances with the same load and room, neither the home of a partition still to
      // place, are interchangeable from here on: trying the second gives the same costs again.
      if (homesLeft[d + 1]![i] === 0) {
        if (tried.some(([l, r]) => l === load[i] && r === room[i])) continue;
        tried.push([load[i]!, room[i]!]);
      }
      load[i]! += weight;
      search(d + 1, cost + costOf(weight), moves + 1, moved + weight);
      load[i]! -= weight;
    }
  };
  search(0, 0, 0, 0);
  return best === Infinity ? undefined : { moves: bestMoves, weight: bestWeight, exact: !exhausted };
}
