/** A value and the median wall time of computing it, after one untimed warm-up run. */
export function runTimed<T>(run: () => T, runs = 3): { value: T; ms: number } {
  let value = run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    value = run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { value, ms: times[times.length >> 1]! };
}

/**
 * Two computations timed alike: each warmed up twice, then `runs` (at least one) of each
 * alternated, each side's median wall time and last value. Timing one after the other would time
 * the first cold: the second runs code the first already had optimized for both.
 */
export function runTimedPair<A, B>(
  first: () => A,
  second: () => B,
  runs = 5,
): { first: { value: A; ms: number }; second: { value: B; ms: number } } {
  for (let i = 0; i < 2; i++) {
    first();
    second();
  }
  let a: A | undefined;
  let b: B | undefined;
  const timesA: number[] = [];
  const timesB: number[] = [];
  for (let i = 0; i < Math.max(1, runs); i++) {
    let started = performance.now();
    a = first();
    timesA.push(performance.now() - started);
    started = performance.now();
    b = second();
    timesB.push(performance.now() - started);
  }
  const median = (times: number[]): number => times.sort((x, y) => x - y)[times.length >> 1]!;
  return { first: { value: a as A, ms: median(timesA) }, second: { value: b as B, ms: median(timesB) } };
}
