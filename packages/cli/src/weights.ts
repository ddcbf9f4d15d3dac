/**
 * Weights of the group's partitions from the chosen source: the offset-rate source's instant rates
 * (time index, no waiting), its sampler over `--window` seconds, or a Prometheus query.
 */
import type { Kafka } from 'kafkajs';
import { withTimeout, type PartitionWeight, type TopicPartition } from '@load-aware/assignor/internal';
import { createOffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import type { CliOptions } from './args.js';
import { CliError } from './errors.js';

/** Reports sampling progress: seconds done out of the total. */
export type Progress = (doneSeconds: number, totalSeconds: number) => void;

/** What a read reports while it runs: sampling progress, and each step's duration (`--verbose`). */
export interface ReadHooks {
  readonly progress: Progress;
  readonly step: (name: string, ms: number) => void;
}

/** The offset-rate source's own default window: instant rates cover it unless `--lookback` says. */
const DEFAULT_LOOKBACK_MS = 60_000;
/** The offset-rate source's largest `instantTimeoutMs`. */
const MAX_INSTANT_TIMEOUT_MS = 30_000;

/** Asks the configured source once; the source is stopped before this returns. */
export async function readWeights(
  kafka: Kafka,
  options: CliOptions,
  partitions: ReadonlyArray<TopicPartition>,
  progress: Progress,
): Promise<{ weights: ReadonlyArray<PartitionWeight>; label: string }> {
  const { weights: choice, timeoutMs } = options;
  const bounded = <T>(work: Promise<T>) =>
    withTimeout(work, timeoutMs, () => new CliError(`weights: no answer within ${String(timeoutMs / 1000)} s`));
  if (choice.kind === 'prometheus') {
    const source = createPrometheusWeightSource({ url: choice.url, query: choice.query, timeoutMs });
    return { weights: await bounded(source.getWeights(partitions)), label: `prometheus (${choice.query})` };
  }
  if (choice.windowSeconds === undefined) {
    const lookbackMs = choice.lookbackSeconds === undefined ? DEFAULT_LOOKBACK_MS : choice.lookbackSeconds * 1000;
    const source = createOffsetRateWeightSource({
      kafka,
      rateIntervalMs: lookbackMs,
      instantTimeoutMs: Math.min(timeoutMs, MAX_INSTANT_TIMEOUT_MS),
    }).start();
    try {
      return {
        weights: await bounded(source.getWeights(partitions)),
        label: `offset-rate, instant (time index, last ${String(lookbackMs / 1000)} s, records/s)`,
      };
    } finally {
      await source.stop();
    }
  }
  // Sampled rates only: no instant lookups, so every weight is this run's own measurement.
  const windowMs = choice.windowSeconds * 1000;
  const source = createOffsetRateWeightSource({ kafka, rateIntervalMs: windowMs, instantTimeoutMs: 0 }).start();
  try {
    source.track(partitions);
    const total = choice.windowSeconds;
    for (let done = 0; done < total; done++) {
      progress(done, total);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    progress(total, total);
    return {
      weights: await bounded(source.getWeights(partitions)),
      label: `offset-rate, sampled over ${String(total)} s (records/s)`,
    };
  } finally {
    await source.stop();
  }
}
