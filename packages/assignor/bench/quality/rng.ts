import { createRandom } from '@load-aware/test-support';

/**
 * The quality benchmark's view of the shared seeded PRNG (`../random.ts`, mulberry32), so every
 * run scores exactly the same groups and a change in the numbers is never a different draw.
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
  const random = createRandom(seed);
  return { next: () => random.next(), int: (n) => random.int(n), logNormal: (sigma) => random.logNormal(0, sigma) };
}
