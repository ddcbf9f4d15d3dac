/** A figure for log text: three significant digits, no trailing zeros; NaN and ±Infinity as is. */
export function figure(value: number): string {
  return Number.isFinite(value) ? String(Number(value.toPrecision(3))) : String(value);
}
