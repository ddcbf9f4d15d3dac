/** Number formats shared by the triggers' reasons and the controller's log lines, so both read alike. */

/** A ratio with three decimals; `n/a` when the group was not judged. */
export const ratioText = (value: number | undefined): string => (value === undefined ? 'n/a' : value.toFixed(3));

/** A duration in seconds: one decimal below 10 s, none above. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** A figure (a rate, a capacity, a load × seconds amount): three significant digits, no trailing zeros; NaN and ±Infinity as is. */
export const figure = (value: number): string =>
  Number.isFinite(value) ? String(Number(value.toPrecision(3))) : String(value);
