import type { Attributes } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { AttributeMatchValue } from './options.js';

/** One partition's cumulative busy seconds in one collection. */
export interface PartitionSeconds {
  readonly topic: string;
  readonly partition: number;
  readonly seconds: number;
}

/** Which data points count, and where their topic and partition are. */
export interface PointSelection {
  readonly metricName: string;
  readonly topicAttribute: string;
  readonly partitionAttribute: string;
  readonly match: ReadonlyArray<readonly [string, AttributeMatchValue]>;
}

/** What one collection held for the selected histogram. */
export interface CollectedSums {
  /** Cumulative busy seconds by {@link partitionKey}, summed over the series of each partition. */
  readonly byPartition: ReadonlyMap<string, PartitionSeconds>;
  /** Histograms named `metricName` found, whatever their points. */
  readonly metrics: number;
  /** Data points that matched but had no usable topic, partition or sum. */
  readonly unusablePoints: number;
  /** Units of histograms named `metricName` that are not time in s or ms: skipped. */
  readonly unknownUnits: ReadonlyArray<string>;
  /** Whether a histogram named `metricName` was reported with delta temporality: skipped. */
  readonly delta: boolean;
}

/** The map key of one partition. A NUL cannot occur in a topic name. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${String(partition)}`;
}

// The instrumentation records seconds but sets no unit (''); semantic conventions say 's'. A view or
// another instrumentation could report milliseconds.
const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { '': 1, s: 1, ms: 0.001 };

/**
 * Sums, per topic-partition, the `sum` of every histogram data point named `selection.metricName`
 * (explicit-bucket or exponential) whose attributes match. Several series of one partition (an
 * `error.type`, two consumers of the process reading it) add up: all were time spent handling its
 * messages. Cumulative points only: the reader asks for cumulative temporality, and a delta point
 * (a custom selector) cannot be told apart from a reset.
 */
export function sumsOf(resourceMetrics: ResourceMetrics, selection: PointSelection): CollectedSums {
  const byPartition = new Map<string, PartitionSeconds>();
  let metrics = 0;
  let unusablePoints = 0;
  let delta = false;
  const unknownUnits = new Set<string>();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== selection.metricName) continue;
      if (
        metric.dataPointType !== DataPointType.HISTOGRAM &&
        metric.dataPointType !== DataPointType.EXPONENTIAL_HISTOGRAM
      ) {
        continue;
      }
      metrics++;
      const scale = SECONDS_PER_UNIT[metric.descriptor.unit];
      if (scale === undefined) {
        unknownUnits.add(metric.descriptor.unit);
        continue;
      }
      if (metric.aggregationTemporality !== AggregationTemporality.CUMULATIVE) {
        delta = true;
        continue;
      }
      for (const point of metric.dataPoints) {
        if (!matches(point.attributes, selection.match)) continue;
        const topic = point.attributes[selection.topicAttribute];
        const partition = partitionOf(point.attributes[selection.partitionAttribute]);
        const sum = point.value.sum;
        if (typeof topic !== 'string' || topic === '' || partition === undefined || !isUsableSum(sum)) {
          unusablePoints++;
          continue;
        }
        const key = partitionKey(topic, partition);
        const seconds = (byPartition.get(key)?.seconds ?? 0) + sum * scale;
        byPartition.set(key, { topic, partition, seconds });
      }
    }
  }
  return { byPartition, metrics, unusablePoints, unknownUnits: [...unknownUnits], delta };
}

function matches(attributes: Attributes, match: PointSelection['match']): boolean {
  for (const [name, value] of match) if (attributes[name] !== value) return false;
  return true;
}

function isUsableSum(sum: number | undefined): sum is number {
  return sum !== undefined && Number.isFinite(sum) && sum >= 0;
}

/** A partition number from an attribute: a non-negative int32, as a number or its decimal string. */
export function partitionOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 2_147_483_647 ? n : undefined;
}
