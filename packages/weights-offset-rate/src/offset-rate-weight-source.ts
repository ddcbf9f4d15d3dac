import type { PartitionWeight, TopicPartition, WeightSource } from '@load-aware/assignor';
import { bindLogger } from '@load-aware/assignor/internal';
import { createSourceReader, type SourceReader } from './sampling/create-reader.js';
import { InstantLookups } from './sampling/instant-lookups.js';
import { createOffsetRateMetrics } from './config/metrics.js';
import { resolveOptions, type OffsetRateWeightSourceOptions } from './config/options.js';
import { PartitionTracker } from './rates/partition-tracker.js';
import { Sampler } from './sampling/sampler.js';
import { answerWeights, completeAnswer } from './rates/weight-answer.js';

/** A {@link WeightSource} that measures each partition's produce rate from its end offsets. */
export interface OffsetRateWeightSource extends WeightSource {
  /**
   * Weights in events/s (offset growth per second over the rate interval). Partitions with
   * sampled history are answered from memory. The others (a fresh process, partitions new to
   * it, lost history) are looked up in the time index first, within `instantTimeoutMs`: their
   * instant rate over the rate interval comes from one round of ListOffsets per leader broker.
   * Past that budget it answers with what it has. Partitions seen here for the first time start
   * being sampled (a sample runs at once), and sampled weights replace instant ones once two
   * samples exist. Never rejects: a malformed entry is skipped.
   */
  getWeights(partitions: ReadonlyArray<TopicPartition>): Promise<ReadonlyArray<PartitionWeight>>;
  /**
   * Starts sampling in the background (the first sample at once). Idempotent; returns the source
   * so creation, start and wiring fit in one expression. Never throws on an unreachable cluster:
   * failed samples are logged and counted.
   */
  start(): this;
  /**
   * Stops sampling and forgets every tracked partition. Resolves once no timer is left and every
   * connection the source opened is closed (after in-flight requests settle, which KafkaJS bounds
   * by its request timeout and retry settings). An admin passed in is left connected.
   */
  stop(): Promise<void>;
  /**
   * Starts sampling these partitions now, before any assignment asks for them, and looks the new
   * ones up in the time index in the background, so a later `getWeights()` answers them from
   * memory. Call it from a hook (e.g. once subscribed) when even one round of lookups is too much
   * for the assignment's time budget.
   */
  track(partitions: ReadonlyArray<TopicPartition>): void;
}

interface Run {
  readonly sampler: Sampler;
  readonly reader: SourceReader;
  /** Instant rates from the time index; undefined when off or when the reader cannot do it. */
  readonly instant: InstantLookups | undefined;
}

/**
 * Creates the offset-rate weight source: the default way to weigh partitions. It samples the end
 * offset of every tracked partition every `sampleIntervalMs` and reports, per partition, how fast
 * the offset grew over the last `rateIntervalMs`, in events/s.
 *
 * - The first assignment after `start()` has no history: every partition is new, gets tracked,
 *   and is weighed by its instant rate, read from the brokers' time index within
 *   `instantTimeoutMs`; sampled weights take over from the second sample on. A partition whose
 *   timestamps cannot be trusted (clocks off, too young, no time index) waits for sampling.
 * - An end offset that goes backwards (topic recreated) gives no weight until the next sample.
 * - A partition failing 3 samples in a row while others succeed stops being sampled until a
 *   `getWeights()` asks for it again. Failed samples are counted in metrics.
 * - A partition that neither `getWeights()` nor `track()` asked for in `untrackAfterMs` stops
 *   being sampled and its history is dropped, until it is asked for again.
 *
 * It becomes the assignor's weight source with one line; keep the handle to `stop()` it on
 * shutdown (its connections would otherwise keep the process alive).
 *
 * @example
 * ```ts
 * import { Kafka, PartitionAssigners } from 'kafkajs';
 * import { LoadAwareAssigner } from '@load-aware/assignor';
 * import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
 *
 * const kafka = new Kafka({ brokers: ['localhost:9092'], ssl: true, sasl }); // settings reused
 * const weights = createOffsetRateWeightSource({ kafka, logger, registry }).start();
 *
 * const consumer = kafka.consumer({
 *   groupId: 'orders',
 *   partitionAssigners: [LoadAwareAssigner({ weights }), PartitionAssigners.roundRobin],
 * });
 * // on shutdown
 * await consumer.disconnect();
 * await weights.stop();
 * ```
 */
export function createOffsetRateWeightSource(options: OffsetRateWeightSourceOptions): OffsetRateWeightSource {
  const resolved = resolveOptions(options);
  const { clock } = resolved;
  // Bound once: every line of this source, its sampler and readers carries `component`, which
  // replaced the "offset-rate: " prefix its messages used to start with.
  const logger = bindLogger(resolved.logger, { component: 'offset-rate' });
  const metrics = createOffsetRateMetrics(resolved.registry);
  const tracker = new PartitionTracker({
    rateIntervalMs: resolved.rateIntervalMs,
    slackMs: resolved.sampleIntervalMs / 2,
    smoothingHalfLifeMs: resolved.smoothingHalfLifeMs,
  });
  let run: Run | undefined;
  let stopping: Promise<void> | undefined;
  let warnedNotStarted = false;

  /** Tracks new partitions; `prefetch`: also look them up in the background (getWeights waits instead). */
  const track = (partitions: ReadonlyArray<TopicPartition>, prefetch: boolean): void => {
    const added = tracker.track(partitions, clock.now());
    if (added.length === 0) return;
    metrics.trackedChanged(added.length);
    logger.debug({ partitions: added.length, tracked: tracker.size }, 'new partitions tracked');
    if (run !== undefined) {
      if (prefetch) run.instant?.prefetch(added);
      run.sampler.sampleSoon();
    } else if (!warnedNotStarted) {
      warnedNotStarted = true;
      logger.warn(
        {},
        'partitions asked for while the source is not started (call start()); they are sampled once it is',
      );
    }
  };

  const source: OffsetRateWeightSource = {
    async getWeights(partitions) {
      // The time box starts here, not once the lookups are under way: tracking and planning
      // 10,000 partitions is part of what the caller waits for.
      const calledAt = clock.now();
      try {
        if (!Array.isArray(partitions)) return [];
        // One clock reading per answer, not one per partition.
        const weightAt =
          (nowMs: number) =>
          (topic: string, partition: number): number | undefined =>
            tracker.weightOf(topic, partition, nowMs);
        const revision = tracker.revision;
        const answerStartedAt = clock.now();
        let answer = answerWeights(partitions, weightAt(answerStartedAt), resolved.unmeasuredWeight);
        // Completing the answer after the lookups costs at most what this one did (it asks again
        // only the partitions without a weight), and it runs after the wait: the wait ends that
        // much earlier so both fit in the box.
        const answerMs = clock.now() - answerStartedAt;
        track(answer.asked, false);
        const instant = run?.instant;
        let lookedUp = 0;
        if (instant !== undefined && answer.unmeasured.length > 0) {
          lookedUp = answer.unmeasured.length;
          await instant.weigh(answer.unmeasured, calledAt, answerMs);
          // Nothing gained a weight (the lookup timed out and nothing else landed): the answer
          // stands as it is, so the deadline is not followed by another pass over every partition.
          if (tracker.revision !== revision)
            answer = completeAnswer(answer, weightAt(clock.now()), resolved.unmeasuredWeight);
        }
        logger.debug(
          { partitions: answer.asked.length, measured: answer.measured, filled: answer.filled, lookedUp },
          'weights answered',
        );
        return answer.weights;
      } catch (err) {
        // Unreachable by design; but a weight source must degrade, not fail an assignment.
        logger.error({ err }, 'getWeights failed; answering without weights');
        return [];
      }
    },

    start() {
      if (run !== undefined) return source;
      const reader = createSourceReader(resolved.client, logger);
      const instant =
        resolved.instantTimeoutMs > 0 && reader.timeIndex !== undefined
          ? new InstantLookups({
              reader: reader.timeIndex,
              tracker,
              clock,
              logger,
              metrics,
              rateIntervalMs: resolved.rateIntervalMs,
              timeoutMs: resolved.instantTimeoutMs,
              cooldownMs: resolved.sampleIntervalMs,
            })
          : undefined;
      const sampler = new Sampler({
        reader: reader.reader,
        tracker,
        clock,
        logger,
        metrics,
        sampleIntervalMs: resolved.sampleIntervalMs,
        sampleTimeoutMs: resolved.sampleTimeoutMs,
        untrackAfterMs: resolved.untrackAfterMs,
        ...(instant === undefined
          ? {}
          : {
              onReplaced: (replaced) => {
                instant.crossCheck(replaced);
              },
              lookupsInFlight: () => instant.inFlight(),
            }),
      });
      run = { sampler, reader, instant };
      sampler.start();
      if (resolved.instantTimeoutMs > 0 && instant === undefined) {
        logger.info(
          {},
          'instant rates need a KafkaJS Kafka client (the time index is read through its private cluster); partitions get weights once sampled',
        );
      }
      logger.info(
        {
          rateIntervalMs: resolved.rateIntervalMs,
          sampleIntervalMs: resolved.sampleIntervalMs,
          sampleTimeoutMs: resolved.sampleTimeoutMs,
          instantTimeoutMs: instant === undefined ? 0 : resolved.instantTimeoutMs,
          reader: reader.owned ? reader.reader.kind : reader.kind,
        },
        'offset-rate weight source started',
      );
      return source;
    },

    stop() {
      const current = run;
      if (current === undefined) return stopping ?? Promise.resolve();
      run = undefined;
      // Forget partitions now, not after closing: a start() during the close must begin afresh.
      metrics.trackedChanged(-tracker.size);
      tracker.clear();
      stopping = (async () => {
        await Promise.all([current.sampler.stop(), current.instant?.stop()]);
        if (current.reader.owned) {
          try {
            await current.reader.reader.close();
          } catch (err) {
            logger.warn({ err }, 'closing the end-offsets reader failed');
          }
        }
        logger.info({}, 'offset-rate weight source stopped');
      })();
      return stopping;
    },

    track(partitions) {
      if (!Array.isArray(partitions)) return;
      track(answerWeights(partitions, () => undefined, 'omit').asked, true);
    },
  };
  return source;
}
