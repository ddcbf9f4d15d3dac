/**
 * A partition's recent rate from one reading of its time index, with no sampled history. Pure:
 * the wall-clock time of the reading comes in as a number.
 */
import type { TimeIndexReading } from '../base/time-index.js';

/**
 * Record timestamps may run this far ahead of this process's clock before they count as wrong.
 * Hosts synced by NTP are milliseconds apart; a producer clock ahead by s inflates an instant
 * rate by about s / window, so 2 s costs a few percent over a minute.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 2000;

/**
 * A first record this long after the window's start (and more than three average gaps between
 * records) means the partition started, or woke up, inside the window. Below a second it is
 * batching: producers send records in bursts, so the gaps between records say little.
 */
const STARTED_INSIDE_MIN_GAP_MS = 1000;
const STARTED_INSIDE_GAPS = 3;

/** Why a partition has no instant rate; each is logged once per source. */
export type InstantCause = 'future_timestamps' | 'too_young' | 'no_time_index' | 'failed';

/**
 * An instant rate (`measured`, or `idle`: no record in the window, a rate of 0), or why there is
 * none and sampling has to provide it.
 */
export type InstantOutcome =
  { readonly kind: 'measured' | 'idle'; readonly rate: number } | { readonly kind: InstantCause };

/** The window of an instant rate: the source's `rateIntervalMs`, ending at the reading. */
export interface InstantWindow {
  /** When the reading was asked for, ms since the epoch (this process's wall clock). */
  readonly nowMs: number;
  readonly windowMs: number;
}

/** The shortest span a partition that started inside the window must cover: 1 s, or a tenth of the window. */
export function minCoveredSpanMs(windowMs: number): number {
  return Math.max(1000, windowMs / 10);
}

/**
 * The rate in events/s (offsets per second, like the sampler's) implied by one reading:
 *
 * - Records in the window: `latest − windowStart.offset`, counted by offset, so a compacted
 *   partition counts what was produced even if the cleaner removed some of it since.
 * - No record at or after the window's start: `idle`, 0. A valid measurement, not an error.
 * - A record timestamped past now + {@link CLOCK_SKEW_TOLERANCE_MS} anywhere in the log: the
 *   time index cannot be trusted (one such record makes every earlier lookup land on it):
 *   `future_timestamps`.
 * - No timestamp in the answer, or a found record older than the target (a broker that does not
 *   honour the time index): `no_time_index`.
 * - Producing since before the window: records / window, the average the sampler reports.
 * - Started inside the window (first record more than a second and three average gaps after
 *   its start): the rate over the span from that first record, counting the records after it;
 *   `too_young` when that span is shorter than {@link minCoveredSpanMs}.
 */
export function instantRate(reading: TimeIndexReading, window: InstantWindow): InstantOutcome {
  const { latest, windowStart, future } = reading;
  const { nowMs, windowMs } = window;
  const targetMs = nowMs - windowMs;
  if (windowStart.timestamp === undefined || future.timestamp === undefined) return { kind: 'no_time_index' };
  if (future.offset >= 0n) return { kind: 'future_timestamps' };
  if (windowStart.offset < 0n) return { kind: 'idle', rate: 0 };
  const firstAtMs = windowStart.timestamp;
  if (firstAtMs < targetMs) return { kind: 'no_time_index' };
  if (firstAtMs > nowMs + CLOCK_SKEW_TOLERANCE_MS) return { kind: 'future_timestamps' };
  // Both requests run at once: records appended between them can put the found one past `latest`.
  const records = latest > windowStart.offset ? Number(latest - windowStart.offset) : 0;
  if (records === 0) return { kind: 'idle', rate: 0 };
  const gapMs = firstAtMs - targetMs;
  const coveredMs = nowMs - firstAtMs;
  const startedInside =
    records >= 2 &&
    gapMs > STARTED_INSIDE_MIN_GAP_MS &&
    (coveredMs <= 0 || gapMs > (STARTED_INSIDE_GAPS * coveredMs) / (records - 1));
  if (!startedInside) return { kind: 'measured', rate: records / (windowMs / 1000) };
  if (coveredMs < minCoveredSpanMs(windowMs)) return { kind: 'too_young' };
  // The first record opens the span; the others arrived within it.
  return { kind: 'measured', rate: (records - 1) / (coveredMs / 1000) };
}
