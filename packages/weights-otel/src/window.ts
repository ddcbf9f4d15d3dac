import type { PartitionSeconds } from './partition-sums.js';

/** One successful collection: when it was taken (ms, monotonic) and every partition's cumulative seconds. */
export interface Snapshot {
  readonly atMs: number;
  readonly byPartition: ReadonlyMap<string, PartitionSeconds>;
}

/** Busy seconds per second of the partitions the newest snapshot knows, and the span they cover. */
export interface WindowRates {
  /** By partition key; partitions whose cumulative sum went down are left out. */
  readonly rates: ReadonlyMap<string, { readonly topic: string; readonly partition: number; readonly weight: number }>;
  /** Milliseconds between the base snapshot and the newest one. */
  readonly spanMs: number;
}

/**
 * The snapshots one rate needs, and the rate rule. Cumulative sums turn into a rate the way PromQL's
 * `rate()` turns a counter into one: (newest − base) ÷ the time between them, where the base is the
 * newest snapshot at least `windowMs` older than the newest one (the oldest kept while the history
 * is shorter). Older snapshots are dropped, so memory is one entry per partition per interval.
 */
export class SnapshotWindow {
  private readonly snapshots: Snapshot[] = [];

  /**
   * @param windowMs - the span a rate should cover.
   * @param minSpanMs - the shortest span a rate may cover: less answers nothing rather than a
   *   rate read off a few handler calls.
   */
  constructor(
    private readonly windowMs: number,
    private readonly minSpanMs: number,
  ) {}

  /** Snapshots kept: the base of the next rate and everything after it. */
  get size(): number {
    return this.snapshots.length;
  }

  /** Adds the newest snapshot; one older than the newest kept (a late collection) is dropped. */
  add(snapshot: Snapshot): void {
    const newest = this.snapshots.at(-1);
    if (newest !== undefined && snapshot.atMs < newest.atMs) return;
    this.snapshots.push(snapshot);
    // Keep the newest snapshot at least windowMs older than this one, and everything after it.
    const cutoff = snapshot.atMs - this.windowMs;
    let base = 0;
    for (let i = 0; i < this.snapshots.length; i++) if (this.snapshots[i]!.atMs <= cutoff) base = i;
    if (base > 0) this.snapshots.splice(0, base);
  }

  /**
   * Rates from the base to the newest snapshot; undefined with fewer than two snapshots or a span
   * under `minSpanMs`. A partition the base does not have had no handler call before it (a
   * cumulative series exists from its first record on and never goes away), so it counts from 0.
   */
  rates(): WindowRates | undefined {
    const newest = this.snapshots.at(-1);
    const base = this.snapshots[0];
    if (newest === undefined || base === undefined || newest === base) return undefined;
    const spanMs = newest.atMs - base.atMs;
    if (spanMs < this.minSpanMs || spanMs <= 0) return undefined;
    const rates = new Map<string, { topic: string; partition: number; weight: number }>();
    for (const [key, now] of newest.byPartition) {
      const added = now.seconds - (base.byPartition.get(key)?.seconds ?? 0);
      // Less than before: the series restarted (a new MeterProvider, an overflow). No rate until
      // the window holds only the new series.
      if (added < 0) continue;
      rates.set(key, { topic: now.topic, partition: now.partition, weight: added / (spanMs / 1000) });
    }
    return { rates, spanMs };
  }
}
