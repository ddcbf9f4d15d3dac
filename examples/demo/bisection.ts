/**
 * Bisection over the produce rate (pure, apart from the probe it is handed): the bracket starts
 * at a rate assumed sustainable and one assumed not, each probe halves it geometrically (rates
 * are compared as ratios), and it stops once high ÷ low is within the precision or the probe
 * budget is spent. The answer is the bracket: the sustainable rate is at least `low` and below
 * `high`; a bound no probe confirmed is marked unverified.
 */

/** What is known about the sustainable rate. */
export interface Bracket {
  /** Highest rate known (or assumed) sustainable. */
  low: number;
  /** Lowest rate known (or assumed) not sustainable. */
  high: number;
  /** A probe at `low` was judged sustainable (false: `low` is the assumed bound). */
  lowVerified: boolean;
  /** A probe at `high` was judged not sustainable (false: `high` is the assumed bound). */
  highVerified: boolean;
}

/** When the bisection stops. */
export interface BisectionLimits {
  /** Stop once high ÷ low ≤ 1 + precision. */
  precision: number;
  maxProbes: number;
}

/** The starting bracket, from two assumed bounds; throws unless 0 < low < high. */
export function initialBracket(low: number, high: number): Bracket {
  if (!(low > 0 && high > low)) {
    throw new RangeError(`bracket ${String(low)}..${String(high)}: expected 0 < low < high`);
  }
  return { low, high, lowVerified: false, highVerified: false };
}

/** The next rate to probe: the geometric midpoint, in whole msg/s. */
export function nextRate(b: Bracket): number {
  return Math.round(Math.sqrt(b.low * b.high));
}

/** The bracket after a probe at `rate` found it sustainable or not. */
export function narrow(b: Bracket, rate: number, sustainable: boolean): Bracket {
  if (sustainable) {
    return rate > b.low
      ? { ...b, low: rate, lowVerified: true }
      : { ...b, lowVerified: b.lowVerified || rate === b.low };
  }
  return rate < b.high
    ? { ...b, high: rate, highVerified: true }
    : { ...b, highVerified: b.highVerified || rate === b.high };
}

/** True once the bracket is narrow enough, the budget is spent, or whole rates cannot split it. */
export function bisectionDone(b: Bracket, probes: number, limits: BisectionLimits): boolean {
  if (probes >= limits.maxProbes || b.high <= b.low * (1 + limits.precision)) return true;
  const mid = nextRate(b);
  return mid <= b.low || mid >= b.high;
}

/**
 * Runs one bisection per key, interleaved: each round probes every key whose bracket is not done
 * yet, once, in the order given. On a shared machine, load that comes and goes then falls on
 * every key's probes alike rather than on whichever key happened to run at the time.
 * `probe(key, rate)` answers true for sustainable. Returns each key's final bracket and rates probed.
 */
export async function bisectInterleaved<K>(
  keys: readonly K[],
  start: Bracket,
  limits: BisectionLimits,
  probe: (key: K, rate: number) => Promise<boolean>,
): Promise<Map<K, { bracket: Bracket; rates: number[] }>> {
  const state = new Map(keys.map((key) => [key, { bracket: start, rates: [] as number[] }]));
  for (;;) {
    const pending = [...state].filter(([, s]) => !bisectionDone(s.bracket, s.rates.length, limits));
    if (pending.length === 0) return state;
    for (const [key, s] of pending) {
      const rate = nextRate(s.bracket);
      s.rates.push(rate);
      s.bracket = narrow(s.bracket, rate, await probe(key, rate));
    }
  }
}
