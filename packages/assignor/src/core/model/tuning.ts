import type { BalanceOptions } from '../types.js';
import { InvalidBalanceInputError } from '../../errors/errors.js';

/** Default weight of a partition that has no usable weight. */
export const DEFAULT_PARTITION_WEIGHT = 1;

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
  readonly defaultWeight: number;
  readonly moveTolerance: number;
  readonly maxMoves: number;
  readonly searchBudget: number;
}

/**
 * Applies defaults and rejects values that would make the result meaningless: a NaN default
 * weight would make the heaviest-first order inconsistent (the result would depend on input
 * order), a negative one would make loads negative. Throws {@link InvalidBalanceInputError}
 * naming the option, like bad member ids do. `balance()` checks its options itself rather than
 * trusting a caller's schema: it is public and may be called directly.
 */
export function resolveBalanceOptions(options: BalanceOptions | undefined): ResolvedBalanceOptions {
  // Typed callers cannot pass anything else; plain-JavaScript ones can.
  if (options !== undefined && (typeof options !== 'object' || (options as unknown) === null)) {
    throw new InvalidBalanceInputError('options', describe(options), 'an object or undefined');
  }
  const given = options ?? {};
  return {
    defaultWeight: numberOption('defaultWeight', given.defaultWeight, DEFAULT_PARTITION_WEIGHT, { finite: true }),
    moveTolerance: numberOption('moveTolerance', given.moveTolerance, DEFAULT_MOVE_TOLERANCE, { finite: true }),
    // Infinity means "unbounded" for these two.
    maxMoves: Math.floor(
      numberOption('maxMovesPerRebalance', given.maxMovesPerRebalance, Number.POSITIVE_INFINITY, { finite: false }),
    ),
    searchBudget: numberOption('searchBudget', given.searchBudget, DEFAULT_SEARCH_BUDGET, { finite: false }),
  };
}

/** One numeric option: `fallback` when absent, else a number >= 0 (finite when asked). */
function numberOption(name: string, value: unknown, fallback: number, rule: { finite: boolean }): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' && !Number.isNaN(value) && value >= 0 && (!rule.finite || Number.isFinite(value));
  if (!ok)
    throw new InvalidBalanceInputError(name, describe(value), rule.finite ? 'a finite number >= 0' : 'a number >= 0');
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
