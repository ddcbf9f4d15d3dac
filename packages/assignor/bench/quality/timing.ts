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
