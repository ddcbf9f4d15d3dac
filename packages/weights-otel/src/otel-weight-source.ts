import { performance } from 'node:perf_hooks';
import {
  bindLogger,
  errorCodeOf,
  errorMessageOf,
  type PartitionWeight,
  type WeightSource,
} from '@load-aware/assignor/internal';
import type { CollectionResult, MetricReader } from '@opentelemetry/sdk-metrics';
import { OtelCollectFailedError, OtelReaderNotRegisteredError } from './errors.js';
import { resolveOptions, type OtelWeightSourceOptions } from './options.js';
import { partitionKey, sumsOf, type CollectedSums } from './partition-sums.js';
import { ProcessDurationReader } from './reader.js';
import { SnapshotWindow } from './window.js';

/** A weight source fed by the MetricReader it carries: put `reader` in your MeterProvider. */
export interface OtelWeightSource extends WeightSource {
  /**
   * The reader to pass in `new MeterProvider({ readers: [...] })`, the provider the KafkaJS
   * instrumentation records into. One provider only: the SDK refuses to bind a reader twice.
   */
  readonly reader: MetricReader;
}

/** Reads a monotonic clock in ms. Tests pass a fake. */
export type MillisClock = () => number;

/**
 * Creates a source that weighs each partition by the **busy seconds per second** its messages cost
 * this process's handlers, read from OpenTelemetry's `messaging.process.duration` histogram, which
 * `@opentelemetry/instrumentation-kafkajs` records around every `eachMessage` call: busy time without
 * wrapping handlers. The units are those of `@load-aware/busy-time`'s counter (`0.3` = 30% of one
 * handler slot).
 *
 * The source sees **this process only**: partitions other processes consume, and ones this process
 * has not handled in the window, are left out (so defaulted), and one it handed over reads 0 until
 * the window passes. Give it a fallback with `createBlendWeightSource` from `@load-aware/busy-time`,
 * which fills both from offset rates at the group's cost per message; a failing collection rejects
 * (`OtelCollectFailedError`), so the blend logs a WARN and answers from the fallback.
 *
 * @example
 * ```ts
 * const otelWeights = createOtelWeightSource({ logger });
 * const meterProvider = new MeterProvider({ readers: [otelWeights.reader] });
 * registerInstrumentations({ meterProvider, instrumentations: [new KafkaJsInstrumentation()] });
 * const { Kafka } = require('kafkajs'); // after the instrumentation, which patches it on load
 * const weights = createBlendWeightSource({
 *   primary: otelWeights,
 *   fallback: createOffsetRateWeightSource({ kafka }).start(),
 * });
 * ```
 */
export function createOtelWeightSource(options: OtelWeightSourceOptions = {}): OtelWeightSource {
  return createSourceWithClock(options, () => performance.now());
}

/** {@link createOtelWeightSource} with the clock given: the seam the tests use. */
export function createSourceWithClock(options: OtelWeightSourceOptions, now: MillisClock): OtelWeightSource {
  const o = resolveOptions(options);
  const logger = bindLogger(o.logger, { component: 'otel-weights' });
  // A rate needs one whole sample interval of history: less reads a handful of handler calls.
  const window = new SnapshotWindow(o.windowMs, o.sampleIntervalMs);
  let inFlight: Promise<void> | undefined;
  let failing = false;
  let latest: CollectedSums | undefined;
  const warned = new Set<string>();

  const warnOnce = (key: string, fields: Record<string, unknown>, message: string): void => {
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(fields, message);
  };

  const collectOnce = async (): Promise<void> => {
    const atMs = now();
    let result: CollectionResult;
    try {
      result = await reader.collect({ timeoutMillis: o.collectTimeoutMs });
    } catch (err) {
      throw new OtelCollectFailedError(`collecting ${o.metricName} failed: ${errorMessageOf(err)}`, { cause: err });
    }
    // A partial collection could lack a partition's series, which the next one would then count
    // from zero: only whole collections make snapshots.
    const [first] = result.errors;
    if (first !== undefined) {
      throw new OtelCollectFailedError(
        `collecting ${o.metricName} reported ${String(result.errors.length)} error(s): ${errorMessageOf(first)}`,
        { cause: first },
      );
    }
    const sums = sumsOf(result.resourceMetrics, o);
    for (const unit of sums.unknownUnits) {
      warnOnce(
        `unit:${unit}`,
        { metric: o.metricName, unit },
        `${o.metricName} has unit "${unit}", not s or ms; its data points are skipped`,
      );
    }
    if (sums.delta) {
      warnOnce(
        'delta',
        { metric: o.metricName },
        `${o.metricName} came with delta temporality; its data points are skipped`,
      );
    }
    if (sums.unusablePoints > 0) {
      warnOnce(
        'unusable',
        { metric: o.metricName, points: sums.unusablePoints, topicAttribute: o.topicAttribute },
        `${o.metricName} data points without a usable topic, partition or sum are skipped`,
      );
    }
    latest = sums;
    window.add({ atMs, byPartition: sums.byPartition });
  };

  // One collection at a time: a background tick and getWeights() in the same moment share it.
  const sample = (): Promise<void> => {
    inFlight ??= collectOnce()
      .then(
        () => {
          if (failing) logger.info({}, 'OTel collection recovered');
          failing = false;
        },
        (err: unknown) => {
          if (!failing) {
            logger.warn(
              { err, code: errorCodeOf(err) },
              `OTel collection failed, no weights until it recovers: ${errorMessageOf(err)}`,
            );
          }
          failing = true;
          throw err;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const reader = new ProcessDurationReader(o.sampleIntervalMs, () => {
    // Logged by sample() on the change of state; a tick has no caller to reject to.
    sample().catch(() => undefined);
  });

  const source: OtelWeightSource = {
    reader,
    async getWeights(partitions) {
      if (!reader.registered) {
        throw new OtelReaderNotRegisteredError(
          'the OTel weight source has no MeterProvider: pass its `reader` in `new MeterProvider({ readers: [...] })`, ' +
            'the provider the KafkaJS instrumentation records into',
        );
      }
      await sample();
      const answer = window.rates();
      if (answer === undefined) {
        logger.debug({ partitions: partitions.length, snapshots: window.size }, 'no OTel busy-time history yet');
        return [];
      }
      if (latest?.metrics === 0 && answer.spanMs >= o.windowMs) {
        warnOnce(
          'missing',
          { metric: o.metricName },
          `no ${o.metricName} histogram in the MeterProvider for a whole window: register the KafkaJS ` +
            'instrumentation with this provider before kafkajs is first required (or the process handled nothing)',
        );
      }
      const weights: PartitionWeight[] = [];
      for (const { topic, partition } of partitions) {
        const rate = answer.rates.get(partitionKey(topic, partition));
        if (rate !== undefined) weights.push({ topic, partition, weight: rate.weight });
      }
      logger.debug(
        { partitions: partitions.length, weighed: weights.length, spanMs: Math.round(answer.spanMs) },
        'OTel busy-time weights',
      );
      return weights;
    },
  };
  return Object.freeze(source);
}
