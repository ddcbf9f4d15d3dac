import { binsByLevel, levelOf, type SearchContext } from './moves.js';
import { NODE_COST } from '../place/ledger.js';

/** Items re-split at most per pair: 2^20 subsets is the worst case a node cap then cuts short. */
const MAX_FREE_ITEMS = 20;
/** Search nodes per pair; the work budget is charged for every node visited. */
const MAX_NODES_PER_PAIR = 20_000;
/** Partners tried per step, lightest first: the lightest bins have the most room. */
const MAX_PARTNERS = 8;

/** A re-split: each listed item goes to the paired bin listed at the same position. */
export interface Resplit {
  readonly items: number[];
  readonly to: number[];
}

/**
 * The strongest neighbourhood, for when no single move or swap helps: the busiest bin and a lighter one
 * share their heaviest exchangeable partitions (up to 20) optimally, by branch and bound on the subset
 * that goes to the busiest. This finds the 2-for-1 and 3-for-2 exchanges that leave the greedy stuck
 * (e.g. 29,20,19,13,11,4,1 on two bins: greedy 50, optimum 49). It may move many partitions at once,
 * so it only runs when moves are free (no previous owner).
 */
export function bestResplitOffTop(ctx: SearchContext, top: number): Resplit | undefined {
  let best = levelOf(ctx, top) - ctx.eps;
  let chosen: Resplit | undefined;
  const partners = binsByLevel(ctx, top, false).slice(0, MAX_PARTNERS);
  for (const partner of partners) {
    if (levelOf(ctx, partner) >= best || ctx.budget.remaining <= 0) break;
    const found = resplitPair(ctx, top, partner, best);
    if (found !== undefined) {
      best = found.level;
      chosen = found.resplit;
    }
  }
  return chosen;
}

/** Optimal sharing of the pair's heaviest exchangeable items, if it beats `bestLevel`. */
function resplitPair(
  ctx: SearchContext,
  a: number,
  b: number,
  bestLevel: number,
): { level: number; resplit: Resplit } | undefined {
  const { problem, placement } = ctx;
  const { weight, group, eligible, binCount } = problem;
  const free = mergeHeaviest(ctx, a, b).filter((item) => {
    const g = group[item]! * binCount;
    return eligible[g + a] === 1 && eligible[g + b] === 1;
  });
  if (free.length < 2) return undefined;
  const capA = problem.capacity[a]!;
  const capB = problem.capacity[b]!;
  let fixedA = placement.load[a]!;
  let fixedB = placement.load[b]!;
  let total = 0;
  for (const item of free) {
    if (placement.bin[item] === a) fixedA -= weight[item]!;
    else fixedB -= weight[item]!;
    total += weight[item]!;
  }
  const suffix = new Float64Array(free.length + 1);
  for (let k = free.length - 1; k >= 0; k--) suffix[k] = suffix[k + 1]! + weight[free[k]!]!;
  // The pair's worse level as a function of the weight A given to `a`: V-shaped around `ideal`.
  const levelFor = (toA: number): number => Math.max((fixedA + toA) / capA, (fixedB + total - toA) / capB);
  const ideal = (capA * (fixedB + total) - capB * fixedA) / (capA + capB);

  let best = bestLevel;
  let bestMask: Uint8Array | undefined;
  const mask = new Uint8Array(free.length);
  let nodes = 0;
  const visit = (k: number, toA: number): void => {
    if (nodes++ >= MAX_NODES_PER_PAIR) return;
    // The best this branch can still reach: the achievable A closest to the ideal.
    const reachable = Math.min(Math.max(ideal, toA), toA + suffix[k]!);
    if (levelFor(reachable) >= best) return;
    if (k === free.length) {
      best = levelFor(toA);
      bestMask = Uint8Array.from(mask);
      return;
    }
    mask[k] = 1;
    visit(k + 1, toA + weight[free[k]!]!);
    mask[k] = 0;
    visit(k + 1, toA);
  };
  visit(0, 0);
  ctx.budget.remaining -= nodes * NODE_COST;
  if (bestMask === undefined) return undefined;
  const items: number[] = [];
  const to: number[] = [];
  free.forEach((item, k) => {
    const target = bestMask![k] === 1 ? a : b;
    if (placement.bin[item] !== target) {
      items.push(item);
      to.push(target);
    }
  });
  return { level: best, resplit: { items, to } };
}

/** The heaviest items of two bins together, heaviest first (lists are in index order). */
function mergeHeaviest(ctx: SearchContext, a: number, b: number): number[] {
  const left = ctx.items[a]!;
  const right = ctx.items[b]!;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (out.length < MAX_FREE_ITEMS && (i < left.length || j < right.length)) {
    if (j >= right.length || (i < left.length && left[i]! < right[j]!)) out.push(left[i++]!);
    else out.push(right[j++]!);
  }
  return out;
}
