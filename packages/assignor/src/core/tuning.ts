import type { BalanceOptions } from './types.js';
import { InvalidBalanceInputError } from '../errors.js';

/** Default of `BalanceOptions.moveTolerance`: moves must buy more than 5% of balance. */
export const DEFAULT_MOVE_TOLERANCE = 0.05;

/**
 * Default of `BalanceOptions.searchBudget`: a few tenths of a second of search at most on the
 * benchmark machine. The search usually converges far sooner: no case of the quality benchmark
 * uses more than a tenth of it (see BENCHMARKS.md, "Balance quality").
 */
export const DEFAULT_SEARCH_BUDGET = 5_000_000;

/** `balance()` options with defaults applied and values checked. */
export interface ResolvedBalanceOptions {
  readonly defaultWeight: number | undefined;
  readonly moveTolerance: number;
  readonly maxMoves: number;
  readonly searchBudget: number;
}

/**
 * Applies defaults and rejects values that would make the result meaningless. Throws
 * {@link InvalidBalanceInputError} naming the option, like bad member ids do.
 */
export function resolveBalanceOptions(options: BalanceOptions): ResolvedBalanceOptions {
  const moveTolerance = options.moveTolerance ?? DEFAULT_MOVE_TOLERANCE;
  if (!Number.isFinite(moveTolerance) || moveTolerance < 0) {
    throw new InvalidBalanceInputError('moveTolerance', String(moveTolerance), 'a finite number >= 0');
  }
  const maxMoves = options.maxMovesPerRebalance ?? Number.POSITIVE_INFINITY;
  if (Number.isNaN(maxMoves) || maxMoves < 0) {
    throw new InvalidBalanceInputError('maxMovesPerRebalance', String(maxMoves), 'a number >= 0');
  }
  const searchBudget = options.searchBudget ?? DEFAULT_SEARCH_BUDGET;
  if (Number.isNaN(searchBudget) || searchBudget < 0) {
    throw new InvalidBalanceInputError('searchBudget', String(searchBudget), 'a number >= 0');
  }
  return { defaultWeight: options.defaultWeight, moveTolerance, maxMoves: Math.floor(maxMoves), searchBudget };
}
