/**
 * The demo's skewed traffic: a Zipf-like mix over the partitions of one topic. The partition of
 * rank k (1-based) carries a share proportional to 1 / k^s of the total; which partition holds
 * which rank is a permutation drawn from a seed, so runs are reproducible. Moving the hotspot
 * rotates the ranking by `hotspotShift` places: the same mix, on other partitions.
 */

/** What shapes the traffic. */
export interface TrafficOptions {
  partitions: number;
  /** Total produce rate over all partitions. */
  eventsPerSecond: number;
  /** Zipf exponent s: 0 is uniform, 1 is classic Zipf. */
  zipfExponent: number;
  seed: number;
  /** Ranks the hotspot moves by at mid-phase; not a multiple of the member count, or round-robin would keep its luck. */
  hotspotShift: number;
}

/** Per-partition rates (events/s, index = partition) before and after the hotspot moves. */
export interface Traffic {
  readonly before: readonly number[];
  readonly after: readonly number[];
}

/** mulberry32: a tiny, well-mixed 32-bit PRNG; enough for a reproducible permutation. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds both rankings of the mix. */
export function createTraffic(options: TrafficOptions): Traffic {
  const { partitions, eventsPerSecond, zipfExponent, seed, hotspotShift } = options;
  const random = seededRandom(seed);
  const byRank = Array.from({ length: partitions }, (_, p) => p);
  for (let i = partitions - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [byRank[i], byRank[j]] = [byRank[j]!, byRank[i]!];
  }
  const shares = byRank.map((_, rank) => 1 / Math.pow(rank + 1, zipfExponent));
  const total = shares.reduce((a, b) => a + b, 0);
  const rates = (shift: number): number[] => {
    const result = new Array<number>(partitions).fill(0);
    shares.forEach((share, rank) => {
      result[byRank[(rank + shift) % partitions]!] = (eventsPerSecond * share) / total;
    });
    return result;
  };
  return { before: rates(0), after: rates(hotspotShift % partitions) };
}
