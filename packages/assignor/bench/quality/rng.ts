/**
 * The quality benchmark's own seeded PRNG (mulberry32), so every run scores exactly the same
 * groups and a change in the numbers is never a different draw.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Log-normal exp(σ·N(0,1)). */
  logNormal(sigma: number): number;
}

/** A generator seeded with `seed`. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    logNormal(sigma) {
      // 1 - next() is in (0, 1], so the logarithm is finite.
      const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      return Math.exp(sigma * normal);
    },
  };
}
