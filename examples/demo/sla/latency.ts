/**
 * End-to-end latency bookkeeping of the latency-SLA benchmark: each member process tallies the
 * messages it processes by the second they were produced in (a log-bucket histogram and a count
 * within the SLA); the parent merges the tallies and reads a window of produce seconds out of
 * them. Messages produced in the window but never processed are not forgotten: they count as
 * outside the SLA and enter the percentiles at their lower bound (the time they had waited when
 * the phase stopped), and a percentile that lands on such a message is reported as "at least".
 * Pure: no clock, no I/O.
 */

/** Each bucket is 2% wider than the one below: percentiles are read to within 2%. */
export const BUCKET_GROWTH = 1.02;

/** The lowest bucket, SLA × 1.02^−400 (0.36 ms for a 1 s SLA): anything faster lands in it. */
export const MIN_BUCKET = -400;

/** Bucket → messages. Keys are bucket numbers; plain objects so they travel as JSON. */
export type Histogram = Record<string, number>;

/** What was processed of the messages produced in one second. */
export interface SecondTally {
  processed: number;
  /** Of those, processed within the SLA. */
  withinSla: number;
  histogram: Histogram;
}

/** Produce second (epoch seconds) → its tally. */
export type Tallies = Record<string, SecondTally>;

/**
 * The bucket of `latencyMs`: bucket b holds (SLA × 1.02^(b−1), SLA × 1.02^b], so bucket 0 ends
 * exactly at the SLA and "p99 ≤ SLA" reads the same from the histogram as from the counts.
 */
export function bucketOf(latencyMs: number, slaMs: number): number {
  if (!(latencyMs > 0)) return MIN_BUCKET;
  // The slack keeps a value exactly on an edge (the SLA itself) in the bucket it ends.
  const bucket = Math.ceil(Math.log(latencyMs / slaMs) / Math.log(BUCKET_GROWTH) - 1e-9);
  // `|| 0`: the SLA itself computes as −0, which should not print as such.
  return Math.max(MIN_BUCKET, bucket) || 0;
}

/** The upper edge of `bucket`, in ms. */
export function bucketUpperMs(bucket: number, slaMs: number): number {
  return slaMs * Math.pow(BUCKET_GROWTH, bucket);
}

/** Adds `count` messages at `bucket`. */
function add(histogram: Histogram, bucket: number, count: number): void {
  const key = String(bucket);
  histogram[key] = (histogram[key] ?? 0) + count;
}

/** Tallies one process's messages until the next {@link LatencyRecorder.drain}. */
export class LatencyRecorder {
  private tallies: Tallies = {};

  constructor(private readonly slaMs: number) {}

  /** A message produced at `producedAtMs` was processed at `processedAtMs` (both epoch ms). */
  record(producedAtMs: number, processedAtMs: number): void {
    const key = String(Math.floor(producedAtMs / 1000));
    const tally = (this.tallies[key] ??= { processed: 0, withinSla: 0, histogram: {} });
    const latency = processedAtMs - producedAtMs;
    tally.processed++;
    if (latency <= this.slaMs) tally.withinSla++;
    add(tally.histogram, bucketOf(latency, this.slaMs), 1);
  }

  /** What was recorded since the last call; starts over. */
  drain(): Tallies {
    const out = this.tallies;
    this.tallies = {};
    return out;
  }
}

/** Adds `from` into `into`. */
export function mergeTallies(into: Tallies, from: Tallies): void {
  for (const [second, tally] of Object.entries(from)) {
    const target = (into[second] ??= { processed: 0, withinSla: 0, histogram: {} });
    target.processed += tally.processed;
    target.withinSla += tally.withinSla;
    for (const [bucket, count] of Object.entries(tally.histogram)) add(target.histogram, Number(bucket), count);
  }
}

/** A percentile read from the histogram. */
export interface Percentile {
  /** Upper edge of its bucket, ms. */
  ms: number;
  /** True when unprocessed messages reach down to it: the true value is at least `ms`. */
  atLeast: boolean;
}

/** What a window of produce seconds gave. */
export interface WindowStats {
  produced: number;
  processed: number;
  /** Produced in the window, not processed when the phase stopped. */
  unprocessed: number;
  /** Share of the produced messages processed within the SLA (0–1). */
  withinSla: number;
  p50: Percentile;
  p99: Percentile;
  p999: Percentile;
}

/** Where a window lies and what it is read against. */
export interface WindowInput {
  tallies: Tallies;
  /** Produce second → messages produced in it. */
  produced: Record<string, number>;
  /** First produce second of the window (epoch seconds) and the one after its last. */
  fromSecond: number;
  toSecond: number;
  /** When the members were asked to stop: unprocessed messages had waited at least until then. */
  stopAtMs: number;
  slaMs: number;
}

/**
 * Reads the window `[fromSecond, toSecond)`. Duplicates (a message processed twice after a
 * rebalance) can make a second's processed count exceed what it produced; counts are capped at
 * what was produced, so a duplicate never hides an unprocessed message of the same second.
 */
export function windowStats(input: WindowInput): WindowStats {
  const { tallies, produced, fromSecond, toSecond, stopAtMs, slaMs } = input;
  const done: Histogram = {};
  const censored: Histogram = {};
  let producedCount = 0;
  let processed = 0;
  let unprocessed = 0;
  let within = 0;
  for (let second = fromSecond; second < toSecond; second++) {
    const made = produced[String(second)] ?? 0;
    const tally = tallies[String(second)];
    producedCount += made;
    processed += Math.min(made, tally?.processed ?? 0);
    within += Math.min(made, tally?.withinSla ?? 0);
    for (const [bucket, count] of Object.entries(tally?.histogram ?? {})) add(done, Number(bucket), count);
    const missing = Math.max(0, made - (tally?.processed ?? 0));
    // Produced at the latest at the end of its second, so it had waited at least this long.
    if (missing > 0) add(censored, bucketOf(stopAtMs - (second + 1) * 1000, slaMs), missing);
    unprocessed += missing;
  }
  const percentile = (q: number): Percentile => quantile(done, censored, q, slaMs);
  return {
    produced: producedCount,
    processed,
    unprocessed,
    withinSla: producedCount === 0 ? 0 : within / producedCount,
    p50: percentile(0.5),
    p99: percentile(0.99),
    p999: percentile(0.999),
  };
}

/**
 * The nearest-rank q quantile of the processed and the censored messages together: the upper
 * edge of the first bucket where the running count reaches ⌈q × total⌉.
 */
export function quantile(done: Histogram, censored: Histogram, q: number, slaMs: number): Percentile {
  const buckets = [...new Set([...Object.keys(done), ...Object.keys(censored)].map(Number))].sort((a, b) => a - b);
  const total = buckets.reduce((n, b) => n + (done[String(b)] ?? 0) + (censored[String(b)] ?? 0), 0);
  if (total === 0) return { ms: Number.NaN, atLeast: false };
  const rank = Math.max(1, Math.ceil(q * total - 1e-9));
  let seen = 0;
  let censoredSeen = false;
  for (const bucket of buckets) {
    seen += (done[String(bucket)] ?? 0) + (censored[String(bucket)] ?? 0);
    censoredSeen ||= (censored[String(bucket)] ?? 0) > 0;
    if (seen >= rank) return { ms: bucketUpperMs(bucket, slaMs), atLeast: censoredSeen };
  }
  // Unreachable: the last bucket brings the count to the total.
  return { ms: bucketUpperMs(buckets.at(-1)!, slaMs), atLeast: censoredSeen };
}
