import type { Logger, TopicPartition } from '@load-aware/assignor';
import { epochMsOf, nextTask, raceClock, type Clock } from '../base/clock.js';
import { OffsetRateErrorCodes, PartitionReadError } from '../base/errors.js';
import {
  CLOCK_SKEW_TOLERANCE_MS,
  instantRate,
  minCoveredSpanMs,
  type InstantCause,
  type InstantOutcome,
} from '../rates/instant-rate.js';
import { kafkaErrorType } from '../readers/kafkajs-internals.js';
import type { OffsetRateMetrics } from '../config/metrics.js';
import type { PartitionTracker, ReplacedInstant } from '../rates/partition-tracker.js';
import type { TimeIndexAnswer, TimeIndexReader } from '../base/time-index.js';
import { errorCodeOf, PartitionMap, partitionLabel } from '@load-aware/assignor/internal';

/** How many partitions a log line names; the count is always given in full. */
const EXAMPLES = 5;

/** A first sampled weight this far (as a fraction) from the instant one is named at DEBUG. */
const NOTABLE_DIVERGENCE = 0.5;

/** Partitions whose rates are stored in one task; see {@link InstantLookups.apply}. */
const APPLY_SLICE = 1000;

/** Errors that mean the broker cannot look offsets up by timestamp for that topic. */
const NO_TIME_INDEX_ERRORS = new Set(['UNSUPPORTED_FOR_MESSAGE_FORMAT', 'UNSUPPORTED_VERSION']);

/** What the instant lookups need; all of it injected, so tests drive them with fakes. */
export interface InstantLookupsDeps {
  readonly reader: TimeIndexReader;
  readonly tracker: PartitionTracker;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: OffsetRateMetrics;
  readonly rateIntervalMs: number;
  /** `instantTimeoutMs`: the time budget of one `weigh()` and of the reader's requests. */
  readonly timeoutMs: number;
  /** A partition is looked up at most once per this long (the sample interval). */
  readonly cooldownMs: number;
}

/** Once-per-source log lines: the first of each kind at WARN or INFO, the rest at DEBUG. */
type Notice = InstantCause | 'timeout' | 'lagging';

/**
 * Instant rates: for partitions without a sampled weight, one time-index lookup (window start,
 * latest offset, future check) gives a rate over the window at once. The result goes to the
 * tracker, which prefers sampled weights as soon as they exist. Nothing here throws: a lookup
 * that fails or comes too late leaves those partitions to the sampler, as before.
 */
export class InstantLookups {
  /**
   * Lookups in flight with the partitions each covers, so concurrent calls wait for the same one.
   * A few at a time at most; each partition is found through its lookup's PartitionMap rather than
   * a string key per partition.
   */
  private readonly pending = new Map<Promise<void>, PartitionMap<true>>();
  private readonly logged = new Set<Notice>();
  private stopped = false;

  constructor(private readonly deps: InstantLookupsDeps) {}

  /**
   * Looks up the partitions not looked up within the cooldown and resolves once every lookup
   * covering `partitions` settled, or `timeoutMs − reserveMs` after `startedAt` (the caller's
   * clock reading when it was asked; default now), whichever is first. `reserveMs` is what the
   * caller still has to do once this resolves (building its answer), so the whole call keeps
   * `timeoutMs`. Never rejects. A lookup still running then keeps going; its rates serve the next call.
   */
  async weigh(partitions: ReadonlyArray<TopicPartition>, startedAt?: number, reserveMs = 0): Promise<void> {
    const { clock, timeoutMs, metrics } = this.deps;
    const since = startedAt ?? clock.now();
    const waits = new Set(this.begin(partitions));
    if (waits.size === 0) return;
    // What is left of the caller's budget. The reader's own deadline starts later (after the
    // metadata), so this one passes first and the answer never waits for a failed read's cleanup.
    const remainingMs = Math.max(0, timeoutMs - reserveMs - (clock.now() - since));
    try {
      await raceClock(clock, Promise.all(waits), remainingMs, () => new Error('instantTimeoutMs passed'));
    } catch {
      metrics.instantTimeout();
      this.notice(
        'timeout',
        { timeoutMs, partitions: partitions.length },
        'the time-index lookup did not finish within instantTimeoutMs; weights answered without it (its rates serve the next call)',
      );
    }
  }

  /** Starts lookups in the background (for `track()`), without waiting for them. */
  prefetch(partitions: ReadonlyArray<TopicPartition>): void {
    // Lookups never reject, and stop() waits for them.
    void Promise.all(this.begin(partitions));
  }

  /** Settles once every lookup in flight now has (lookups never reject); undefined when none is. */
  inFlight(): Promise<void> | undefined {
    if (this.pending.size === 0) return undefined;
    return Promise.all(this.pending.keys()).then(() => undefined);
  }

  /** Stops storing results and waits for the lookups in flight (bounded by the reader's timeouts). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.pending.keys());
  }

  /**
   * Compares the first sampled weight of each partition with the instant one it replaces: a
   * divergence metric, a DEBUG line naming the large ones, and an INFO once when partitions the
   * time index showed idle are producing (record timestamps lagging by more than the window
   * look exactly like an idle partition to a lookup; only sampling tells them apart).
   */
  crossCheck(replaced: ReadonlyArray<ReplacedInstant>): void {
    if (replaced.length === 0) return;
    const { metrics, logger } = this.deps;
    const notable: Array<{ partition: string; instant: number; sampled: number }> = [];
    for (const r of replaced) {
      const larger = Math.max(r.instant.weight, r.sampled);
      const ratio = larger === 0 ? 0 : Math.abs(r.sampled - r.instant.weight) / larger;
      metrics.instantDivergence(ratio);
      if (ratio >= NOTABLE_DIVERGENCE)
        notable.push({ partition: partitionLabel(r), instant: r.instant.weight, sampled: r.sampled });
    }
    logger.debug(
      { partitions: replaced.length, diverging: notable.length, examples: notable.slice(0, EXAMPLES) },
      'sampled weights replaced instant ones',
    );
    const lagging = replaced.filter((r) => r.instant.idle && r.sampled > 0);
    if (lagging.length > 0) {
      this.notice(
        'lagging',
        { partitions: lagging.length, examples: lagging.slice(0, EXAMPLES).map(partitionLabel) },
        'partitions the time index showed idle are producing: they just became active, or their record timestamps lag this process clock by more than rateIntervalMs',
      );
    }
  }

  /** Claims and starts lookups; returns the lookups covering `partitions`. */
  private begin(partitions: ReadonlyArray<TopicPartition>): Array<Promise<void>> {
    const { tracker, clock, cooldownMs } = this.deps;
    if (this.stopped) return [];
    const waits: Array<Promise<void>> = [];
    const fresh: TopicPartition[] = [];
    const covered = new PartitionMap<true>();
    const now = clock.now();
    for (const { topic, partition } of partitions) {
      const pending = this.pendingOf(topic, partition);
      if (pending !== undefined) waits.push(pending);
      else if (tracker.claimLookup(topic, partition, now, cooldownMs)) {
        fresh.push({ topic, partition });
        covered.set(topic, partition, true);
      }
    }
    if (fresh.length > 0) {
      const lookup = this.lookup(fresh);
      this.pending.set(lookup, covered);
      // Never rejects; forgotten once settled, so later calls start a lookup of their own.
      void lookup.then(() => this.pending.delete(lookup));
      waits.push(lookup);
    }
    return waits;
  }

  /** The lookup in flight covering the partition, if any. */
  private pendingOf(topic: string, partition: number): Promise<void> | undefined {
    if (this.pending.size === 0) return undefined;
    for (const [lookup, covered] of this.pending) if (covered.get(topic, partition) !== undefined) return lookup;
    return undefined;
  }

  private async lookup(partitions: TopicPartition[]): Promise<void> {
    const { reader, clock, metrics, rateIntervalMs, timeoutMs } = this.deps;
    const startedAt = clock.now();
    const nowMs = epochMsOf(clock);
    let answers: ReadonlyArray<TimeIndexAnswer>;
    try {
      // After a microtask, so the caller has registered this lookup before it can settle.
      answers = await Promise.resolve().then(() =>
        reader.lookup(
          partitions,
          { windowStartMs: nowMs - rateIntervalMs, futureMs: nowMs + CLOCK_SKEW_TOLERANCE_MS },
          timeoutMs,
        ),
      );
    } catch (err) {
      answers = partitions.map((p) => ({ ...p, error: err }));
    }
    try {
      const durationMs = clock.now() - startedAt;
      metrics.instantDuration(durationMs / 1000);
      if (!this.stopped) await this.apply(partitions, answers, nowMs, startedAt, durationMs);
    } catch (err) {
      // Unreachable by design; a lookup must never fail getWeights().
      this.deps.logger.error({ err }, 'applying a time-index lookup failed unexpectedly');
    }
  }

  /**
   * Stores the rates, {@link APPLY_SLICE} partitions per task: a caller whose deadline passes
   * meanwhile answers on time with the slices stored so far, instead of after all of them.
   */
  private async apply(
    partitions: ReadonlyArray<TopicPartition>,
    answers: ReadonlyArray<TimeIndexAnswer>,
    nowMs: number,
    atMs: number,
    durationMs: number,
  ): Promise<void> {
    const { tracker, metrics, logger, rateIntervalMs } = this.deps;
    const byPartition = new PartitionMap<TimeIndexAnswer>();
    for (const a of answers) byPartition.set(a.topic, a.partition, a);
    const counts: Partial<Record<InstantOutcome['kind'], number>> = {};
    const unusable = new Map<InstantCause, Array<TopicPartition & { error?: unknown }>>();
    for (let i = 0; i < partitions.length; i++) {
      if (i > 0 && i % APPLY_SLICE === 0) {
        await nextTask();
        if (this.stopped) return;
      }
      const { topic, partition } = partitions[i]!;
      const answer = byPartition.get(topic, partition);
      let outcome: InstantOutcome;
      let error: unknown;
      if (answer === undefined) {
        error = new PartitionReadError(OffsetRateErrorCodes.noAnswer, topic, partition, 'missing from the lookup');
        outcome = { kind: 'failed' };
      } else if ('error' in answer) {
        error = answer.error;
        outcome = { kind: NO_TIME_INDEX_ERRORS.has(kafkaErrorType(error) ?? '') ? 'no_time_index' : 'failed' };
      } else {
        outcome = instantRate(answer.reading, { nowMs, windowMs: rateIntervalMs });
      }
      counts[outcome.kind] = (counts[outcome.kind] ?? 0) + 1;
      if ('rate' in outcome) {
        tracker.setInstant(topic, partition, { weight: outcome.rate, idle: outcome.kind === 'idle', atMs });
      } else {
        let list = unusable.get(outcome.kind);
        if (list === undefined) unusable.set(outcome.kind, (list = []));
        list.push(error === undefined ? { topic, partition } : { topic, partition, error });
      }
    }
    // Counted once per outcome, not once per partition: 10,000 increments of a labelled counter
    // were milliseconds of their own.
    for (const [kind, count] of Object.entries(counts) as Array<[InstantOutcome['kind'], number]>)
      metrics.instantOutcome(kind, count);
    logger.debug(
      { partitions: partitions.length, ...counts, durationMs: Math.round(durationMs * 1000) / 1000 },
      'instant rates read from the time index',
    );
    for (const [cause, list] of unusable) {
      const err = list.find((p) => p.error !== undefined)?.error;
      const fields = {
        partitions: list.length,
        examples: list.slice(0, EXAMPLES).map(partitionLabel),
        ...(err === undefined ? {} : { err, code: errorCodeOf(err) }),
      };
      this.notice(cause, fields, causeMessage(cause, rateIntervalMs));
    }
  }

  /** Logs the first notice of each kind at its level, the rest at DEBUG. */
  private notice(kind: Notice, fields: Record<string, unknown>, message: string): void {
    const { logger } = this.deps;
    if (this.logged.has(kind)) {
      logger.debug(fields, message);
      return;
    }
    this.logged.add(kind);
    if (kind === 'too_young' || kind === 'lagging') logger.info(fields, message);
    else logger.warn(fields, message);
  }
}

function causeMessage(cause: InstantCause, rateIntervalMs: number): string {
  const sampled = 'they get weights from sampling instead';
  switch (cause) {
    case 'future_timestamps':
      return `record timestamps ahead of this process clock by more than ${String(CLOCK_SKEW_TOLERANCE_MS)} ms (producer clocks off, or a record stamped in the future): no instant rate from the time index; ${sampled}`;
    case 'too_young':
      return `partitions that started producing less than ${String(minCoveredSpanMs(rateIntervalMs))} ms ago (younger than the window): too short a span for an instant rate; ${sampled}`;
    case 'no_time_index':
      return `the broker cannot look these partitions up by timestamp (no time index, or an old message format): no instant rate; ${sampled}`;
    case 'failed':
      return `the time-index lookup failed for these partitions; ${sampled}`;
  }
}
