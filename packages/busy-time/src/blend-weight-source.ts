import {
  bindLogger,
  errorCodeOf,
  errorMessageOf,
  fetchWeights,
  median,
  weightTable,
  type PartitionWeight,
  type PartitionWeightTable,
  type TopicPartition,
  type WeightSource,
} from '@load-aware/assignor/internal';
import { resolveBlendOptions, type BlendWeightSourceOptions } from './options.js';

/** How a blend answer was made; returned by {@link blendWeights} for logs and tests. */
export interface BlendOutcome {
  readonly weights: PartitionWeight[];
  /** `blend`: primary plus scaled fallback; `primary` or `fallback`: one source alone. */
  readonly mode: 'blend' | 'primary' | 'fallback';
  /** Primary ÷ fallback units (the median ratio), when the fallback was scaled. */
  readonly ratio: number | undefined;
  /** Partitions both sources weigh above zero: the ratio's sample. */
  readonly overlap: number;
  /** Partitions weighed with the scaled fallback. */
  readonly filled: number;
}

/**
 * Creates a source that weighs each partition with `primary` where it knows it and with
 * `fallback` elsewhere, the fallback converted into the primary's units by the median ratio
 * primary ÷ fallback over the partitions both weigh above zero. Busy time from Prometheus with
 * offset rates as the fallback: a partition no consumer has handled yet (new, just created, or
 * consumed by a process without the wrapper) is weighed by its traffic at the group's typical
 * cost per message, never as free.
 *
 * A primary weight of zero counts as unknown when the fallback sees traffic on that partition:
 * messages arrive but nobody spent time on them, so the busy time says nothing about their cost.
 * Without enough overlap (`minOverlap`) to fix the scale, the fallback answers alone; when one
 * source fails or times out, the other answers alone (WARN); when both fail, the rejection is the
 * primary's failure (the assignor's `WeightsFailedError` or `WeightsTimeoutError`, the source's own
 * error as `cause`).
 *
 * @example
 * ```ts
 * const weights = createBlendWeightSource({
 *   primary: createPrometheusWeightSource({
 *     url: 'http://prometheus:9090',
 *     query: 'sum by (topic, partition) (rate(load_aware_handler_busy_seconds_total{topic=~"%s"}[5m]))',
 *   }),
 *   fallback: createOffsetRateWeightSource({ kafka }).start(),
 * });
 * ```
 */
export function createBlendWeightSource(options: BlendWeightSourceOptions): WeightSource {
  const o = resolveBlendOptions(options);
  const logger = bindLogger(o.logger, { component: 'blend' });
  return {
    async getWeights(partitions) {
      const [primary, fallback] = await Promise.allSettled([
        fetchWeights(o.primary, partitions, o.timeoutMs),
        fetchWeights(o.fallback, partitions, o.timeoutMs),
      ]);
      if (primary.status === 'rejected') {
        if (fallback.status === 'rejected') {
          logger.warn(
            { err: fallback.reason, code: errorCodeOf(fallback.reason) },
            'fallback weight source failed too',
          );
          throw primary.reason;
        }
        logger.warn(
          { err: primary.reason, code: errorCodeOf(primary.reason) },
          `primary weight source failed, using the fallback alone: ${errorMessageOf(primary.reason)}`,
        );
        return blendWeights(partitions, [], fallback.value, o.minOverlap).weights;
      }
      if (fallback.status === 'rejected') {
        logger.warn(
          { err: fallback.reason, code: errorCodeOf(fallback.reason) },
          `fallback weight source failed, using the primary alone: ${errorMessageOf(fallback.reason)}`,
        );
        return blendWeights(partitions, primary.value, [], o.minOverlap).weights;
      }
      const outcome = blendWeights(partitions, primary.value, fallback.value, o.minOverlap);
      logger.debug(
        {
          mode: outcome.mode,
          ratio: outcome.ratio,
          overlap: outcome.overlap,
          filled: outcome.filled,
          partitions: partitions.length,
        },
        'blended weights',
      );
      return outcome.weights;
    },
  };
}

/**
 * The blend rule, pure: one entry per requested partition that either source weighs. Duplicate
 * entries resolve by the assignor's rule (largest usable weight).
 */
export function blendWeights(
  partitions: ReadonlyArray<TopicPartition>,
  primaryEntries: ReadonlyArray<PartitionWeight>,
  fallbackEntries: ReadonlyArray<PartitionWeight>,
  minOverlap: number,
): BlendOutcome {
  const primary = weightTable(primaryEntries);
  const fallback = weightTable(fallbackEntries);
  const ratios: number[] = [];
  for (const p of partitions) {
    const a = primary.weightOf(p.topic, p.partition);
    const b = fallback.weightOf(p.topic, p.partition);
    if (a !== undefined && b !== undefined && a > 0 && b > 0) ratios.push(a / b);
  }
  const ratio = ratios.length >= minOverlap ? median(ratios) : undefined;

  if (ratio === undefined || !Number.isFinite(ratio) || ratio <= 0) {
    // No safe scale: answer in one unit throughout. The fallback when it knows anything (its
    // gaps are the ones the assignor defaults anyway), else the primary.
    const alone = fallback.usableCount > 0 ? fallback : primary;
    return {
      weights: entriesOf(partitions, alone),
      mode: alone === fallback ? 'fallback' : 'primary',
      ratio: undefined,
      overlap: ratios.length,
      filled: 0,
    };
  }

  const weights: PartitionWeight[] = [];
  let filled = 0;
  for (const { topic, partition } of partitions) {
    const a = primary.weightOf(topic, partition);
    const b = fallback.weightOf(topic, partition);
    if (a !== undefined && !(a === 0 && b !== undefined && b > 0)) {
      weights.push({ topic, partition, weight: a });
    } else if (b !== undefined) {
      weights.push({ topic, partition, weight: b * ratio });
      filled++;
    }
  }
  return { weights, mode: 'blend', ratio, overlap: ratios.length, filled };
}

function entriesOf(partitions: ReadonlyArray<TopicPartition>, table: PartitionWeightTable): PartitionWeight[] {
  const weights: PartitionWeight[] = [];
  for (const { topic, partition } of partitions) {
    const weight = table.weightOf(topic, partition);
    if (weight !== undefined) weights.push({ topic, partition, weight });
  }
  return weights;
}
