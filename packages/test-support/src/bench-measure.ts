import { PerformanceObserver } from 'node:perf_hooks';

/** Timings and memory of one benchmark case. */
export interface Measurement {
  /** Timed runs (after warm-up). */
  readonly runs: number;
  readonly medianMs: number;
  /** Nearest-rank 95th percentile; with few runs this is the slowest run. */
  readonly p95Ms: number;
  /**
   * Largest growth of the used heap across one run (heap collected before each run): what the
   * run still held when it returned, result included. A lower bound of its peak heap use.
   */
  readonly heapDeltaMb: number;
  /** Resident set size just before the first warm-up run (input built, heap collected). */
  readonly rssBaseMb: number;
  /** The process's resident set high-water mark after all runs. */
  readonly rssPeakMb: number;
}

/** How long to keep measuring; runs stop at whichever limit comes first, but never below `minRuns`. */
export interface MeasureOptions {
  readonly warmupRuns: number;
  readonly warmupBudgetMs: number;
  readonly minRuns: number;
  readonly maxRuns: number;
  /** Wall time for the timed phase, collections between runs included. */
  readonly budgetMs: number;
}

/** Adaptive run counts: slow cases stop at 5 runs, fast ones get up to 200 within 3 s. */
export const DEFAULT_MEASURE_OPTIONS: MeasureOptions = {
  warmupRuns: 3,
  warmupBudgetMs: 2000,
  minRuns: 5,
  maxRuns: 200,
  budgetMs: 3000,
};

const MB = 1024 * 1024;

/**
 * Times `run` after a warm-up. The heap is collected before every run when the process was started
 * with `--expose-gc`, so one run's garbage is not billed to the next.
 */
export async function measure(
  run: () => unknown,
  options: MeasureOptions = DEFAULT_MEASURE_OPTIONS,
): Promise<Measurement> {
  const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => undefined);
  gc();
  const rssBaseMb = process.memoryUsage().rss / MB;

  const warmupStarted = performance.now();
  for (let i = 0; i < options.warmupRuns && performance.now() - warmupStarted < options.warmupBudgetMs; i++) {
    await run();
  }

  const timesMs: number[] = [];
  let heapDelta = 0;
  const started = performance.now();
  while (
    timesMs.length < options.minRuns ||
    (timesMs.length < options.maxRuns && performance.now() - started < options.budgetMs)
  ) {
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    await run();
    timesMs.push(performance.now() - t0);
    heapDelta = Math.max(heapDelta, process.memoryUsage().heapUsed - heapBefore);
  }

  timesMs.sort((a, b) => a - b);
  const mid = timesMs.length >> 1;
  return {
    runs: timesMs.length,
    medianMs: timesMs.length % 2 === 1 ? timesMs[mid]! : (timesMs[mid - 1]! + timesMs[mid]!) / 2,
    p95Ms: timesMs[Math.ceil(0.95 * timesMs.length) - 1]!,
    heapDeltaMb: heapDelta / MB,
    rssBaseMb,
    // maxRSS is in kilobytes.
    rssPeakMb: (process.resourceUsage().maxRSS * 1024) / MB,
  };
}

/** What one run allocates: see {@link measureAllocation}. */
export interface Allocation {
  /** Heap and ArrayBuffer memory allocated by one run, garbage included, in MB. */
  readonly allocatedMb: number;
  /** False if a collection ran during the run anyway: `allocatedMb` then undercounts. */
  readonly exact: boolean;
}

/**
 * Everything one run allocates on the heap and in ArrayBuffers (typed arrays), garbage included:
 * an upper bound of its peak heap use, where {@link Measurement.heapDeltaMb} (what it still holds
 * at the end) is a lower bound. Meaningful only in a process whose young generation is large
 * enough that no collection runs during the call (`--min-semi-space-size` = max); a collection
 * that runs anyway is detected and reported.
 */
export async function measureAllocation(run: () => unknown, warmupRuns = 3): Promise<Allocation> {
  const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => undefined);
  for (let i = 0; i < warmupRuns; i++) await run();
  gc();
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  const used = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = used();
  await run();
  const after = used();
  // GC entries are delivered asynchronously, later than the next turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 100));
  observer.disconnect();
  return { allocatedMb: (after - before) / MB, exact: collections === 0 };
}
