/**
 * The oracle of the sustainable-throughput benchmark: the best static assignment of a workload
 * whose per-partition costs and member capacities are known in advance. "Best" is the smallest
 * busiest member load ÷ capacity, which is what caps a static assignment's sustainable rate: the
 * busiest member falls behind first. Found exactly by branch and bound (small inputs: the demo's
 * 24 partitions over 6 members take milliseconds), so the benchmark measures how close a live
 * assigner comes to what any assignment could reach, not to a bound no assignment attains.
 * Pure: no clock, no I/O.
 */

/** The best static plan found. */
export interface OraclePlan {
  /** Member index → its partitions (ascending). */
  plan: number[][];
  /** Busiest member's load ÷ capacity under `plan`. */
  busiest: number;
  /** max(heaviest ÷ largest capacity, total ÷ total capacity): no plan does better. */
  lowerBound: number;
  /** True when the search finished (or met the lower bound) within the node budget: `plan` is optimal. */
  exact: boolean;
  /** Search nodes visited. */
  nodes: number;
}

/** Search nodes before the search gives up and keeps the best plan found (it never does at 24 × 6). */
export const ORACLE_NODE_BUDGET = 50_000_000;

// Loads are compared with a relative slack, so a plan equal to the best one up to rounding is no improvement.
const EPSILON = 1e-12;

/**
 * Best static assignment of `costs` (index = partition, a cost per second such as messages/s)
 * over members of `capacities` (cost per second each can carry), minimising the busiest member's
 * load ÷ capacity. Partitions are placed heaviest first; a member is skipped when it has the
 * same load and capacity as one already tried for the same partition (swapping them gives the
 * same plan), and a branch is cut as soon as some member reaches the best ratio found so far.
 * Starts from the greedy plan (each partition, heaviest first, to the member whose ratio after
 * taking it is lowest), so the search only has to prove or beat it.
 */
export function bestStaticPlan(
  costs: readonly number[],
  capacities: readonly number[],
  nodeBudget = ORACLE_NODE_BUDGET,
): OraclePlan {
  if (capacities.length === 0 || capacities.some((c) => !(c > 0))) {
    throw new Error(`capacities ${JSON.stringify(capacities)}: expected at least one, each > 0`);
  }
  if (costs.some((c) => !Number.isFinite(c) || c < 0)) {
    throw new Error(`costs ${JSON.stringify(costs)}: expected finite numbers ≥ 0`);
  }
  const members = capacities.length;
  const order = costs.map((_, p) => p).sort((a, b) => costs[b]! - costs[a]! || a - b);
  const total = costs.reduce((a, b) => a + b, 0);
  const lowerBound = Math.max(
    total / capacities.reduce((a, b) => a + b, 0),
    (costs[order[0]!] ?? 0) / Math.max(...capacities),
  );

  // Greedy start.
  const greedyOwner = new Array<number>(costs.length).fill(0);
  const greedyLoad = new Array<number>(members).fill(0);
  for (const p of order) {
    let best = 0;
    for (let m = 1; m < members; m++) {
      if ((greedyLoad[m]! + costs[p]!) / capacities[m]! < (greedyLoad[best]! + costs[p]!) / capacities[best]!) best = m;
    }
    greedyOwner[p] = best;
    greedyLoad[best]! += costs[p]!;
  }
  let bestOwner = greedyOwner;
  let bestRatio = Math.max(...greedyLoad.map((l, m) => l / capacities[m]!));

  const load = new Array<number>(members).fill(0);
  const owner = new Array<number>(costs.length).fill(0);
  // An object, so the checker sees the search's writes after it returns.
  const budget = { nodes: 0, exhausted: false };
  const solved = (): boolean => bestRatio <= lowerBound * (1 + EPSILON);
  const search = (depth: number, ratio: number): void => {
    if (solved() || budget.exhausted) return;
    if (depth === order.length) {
      bestRatio = ratio;
      bestOwner = [...owner];
      return;
    }
    const p = order[depth]!;
    const cost = costs[p]!;
    const tried: Array<[number, number]> = [];
    for (let m = 0; m < members; m++) {
      const after = (load[m]! + cost) / capacities[m]!;
      if (after >= bestRatio * (1 - EPSILON)) continue;
      if (tried.some(([l, c]) => l === load[m] && c === capacities[m])) continue;
      tried.push([load[m]!, capacities[m]!]);
      if (++budget.nodes > nodeBudget) {
        budget.exhausted = true;
        return;
      }
      load[m]! += cost;
      owner[p] = m;
      search(depth + 1, Math.max(ratio, after));
      load[m]! -= cost;
    }
  };
  search(0, 0);
  const plan = capacities.map(() => [] as number[]);
  bestOwner.forEach((m, p) => plan[m]!.push(p));
  return { plan, busiest: bestRatio, lowerBound, exact: !budget.exhausted || solved(), nodes: budget.nodes };
}
