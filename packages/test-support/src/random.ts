/**
 * A small seeded PRNG for the benchmarks, so every run measures exactly the same input and a
 * regression in the numbers is never a different draw.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** Log-normal: exp(mu + sigma·N(0,1)). Heavy right tail, like real partition traffic. */
  logNormal(mu: number, sigma: number): number;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
}

/** mulberry32: 32 bits of state, good enough statistics for synthetic load, fully reproducible. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => {
    // 1 - next() is in (0, 1], so the logarithm is finite.
    const u = 1 - next();
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal,
    logNormal: (mu, sigma) => Math.exp(mu + sigma * normal()),
    hex: (length) => {
      let out = '';
      for (let i = 0; i < length; i++) out += Math.floor(next() * 16).toString(16);
      return out;
    },
  };
}
