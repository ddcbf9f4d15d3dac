import { bestStaticPlan } from '../demo/oracle';
import { dealSlots } from '../demo/pinned-assigner';
import { capacityModel } from '../demo/sustainable';
import { defaultOptions } from '../demo/options';
import { seededRandom } from '../demo/traffic';

/** Busiest load ÷ capacity of `plan`. */
function busiest(costs: readonly number[], capacities: readonly number[], plan: readonly number[][]): number {
  return Math.max(...plan.map((ps, m) => ps.reduce((n, p) => n + costs[p]!, 0) / capacities[m]!));
}

/** The optimum by trying every assignment (members^partitions of them). */
function bruteForce(costs: readonly number[], capacities: readonly number[]): number {
  let best = Infinity;
  const owner = costs.map(() => 0);
  const visit = (p: number): void => {
    if (p === costs.length) {
      const load = capacities.map(() => 0);
      owner.forEach((m, q) => (load[m]! += costs[q]!));
      best = Math.min(best, Math.max(...load.map((l, m) => l / capacities[m]!)));
      return;
    }
    for (let m = 0; m < capacities.length; m++) {
      owner[p] = m;
      visit(p + 1);
    }
  };
  visit(0);
  return best;
}

describe('bestStaticPlan', () => {
  it('finds the optimum the exhaustive search finds, on random small inputs with unequal capacities', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 40; round++) {
      const costs = Array.from({ length: 3 + Math.floor(random() * 6) }, () => Math.round(random() * 100) / 10);
      const capacities = Array.from({ length: 2 + Math.floor(random() * 2) }, () => 1 + Math.floor(random() * 3));
      const result = bestStaticPlan(costs, capacities);
      expect(result.exact).toBe(true);
      expect(result.busiest).toBeCloseTo(bruteForce(costs, capacities), 9);
      expect(busiest(costs, capacities, result.plan)).toBeCloseTo(result.busiest, 9);
      expect(result.plan.flat().sort((a, b) => a - b)).toEqual(costs.map((_, p) => p));
    }
  });

  it('beats the greedy plan where greedy is not optimal', () => {
    // Greedy heaviest-first ends 3+2+2 = 7 against 3+2 = 5; the optimum is 3+3 against 2+2+2.
    const costs = [3, 3, 2, 2, 2];
    const result = bestStaticPlan(costs, [1, 1]);
    expect(result.busiest).toBe(6);
    expect(result.nodes).toBeGreaterThan(0);
  });

  it("gives the demo's hottest partition a member of its own: no static plan does better than that partition", () => {
    const { oracle, hottestShare, memberRate } = capacityModel(defaultOptions());
    expect(oracle.exact).toBe(true);
    expect(oracle.busiestShare).toBeCloseTo(hottestShare, 9);
    expect(oracle.ceiling).toBeCloseTo(memberRate / hottestShare, 6);
    expect(oracle.plan).toHaveLength(6);
    expect(oracle.plan.some((ps) => ps.length === 1)).toBe(true);
  });

  it("holds load-aware's own plan for the exact rates beside it: as good on its busiest member, laid out by instance", () => {
    const { oracle, loadAwarePlan } = capacityModel(defaultOptions());
    expect(loadAwarePlan.busiestShare).toBeCloseTo(oracle.busiestShare, 9);
    expect(loadAwarePlan.plan.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, p) => p));
    // Slots in layout order: instance-a's one member, instance-b's two, instance-c's three.
    expect(loadAwarePlan.plan).toHaveLength(6);
  });

  it('rejects a capacity that is not positive', () => {
    expect(() => bestStaticPlan([1], [1, 0])).toThrow(/capacities/);
  });
});

describe('dealSlots', () => {
  it('gives slot i to the i-th member by member id', () => {
    expect(dealSlots(['b-2', 'a-1', 'c-3'], [[0], [1, 2], [3]])).toEqual(
      new Map([
        ['a-1', [0]],
        ['b-2', [1, 2]],
        ['c-3', [3]],
      ]),
    );
  });

  it('deals the slots round-robin while the group has fewer members than the plan', () => {
    expect(dealSlots(['y', 'x'], [[0], [1], [4, 2]])).toEqual(
      new Map([
        ['x', [0, 2, 4]],
        ['y', [1]],
      ]),
    );
  });
});
