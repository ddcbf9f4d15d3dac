/**
 * One partition's recent end offsets and the rate they imply. Pure: times come in as numbers,
 * nothing here reads a clock.
 */

/** How rates are computed; the same for every partition of a source. */
export interface RateWindow {
  /** Rates are measured over (about) this span, ending at the newest sample. */
  readonly rateIntervalMs: number;
  /**
   * How much older than `rateIntervalMs` the window's oldest sample may be. Half a sample
   * interval: timers drift, and without slack a sample landing a hair late would drop the
   * window's oldest sample and measure over one interval less.
   */
  readonly slackMs: number;
  /** Half-life of the exponential smoothing of successive rates; 0 turns smoothing off. */
  readonly smoothingHalfLifeMs: number;
}

/** What recording a sample did. `reset`: the offset went backwards, history starts over. */
export type RecordOutcome = 'recorded' | 'reset';

interface Sample {
  readonly atMs: number;
  readonly offset: bigint;
}

/**
 * At most this many samples per window are kept, whatever the sample interval: dense sampling
 * over a long window would otherwise hold thousands of samples per partition. Thinning keeps
 * samples at least `rateIntervalMs / MAX_SAMPLES_PER_WINDOW` apart (the newest always stays), so
 * the window's start is exact to about 3 %, and the rate stays exact for the span it covers.
 */
export const MAX_SAMPLES_PER_WINDOW = 32;

/**
 * The end offsets of one partition over the last rate interval.
 *
 * Weight = offset growth between the oldest sample no older than `rateIntervalMs` (+ slack)
 * before the newest and the newest, per second: events/s. Fewer than two samples give no rate.
 * An offset lower than the previous one (the topic was deleted and recreated, or truncated)
 * starts the history over, so it gives no rate until the next sample rather than a negative or
 * a mixed one.
 */
export class PartitionHistory {
  private samples: Sample[] = [];
  private smoothed: number | undefined;
  private smoothedAtMs = 0;

  constructor(private readonly window: RateWindow) {}

  /** Adds the end offset read at `atMs` (samples arrive in time order). */
  record(atMs: number, offset: bigint): RecordOutcome {
    const newest = this.samples.at(-1);
    if (newest !== undefined && offset < newest.offset) {
      this.samples = [{ atMs, offset }];
      this.smoothed = undefined;
      return 'reset';
    }
    if (newest !== undefined && atMs <= newest.atMs) {
      // No time passed (a clock that did not advance): the later reading replaces the earlier.
      this.samples[this.samples.length - 1] = { atMs: newest.atMs, offset };
    } else {
      this.samples.push({ atMs, offset });
      this.thin();
      this.prune();
    }
    this.updateSmoothing(atMs);
    return 'recorded';
  }

  /** The rate over the window in events/s, or undefined with fewer than two samples in it. */
  rate(): number | undefined {
    const oldest = this.samples[0];
    const newest = this.samples.at(-1);
    if (oldest === undefined || newest === undefined || newest.atMs <= oldest.atMs) return undefined;
    // bigint for the difference: offsets are int64 and exact beyond 2^53 only as bigint.
    return Number(newest.offset - oldest.offset) / ((newest.atMs - oldest.atMs) / 1000);
  }

  /** The weight to report: the smoothed rate when smoothing is on, else the window rate. */
  weight(): number | undefined {
    return this.window.smoothingHalfLifeMs > 0 ? this.smoothed : this.rate();
  }

  /** When the newest sample was taken, or undefined before the first. */
  newestAtMs(): number | undefined {
    return this.samples.at(-1)?.atMs;
  }

  /** How many samples are held (bounded by about {@link MAX_SAMPLES_PER_WINDOW} + 2). */
  get size(): number {
    return this.samples.length;
  }

  /** Drops the sample before the newest when it sits too close to its own predecessor. */
  private thin(): void {
    const n = this.samples.length;
    if (n < 3) return;
    const minSpacingMs = this.window.rateIntervalMs / MAX_SAMPLES_PER_WINDOW;
    if (this.samples[n - 2]!.atMs - this.samples[n - 3]!.atMs < minSpacingMs) this.samples.splice(n - 2, 1);
  }

  /** Drops samples that fell out of the window (plus slack) of the newest one. */
  private prune(): void {
    const newest = this.samples.at(-1)!;
    const cutoff = newest.atMs - this.window.rateIntervalMs - this.window.slackMs;
    let drop = 0;
    while (drop < this.samples.length - 1 && this.samples[drop]!.atMs < cutoff) drop++;
    if (drop > 0) this.samples.splice(0, drop);
  }

  /**
   * Exponential smoothing over successive window rates, time-aware so irregular sample spacing
   * weighs correctly. Seeded with the first rate, never with 0: a fresh partition that started
   * near 0 would look free and attract load while it warms up, the kind of lie Pulsar's
   * broker-load EMA told. A partition's rate does not depend on who consumes it, so a move never
   * leaves a decaying "ghost" load behind (Pulsar's EMA averaged *broker* load, so after a bundle
   * moved the old owner still looked hot and the new one cold, and more load moved the wrong way).
   */
  private updateSmoothing(atMs: number): void {
    const halfLife = this.window.smoothingHalfLifeMs;
    if (halfLife <= 0) return;
    const rate = this.rate();
    if (rate === undefined) return;
    if (this.smoothed === undefined) {
      this.smoothed = rate;
    } else {
      const alpha = 1 - Math.pow(2, -Math.max(0, atMs - this.smoothedAtMs) / halfLife);
      this.smoothed += alpha * (rate - this.smoothed);
    }
    this.smoothedAtMs = atMs;
  }
}
