import { noiseAt } from '../structures/numbers.js';
import { affordable, binsByLevel, levelOf, type SearchContext, type Step } from './moves.js';

/**
 * Swaps: when no single partition can leave the busiest bin (or reach the least busy one) without
 * overshooting, trading a heavier partition for a lighter one moves just their difference.
 */

/**
 * Partners tried per swap step, from the far end of the load order: each costs a pass over both bins,
 * and the far end has the most room, so more rarely win and would make a step linear in the group.
 */
const MAX_PARTNERS = 8;

/** The best swap between the busiest bin `top` and a lighter bin, judged by the pair's larger level. */
export function bestSwapOffTop(ctx: SearchContext, top: number): Step | undefined {
  const state: PairSearch = { best: levelOf(ctx, top) - ctx.eps, step: undefined };
  for (const light of binsByLevel(ctx, top, false).slice(0, MAX_PARTNERS)) {
    if (levelOf(ctx, light) >= state.best) break;
    searchPair(ctx, top, light, 'lower-max', state);
  }
  return state.step;
}

/** The best swap between the least busy bin `bottom` and a heavier bin, judged by the pair's smaller level. */
export function bestSwapOntoBottom(ctx: SearchContext, bottom: number): Step | undefined {
  const level = levelOf(ctx, bottom);
  const state: PairSearch = { best: level + noiseAt(level), step: undefined };
  for (const heavy of binsByLevel(ctx, bottom, true).slice(0, MAX_PARTNERS)) {
    if (levelOf(ctx, heavy) <= state.best) break;
    searchPair(ctx, heavy, bottom, 'raise-min', state);
  }
  return state.step;
}

interface PairSearch {
  /** Level to beat: below it for 'lower-max', above it for 'raise-min'. */
  best: number;
  step: Step | undefined;
}

/**
 * Finds the swap between `heavy` and `light` whose net transfer d = w(p) − w(q) > 0 (p leaves `heavy`,
 * q leaves `light`) comes closest to levelling the pair. The pair's worse level is V-shaped in d, so per
 * q only the two p around the ideal weight matter, and the ideal falls as q gets lighter: one merge-like
 * pass. 'lower-max' may overshoot (heavy may end below light's old level); 'raise-min' keeps both new
 * levels strictly between the old ones so it never raises the maximum.
 */
function searchPair(
  ctx: SearchContext,
  heavy: number,
  light: number,
  mode: 'lower-max' | 'raise-min',
  state: PairSearch,
): void {
  const { problem, placement } = ctx;
  const row = problem.binCount;
  const weight = problem.weight;
  const capHeavy = problem.capacity[heavy]!;
  const capLight = problem.capacity[light]!;
  const loadHeavy = placement.load[heavy]!;
  const loadLight = placement.load[light]!;
  const levelHeavy = loadHeavy / capHeavy;
  const levelLight = loadLight / capLight;
  const ideal = (loadHeavy * capLight - loadLight * capHeavy) / (capHeavy + capLight);
  const gap = levelHeavy - levelLight;
  const lowerMax = mode === 'lower-max';
  const maxTransfer = lowerMax ? gap * capLight : gap * Math.min(capHeavy, capLight);
  const givers = eligibleItems(ctx, heavy, light, row);
  const takers = eligibleItems(ctx, light, heavy, row);
  ctx.budget.remaining -= ctx.items[heavy]!.length + ctx.items[light]!.length;
  let i = 0;
  for (const q of takers) {
    const wq = weight[q]!;
    const target = wq + ideal;
    while (i < givers.length && weight[givers[i]!]! > target) i++;
    for (let c = Math.max(0, i - 1); c <= i && c < givers.length; c++) {
      const p = givers[c]!;
      const d = weight[p]! - wq;
      if (d <= 0 || d >= maxTransfer) continue;
      const newHeavy = (loadHeavy - d) / capHeavy;
      const newLight = (loadLight + d) / capLight;
      const value = lowerMax ? Math.max(newHeavy, newLight) : Math.min(newHeavy, newLight);
      if ((lowerMax ? value < state.best : value > state.best) && affordable(ctx, p, heavy, light, q)) {
        state.best = value;
        state.step = { item: p, to: light, other: q };
      }
    }
  }
}

/** Items of bin `from` allowed on bin `to`, heaviest first (read only). */
function eligibleItems(ctx: SearchContext, from: number, to: number, row: number): ReadonlyArray<number> {
  const { group, eligible, groupBins } = ctx.problem;
  // Everything may go everywhere (one group of all bins): the bin's own list, not a copy of it.
  if (groupBins.length === 1 && groupBins[0]!.length === row) return ctx.items[from]!;
  return ctx.items[from]!.filter((item) => eligible[group[item]! * row + to] === 1);
}
