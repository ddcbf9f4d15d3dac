import { isLoadAwareError, type Logger, type TopicPartition } from '@load-aware/assignor';
import { raceClock, type Clock } from '../base/clock.js';
import type { EndOffsetsReader } from '../readers/end-offsets-reader.js';
import { OffsetRateErrorCodes, PartitionReadError, SampleFailedError, SampleTimeoutError } from '../base/errors.js';
import type { OffsetRateMetrics } from '../config/metrics.js';
import type { PartitionOutcome, PartitionTracker, ReplacedInstant, SampleReport } from '../rates/partition-tracker.js';
import { errorCodeOf, errorMessageOf, partitionKey, partitionLabel } from '@load-aware/assignor/internal';

/**
 * Extra time a reader gets past `sampleTimeoutMs` before the sampler gives up on it. Our readers
 * time-box their own requests within the timeout; this only catches a reader that does not.
 */
const READER_GRACE_MS = 1000;

/** How many partitions a log line names; the count is always given in full. */
const EXAMPLES = 5;

/** What the sampler needs; all of it injected, so tests drive it with a fake clock and reader. */
export interface SamplerDeps {
  readonly reader: EndOffsetsReader;
  readonly tracker: PartitionTracker;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: OffsetRateMetrics;
  readonly sampleIntervalMs: number;
  readonly sampleTimeoutMs: number;
  /** Partitions nothing asked for in this long are untracked before a sample. */
  readonly untrackAfterMs: number;
  /** Told about partitions whose first sampled weight replaced an instant one (the cross-check). */
  readonly onReplaced?: (replaced: ReadonlyArray<ReplacedInstant>) => void;
  /** Settles once the time-index lookups in flight have; undefined when none is. A sample waits for it. */
  readonly lookupsInFlight?: () => Promise<void> | undefined;
}

/**
 * Samples the end offsets of every tracked partition every `sampleIntervalMs`, one sample at a
 * time. The next sample is scheduled when one finishes, at its start + the interval (or at once
 * if it overran), so samples never overlap; a read still running after its timeout makes the
 * next sample skip rather than pile up a second request. Every error is logged and counted,
 * never thrown: a weight source that throws on a timer would crash the app.
 */
export class Sampler {
  private timer: unknown;
  private hasTimer = false;
  private current: Promise<void> | undefined;
  private pendingRead: Promise<unknown> | undefined;
  private running = false;
  private soon = false;
  private failedInARow = 0;

  constructor(private readonly deps: SamplerDeps) {}

  /** Starts sampling; the first sample runs at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Asks for a sample as soon as possible (new partitions are tracked and have no history). */
  sampleSoon(): void {
    if (!this.running) return;
    if (this.current !== undefined) {
      this.soon = true;
    } else {
      this.schedule(0);
    }
  }

  /**
   * Stops sampling: no timer is left, and the sample in flight (if any) is awaited, its result
   * discarded. Resolves within `sampleTimeoutMs` plus a second even for a reader that hangs.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.clearTimer();
    await this.current;
  }

  private schedule(delayMs: number): void {
    this.clearTimer();
    this.hasTimer = true;
    this.timer = this.deps.clock.setTimeout(() => {
      this.hasTimer = false;
      this.tick();
    }, delayMs);
  }

  private clearTimer(): void {
    if (!this.hasTimer) return;
    this.deps.clock.clearTimeout(this.timer);
    this.hasTimer = false;
  }

  private tick(): void {
    if (!this.running || this.current !== undefined) return;
    // A lookup in flight is a first getWeights() waiting on the time index within its box:
    // reading every tracked partition's end offset now (10,000 of them right after start) would
    // encode and decode one more request of them all on the same event loop, inside that box, for
    // offsets the lookup reads anyway. The sample runs once the lookups settled, from a timer of
    // its own, so the caller that waited for them answers first. Lookups are time-boxed, so this
    // wait is too.
    const lookups = this.deps.lookupsInFlight?.();
    if (lookups !== undefined) {
      this.current = lookups.then(() => {
        this.current = undefined;
        if (this.running) this.schedule(0);
      });
      return;
    }
    const startedAt = this.deps.clock.now();
    this.soon = false;
    this.current = this.sampleOnce().finally(() => {
      this.current = undefined;
      if (!this.running) return;
      const next = this.soon ? 0 : startedAt + this.deps.sampleIntervalMs - this.deps.clock.now();
      this.schedule(Math.max(0, next));
    });
  }

  private async sampleOnce(): Promise<void> {
    const { tracker, clock, logger, metrics } = this.deps;
    try {
      this.untrackIdle();
      const partitions = tracker.tracked();
      if (partitions.length === 0) return;
      if (this.pendingRead !== undefined) {
        logger.debug({ partitions: partitions.length }, 'previous read still running; sample skipped');
        return;
      }
      const started = clock.now();
      const outcomes = await this.read(partitions);
      const ended = clock.now();
      // Stopped meanwhile: nobody wants the result, and the tracker may already be cleared.
      if (!this.running) return;
      // Midpoint: the offsets were read at some point between sending and receiving.
      const report = tracker.apply((started + ended) / 2, partitions, outcomes);
      const durationMs = ended - started;
      metrics.sampleDuration(durationMs / 1000);
      if (report.untracked.length > 0) metrics.trackedChanged(-report.untracked.length);
      this.log(report, partitions.length, durationMs);
      if (report.replaced.length > 0) this.deps.onReplaced?.(report.replaced);
    } catch (err) {
      logger.error({ err }, 'sampling failed unexpectedly; the next sample runs on schedule');
    }
  }

  /** Drops the partitions nothing asked for in `untrackAfterMs`, so work and memory stay bounded. */
  private untrackIdle(): void {
    const { tracker, clock, logger, metrics, untrackAfterMs } = this.deps;
    const idle = tracker.untrackIdle(clock.now(), untrackAfterMs);
    if (idle.length === 0) return;
    metrics.trackedChanged(-idle.length);
    logger.info(
      { partitions: idle.length, examples: names(idle), untrackAfterMs },
      'partitions not asked for within untrackAfterMs; no longer sampled until asked for again',
    );
  }

  /** Reads every partition, turning whatever the reader does into one outcome per partition. */
  private async read(partitions: TopicPartition[]): Promise<Map<string, PartitionOutcome>> {
    const { reader, clock, sampleTimeoutMs } = this.deps;
    const outcomes = new Map<string, PartitionOutcome>();
    try {
      // Through a then() so that a reader throwing synchronously counts like a rejection.
      const read = Promise.resolve().then(() => reader.read(partitions, sampleTimeoutMs));
      this.pendingRead = read;
      const clear = (): void => {
        if (this.pendingRead === read) this.pendingRead = undefined;
      };
      read.then(clear, clear);
      const answer: unknown = await raceClock(
        clock,
        read,
        sampleTimeoutMs + READER_GRACE_MS,
        () => new SampleTimeoutError(sampleTimeoutMs),
      );
      if (!Array.isArray(answer)) throw new SampleFailedError('the reader did not answer with a list');
      const requested = new Set(partitions.map((p) => partitionKey(p.topic, p.partition)));
      for (const entry of answer as unknown[]) {
        const result = toOutcome(entry);
        if (result !== undefined && requested.has(result.key) && !outcomes.has(result.key)) {
          outcomes.set(result.key, result.outcome);
        }
      }
      for (const { topic, partition } of partitions) {
        const key = partitionKey(topic, partition);
        if (!outcomes.has(key)) {
          const error = new PartitionReadError(
            OffsetRateErrorCodes.noAnswer,
            topic,
            partition,
            'missing from the answer',
          );
          outcomes.set(key, { error });
        }
      }
    } catch (err) {
      // The brand, not instanceof: a custom reader may throw errors of another assignor copy.
      const error = isLoadAwareError(err) ? err : new SampleFailedError(errorMessageOf(err), { cause: err });
      for (const { topic, partition } of partitions) outcomes.set(partitionKey(topic, partition), { error });
    }
    return outcomes;
  }

  /**
   * Logs by state change, not per sample: an outage sampled every second would otherwise write
   * a WARN a second. The first failed sample warns, the rest are DEBUG, recovery is INFO.
   */
  private log(report: SampleReport, partitions: number, durationMs: number): void {
    const { logger, metrics } = this.deps;
    const failed = report.failed.length;
    logger.debug({ partitions, succeeded: report.succeeded, failed, durationMs: round(durationMs) }, 'sample taken');
    if (failed > 0 && report.succeeded === 0) {
      metrics.sampleError('all');
      const err = report.failed[0]?.error;
      if (this.failedInARow === 0) {
        logger.warn(
          { partitions, err, code: errorCodeOf(err) },
          'no end offset could be read; weights age out after rateIntervalMs unless sampling recovers',
        );
      } else {
        logger.debug({ partitions, err, failedSamples: this.failedInARow + 1 }, 'sample failed again');
      }
      this.failedInARow++;
      return;
    }
    if (this.failedInARow > 0) {
      logger.info({ failedSamples: this.failedInARow }, 'sampling recovered');
      this.failedInARow = 0;
    }
    if (failed > 0) {
      metrics.sampleError('some');
      const err = report.failed[0]?.error;
      logger.warn(
        { failed, examples: names(report.failed), err, code: errorCodeOf(err) },
        'some end offsets could not be read this sample',
      );
    }
    if (report.reset.length > 0) {
      logger.info(
        { partitions: report.reset.length, examples: names(report.reset) },
        'end offset went backwards (topic recreated or truncated); rate history restarted',
      );
    }
    if (report.untracked.length > 0) {
      logger.warn(
        { partitions: report.untracked.length, examples: names(report.untracked) },
        'partitions failed 3 samples in a row while others succeeded; no longer sampled until asked for again',
      );
    }
  }
}

function toOutcome(entry: unknown): { key: string; outcome: PartitionOutcome } | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Partial<Record<'topic' | 'partition' | 'offset' | 'error', unknown>>;
  const { topic, partition } = e;
  if (typeof topic !== 'string' || typeof partition !== 'number') return undefined;
  const key = partitionKey(topic, partition);
  if ('error' in e && e.error !== undefined) return { key, outcome: { error: e.error } };
  const offset = toOffset(e.offset);
  if (offset !== undefined) return { key, outcome: { offset } };
  const error = new PartitionReadError(
    OffsetRateErrorCodes.invalidOffset,
    topic,
    partition,
    `expected a non-negative integer offset, got ${describe(e.offset)}`,
  );
  return { key, outcome: { error } };
}

/** A non-negative integer offset as bigint, from bigint, decimal string or safe integer. */
function toOffset(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value >= 0n ? value : undefined;
  if (typeof value === 'string' && /^\d{1,19}$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return value === null ? 'null' : typeof value;
}

function names(list: ReadonlyArray<TopicPartition>): string[] {
  return list.slice(0, EXAMPLES).map(partitionLabel);
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
