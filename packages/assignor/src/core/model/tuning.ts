import type { BalanceOptions } from '../types.js';
import { InvalidBalanceInputError } from '../../errors/errors.js';

/** Default weight of a partition that has no usable weight. */
export const DEFAULT_PARTITION_WEIGHT = 1;

/** Default of `BalanceOptions.moveTolerance`: moves must buy more than 5% of balance. */
export const DEFAULT_MOVE_TOLERANCE = 0.05;

/**
 * Default of `BalanceOptions.orphanAim`: a quarter of the tolerance, closer than half because placing orphans
 * moves partitions anyway and the busiest instance is the objective's first term (BENCHMARKS.md, "Leaves on
 * untuned groups", the aim as a dial).
 */
export const DEFAULT_ORPHAN_AIM = 0.25;

/**
 * Default of `BalanceOptions.searchBudget`: a few tenths of a second at most on the benchmark machine; the
 * search usually converges far sooner (no case of `bench:quality` uses a tenth of it).
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
 * Applies defaults and rejects values that would make the result meaningless (a NaN default weight makes the
 * result depend on input order, a negative one makes loads negative). Throws {@link InvalidBalanceInputError}
 * naming the option: `balance()` is public, so it checks its options rather than trust a caller's schema.
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
