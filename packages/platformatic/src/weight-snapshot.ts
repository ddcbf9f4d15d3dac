import {
  errorMessageOf,
  fetchWeights,
  partitionKey,
  WeightsFailedError,
  type Logger,
  type PartitionWeight,
  type TopicPartition,
  type WeightSource,
} from '@load-aware/assignor/portable';

/**
 * The weights a synchronous assigner can read: platformatic calls `partitionAssigner` without
 * waiting for anything, so the weight source is asked beforehand — at each join (the async
 * `protocolsMetadata` step, before the JoinGroup that may make this member leader) and every
 * `refreshMs` in the background — and the assignment reads the latest answer from memory, saying
 * how old it was.
 */

/** Why a refresh was made: at a join, or by the background timer. */
export type RefreshCause = 'join' | 'background';

/** The weights an assignment reads, and where they came from. */
export interface WeightReading {
  /** The source's answer for the partitions asked about that it knew. */
  readonly weights: ReadonlyArray<PartitionWeight>;
  /** How old the answer is, in ms. */
  readonly ageMs: number;
  readonly cause: RefreshCause;
  /** Asked-about partitions the snapshot has no answer for (they are defaulted). */
  readonly unknown: number;
}

/** A process-wide store of the latest weights, refreshed for the partitions of every group served. */
export interface WeightSnapshot {
  /**
   * Refreshes the weights of `groupId`'s `partitions` (replacing that group's listing) together
   * with every other group's; resolves when the answer is in, or the refresh failed or timed out.
   * One refresh at a time: a call while one runs waits for it and the next one. Never rejects.
   */
  refresh(groupId: string, partitions: ReadonlyArray<TopicPartition>, cause: RefreshCause): Promise<void>;
  /**
   * The weights of `partitions`, from the latest answer. Throws a `WeightsFailedError` when there
   * is none yet, or when it is older than `maxAgeMs` (with the latest failure as its cause).
   */
  read(partitions: ReadonlyArray<TopicPartition>): WeightReading;
  /**
   * Stops the background refresh when no consumer is served any more (`serving()` is false); the
   * next {@link refresh} starts it again. Each background tick checks the same, so a caller that
   * cannot say when its consumers close still stops within one `refreshMs`.
   */
  stopIfIdle(): void;
}

/** What {@link createWeightSnapshot} needs. */
export interface WeightSnapshotOptions {
  readonly source: WeightSource;
  readonly timeoutMs: number;
  /** Background refresh interval; 0: none. */
  readonly refreshMs: number;
  readonly maxAgeMs: number;
  readonly logger: Logger;
  /**
   * Whether any consumer still reads these weights. The snapshot has no close of its own: it
   * refreshes while its consumers live, the way the KafkaJS assigner lives with its consumers.
   */
  readonly serving: () => boolean;
  /** Milliseconds on a monotonic clock; injectable for tests. */
  readonly now?: () => number;
}

/** Most groups whose listings are kept; a process rarely serves more than a few. */
const MAX_GROUPS = 64;

/** Creates an empty snapshot; the background timer starts with the first refresh. */
export function createWeightSnapshot(options: WeightSnapshotOptions): WeightSnapshot {
  const now = options.now ?? (() => performance.now());
  const listings = new Map<string, ReadonlyArray<TopicPartition>>();
  let table: Map<string, PartitionWeight> | undefined;
  let takenAtMs = 0;
  let takenBy: RefreshCause = 'join';
  let lastError: unknown;
  let failing = false;
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const askAll = async (cause: RefreshCause): Promise<void> => {
    const all = [...listings.values()].flat();
    const started = now();
    try {
      const answer = await fetchWeights(options.source, all, options.timeoutMs);
      table = new Map(answer.map((w) => [partitionKey(w.topic, w.partition), w]));
      takenAtMs = started;
      takenBy = cause;
      if (failing) options.logger.info({ partitions: all.length }, 'weight source answers again');
      failing = false;
    } catch (err) {
      lastError = err;
      // Once per failing streak: a dead source must not write a line every join and refresh.
      if (!failing) {
        options.logger.warn(
          { err, partitions: all.length, cause },
          `weight refresh failed (${errorMessageOf(err)}); assignments read the previous snapshot while it is recent`,
        );
      }
      failing = true;
    }
  };

  // One refresh at a time, and at most one queued behind it for every caller that arrives
  // meanwhile: a caller waits for two refreshes at the most, each bounded by `timeoutMs`.
  const run = (cause: RefreshCause): Promise<void> => {
    if (inFlight === undefined) {
      inFlight = askAll(cause).finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    }
    queued ??= inFlight.then(() => {
      queued = undefined;
      return run(cause);
    });
    return queued;
  };

  const stopIfIdle = (): void => {
    if (timer === undefined || options.serving()) return;
    clearInterval(timer);
    timer = undefined;
  };

  const startTimer = (): void => {
    if (timer !== undefined || options.refreshMs === 0) return;
    // Unref'd: a process whose consumers are gone must be free to exit before the next tick.
    timer = setInterval(() => {
      stopIfIdle();
      if (timer !== undefined) void run('background');
    }, options.refreshMs).unref();
  };

  return {
    refresh(groupId, partitions, cause) {
      listings.delete(groupId);
      listings.set(
        groupId,
        partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
      );
      if (listings.size > MAX_GROUPS) listings.delete(listings.keys().next().value!);
      startTimer();
      return run(cause);
    },
    read(partitions) {
      if (table === undefined) {
        throw new WeightsFailedError(
          lastError === undefined ? 'no weights read yet' : `no weights read yet: ${errorMessageOf(lastError)}`,
          { cause: lastError },
        );
      }
      const ageMs = Math.max(0, Math.round(now() - takenAtMs));
      if (ageMs > options.maxAgeMs) {
        throw new WeightsFailedError(
          `the latest weights are ${String(ageMs)} ms old, past maxWeightsAgeMs=${String(options.maxAgeMs)}` +
            (lastError === undefined ? '' : ` (last refresh: ${errorMessageOf(lastError)})`),
          { cause: lastError },
        );
      }
      const weights: PartitionWeight[] = [];
      for (const p of partitions) {
        const w = table.get(partitionKey(p.topic, p.partition));
        if (w !== undefined) weights.push(w);
      }
      return { weights, ageMs, cause: takenBy, unknown: partitions.length - weights.length };
    },
    stopIfIdle,
  };
}
