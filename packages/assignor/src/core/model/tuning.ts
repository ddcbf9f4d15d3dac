import type { BalanceOptions } from '../types.js';
import { InvalidBalanceInputError } from '../../errors/errors.js';

/** Default weight of a partition that has no usable weight. */
export const DEFAULT_PARTITION_WEIGHT = 1;

/** Default of `BalanceOptions.moveTolerance`: moves must buy more than 5% of balance. */
export const DEFAULT_MOVE_TOLERANCE = 0.05;

/**
 * Default of `BalanceOptions.orphanAim`: after orphaned partitions are placed, the busiest
 * instance is aimed at a quarter of the tolerance above the best placement found. Why closer than
 * half: placing the orphans moves partitions anyway, and the busiest instance is the objective's
 * first term. Measured at half: the busiest ended 2.5% above the best known after the seeded
 * leaves of bench:quality and 2.4–2.5% after half the leaves of the leave sweep; at a quarter,
 * 1.2% on both, for about 3% more moved weight at the sweep's median.
 */
export const DEFAULT_ORPHAN_AIM = 0.25;

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
  readonly orphanAim: number;
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
    orphanAim: numberOption('orphanAim', given.orphanAim, DEFAULT_ORPHAN_AIM, { finite: true, max: 1 }),
    // Infinity means "unbounded" for these two.
    maxMoves: Math.floor(
      numberOption('maxMovesPerRebalance', given.maxMovesPerRebalance, Number.POSITIVE_INFINITY, { finite: false }),
    ),
    searchBudget: numberOption('searchBudget', given.searchBudget, DEFAULT_SEARCH_BUDGET, { finite: false }),
  };
}

/** One numeric option: `fallback` when absent, else a number >= 0 (finite, at most `max`, when asked). */
function numberOption(name: string, value: unknown, fallback: number, rule: { finite: boolean; max?: number }): number {
  if (value === undefined) return fallback;
  const max = rule.max ?? Number.POSITIVE_INFINITY;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    value >= 0 &&
    value <= max &&
    (!rule.finite || Number.isFinite(value));
  if (!ok) {
    const expected =
      rule.max !== undefined
        ? `a number from 0 to ${String(rule.max)}`
        : rule.finite
          ? 'a finite number >= 0'
          : 'a number >= 0';
    throw new InvalidBalanceInputError(name, describe(value), expected);
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
