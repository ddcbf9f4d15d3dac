import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import type { Placement } from '../place/placement.js';
import { moveDelta, preferredSlot, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { createsTwoWay, swapIsTwoWay, type Crossings } from './crossings.js';
import { spreadCost, type Spread } from './spread.js';

/**
 * Equally good candidates looked at past the first, for the spread tie-break: a cap, so a step never
 * scans a bin of thousands of equal partitions (whose alternatives, ordered by topic, sit far down).
 */
export const MAX_TIES = 64;

/** Everything a neighbourhood search looks at. */
export interface SearchContext {
  readonly problem: Problem;
  readonly placement: Placement;
  /** Items of each bin, ascending index (heaviest first). */
  readonly items: number[][];
  readonly ledger: MoveLedger;
  readonly budget: WorkBudget;
  /**
   * Smallest decrease of the busiest level worth a step, so float noise never counts as progress. Steps
   * raising the least busy level use {@link noiseAt} of that level: this eps would hide differences there.
   */
  readonly eps: number;
  /** Counted items away from home per topic, when there are any: see {@link affordable}. */
  readonly crossings: Crossings | undefined;
  /** Items per topic and bin, for the tie-break between equally good steps; undefined when off. */
  readonly spread: Spread | undefined;
}

/** One step: `item` goes to bin `to`; for a swap, `other` (else -1) goes to `item`'s bin. */
export interface Step {
  readonly item: number;
  readonly to: number;
  readonly other: number;
}

/** Load per unit of capacity of bin `b`. */
export function levelOf(ctx: SearchContext, b: number): number {
  return ctx.placement.load[b]! / ctx.problem.capacity[b]!;
}

/** True when the move ledger allows the step and it moves no topic both ways between two bins ({@link Crossings}). */
export function affordable(ctx: SearchContext, item: number, from: number, to: number, other = -1): boolean {
  const { ledger, crossings, problem } = ctx;
  let delta = moveDelta(ledger, item, from, to);
  if (other >= 0) delta += moveDelta(ledger, other, to, from);
  if (ledger.used + delta > ledger.limit) return false;
  if (crossings === undefined) return true;
  if (createsTwoWay(crossings, problem, ledger, item, to)) return false;
  return (
    other < 0 ||
    !(createsTwoWay(crossings, problem, ledger, other, from) || swapIsTwoWay(problem, ledger, item, from, to, other))
  );
}

/** Bins other than `exclude`, by load per unit of capacity (ascending or descending), ties by index. */
export function binsByLevel(ctx: SearchContext, exclude: number, descending: boolean): number[] {
  const order: number[] = [];
  for (let b = 0; b < ctx.problem.binCount; b++) if (b !== exclude) order.push(b);
  const sign = descending ? -1 : 1;
  order.sort((a, b) => sign * (levelOf(ctx, a) - levelOf(ctx, b)) || a - b);
  ctx.budget.remaining -= order.length;
  return order;
}

/** First position in a bin's item list whose weight is below `limit` (weights are non-increasing). */
export function firstLighterThan(ctx: SearchContext, list: ReadonlyArray<number>, limit: number): number {
  const weight = ctx.problem.weight;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (weight[list[mid]!]! >= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The best single move off the busiest bin `top`: the item and destination that leave the pair's larger
 * level smallest, if below `top`'s current level. Only bins on the group's frontier can be best (per
 * capacity the least loaded eligible bin, a bigger one only if also less loaded), so the cost is one
 * pass over the group's bins plus one look per item; items too heavy to fit anywhere are skipped.
 */
export function bestMoveOffTop(ctx: SearchContext, top: number): Step | undefined {
  const any = moveOffTop(ctx, top, -1);
  if (any === undefined) return undefined;
  const only = preferredSlot(ctx.ledger, ctx.problem.weight, top, ctx.items[top]!);
  if (only < 0) return any;
  const mine = moveOffTop(ctx, top, only);
  if (mine === undefined) return any;
  // The slot's step also lowers the busiest level, and spares the level below a move (moves rank above pace).
  return mine;
}

/** {@link bestMoveOffTop} among the items {@link fromSlot} allows. */
function moveOffTop(ctx: SearchContext, top: number, only: number): Step | undefined {
  const { problem, placement, budget } = ctx;
  const capTop = problem.capacity[top]!;
  const loadTop = placement.load[top]!;
  let best = loadTop / capTop - ctx.eps;
  let lowest = Infinity;
  let largest = 0;
  // Only bins of top's part can take its items (see `Problem.partOf`).
  const part = problem.partOf[top]!;
  for (let b = 0; b < problem.binCount; b++) {
    if (b === top || problem.partOf[b] !== part) continue;
    lowest = Math.min(lowest, levelOf(ctx, b));
    largest = Math.max(largest, problem.capacity[b]!);
  }
  if (lowest >= best) return undefined;
  const list = ctx.items[top]!;
  const frontiers: Array<number[] | undefined> = new Array<number[] | undefined>(problem.groupBins.length);
  let step: Step | undefined;
  let cost = 0;
  let ties = 0;
  for (let k = firstLighterThan(ctx, list, (best - lowest) * largest); k < list.length; k++) {
    const item = list[k]!;
    const w = problem.weight[item]!;
    const levelTop = (loadTop - w) / capTop;
    // Lighter items leave `top` even higher; equal ones only matter for the spread tie-break.
    if (levelTop > best || (levelTop === best && (!tieBreaking(ctx, step) || ties++ >= MAX_TIES))) break;
    if (!fromSlot(ctx, item, top, only)) continue;
    const g = problem.group[item]!;
    const frontier = (frontiers[g] ??= frontierOf(ctx, g, top));
    budget.remaining -= 1 + frontier.length;
    for (const to of frontier) {
      const value = Math.max(levelTop, (placement.load[to]! + w) / problem.capacity[to]!);
      if (value > best) continue;
      const spread = spreadCost(ctx.spread, ctx.problem, item, top, to);
      if (value === best && (step === undefined || spread >= cost)) continue;
      if (!affordable(ctx, item, top, to)) continue;
      best = value;
      cost = spread;
      step = { item, to, other: -1 };
    }
  }
  return step;
}

/** Eligible bins of group `g` (except `exclude`) not beaten by a bin at least as big and as light. */
function frontierOf(ctx: SearchContext, g: number, exclude: number): number[] {
  const capacity = ctx.problem.capacity;
  const bins = ctx.problem.groupBins[g]!;
  ctx.budget.remaining -= bins.length;
  const frontier: number[] = [];
  for (const b of bins) {
    if (b === exclude) continue;
    const level = levelOf(ctx, b);
    const cap = capacity[b]!;
    if (frontier.some((f) => capacity[f]! >= cap && levelOf(ctx, f) <= level)) continue;
    for (let i = frontier.length - 1; i >= 0; i--) {
      const f = frontier[i]!;
      if (capacity[f]! <= cap && levelOf(ctx, f) >= level) frontier.splice(i, 1);
    }
    frontier.push(b);
  }
  return frontier;
}

/**
 * The best single move onto the least busy bin `bottom`, from the busiest bins down: the one leaving the
 * pair's smaller level largest. Both new levels stay strictly between the old ones: no new maximum.
 */
export function bestMoveOntoBottom(ctx: SearchContext, bottom: number): Step | undefined {
  const { problem, budget } = ctx;
  const capBottom = problem.capacity[bottom]!;
  const levelBottom = levelOf(ctx, bottom);
  let best = levelBottom + noiseAt(levelBottom);
  let step: Step | undefined;
  let cost = 0;
  let ties = 0;
  const row = problem.binCount;
  for (const from of binsByLevel(ctx, bottom, true)) {
    const levelFrom = levelOf(ctx, from);
    if (levelFrom < best || (levelFrom === best && !tieBreaking(ctx, step))) break; // later sources are lighter
    const capFrom = problem.capacity[from]!;
    const gap = levelFrom - levelBottom;
    const list = ctx.items[from]!;
    for (let k = firstLighterThan(ctx, list, gap * Math.min(capBottom, capFrom)); k < list.length; k++) {
      const item = list[k]!;
      budget.remaining--;
      const w = problem.weight[item]!;
      const newBottom = levelBottom + w / capBottom;
      if (newBottom < best || (newBottom === best && (!tieBreaking(ctx, step) || ties++ >= MAX_TIES))) break;
      if (problem.eligible[problem.group[item]! * row + bottom] === 0) continue;
      const value = Math.min(newBottom, levelFrom - w / capFrom);
      if (value < best) continue;
      const spread = spreadCost(ctx.spread, ctx.problem, item, from, bottom);
      if (value === best && (step === undefined || spread >= cost)) continue;
      if (!affordable(ctx, item, from, bottom)) continue;
      best = value;
      cost = spread;
      step = { item, to: bottom, other: -1 };
    }
  }
  return step;
}

/** True when equally good candidates are worth looking at: a step is in hand and topics can be told apart. */
export function tieBreaking(ctx: SearchContext, step: Step | undefined): boolean {
  return step !== undefined && ctx.spread !== undefined;
}

/**
 * True when `item` of bin `top` may be picked while shedding from slot `only` (-1: any): items away
 * from home or without a slot always may, home items only from that slot.
 */
function fromSlot(ctx: SearchContext, item: number, top: number, only: number): boolean {
  if (only < 0) return true;
  const { ledger } = ctx;
  const slot = ledger.slot![item]!;
  return slot < 0 || slot === only || ledger.home[item] !== top || ledger.counted[item] === 0;
}
