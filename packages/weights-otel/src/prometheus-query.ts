import { validateOptions } from '@load-aware/assignor/internal';
import { z } from 'zod';

/** The label Prometheus gives `messaging.destination.name` (dots become underscores). */
export const PROMETHEUS_TOPIC_LABEL = 'messaging_destination_name';
/** The label Prometheus gives `messaging.destination.partition.id`. */
export const PROMETHEUS_PARTITION_LABEL = 'messaging_destination_partition_id';

// PromQL's duration grammar: one or more number-unit pairs, largest unit first by convention.
const PROMQL_DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

const schema = z.strictObject({
  window: z
    .string()
    .regex(PROMQL_DURATION, { message: 'expected a PromQL duration such as 5m, 90s or 1h30m' })
    .default('5m'),
  matchers: z
    .string()
    .refine((m) => m.trim() !== '' && !/[{}]/.test(m), {
      message: 'expected label matchers to add inside {…}, e.g. job="orders", without braces',
    })
    .optional(),
});

/** Options of {@link otelPrometheusQuery}. */
export interface OtelPrometheusQueryOptions {
  /**
   * The range of `rate()`, a PromQL duration: at least four scrape (or export) intervals. Default
   * `5m`.
   */
  window?: string;
  /**
   * More label matchers, added inside the selector's braces: which service's histograms to sum,
   * e.g. `job="orders-consumer"` or `service_name="orders"`. The instrumentation records no
   * consumer group, so without a matcher every process that handles the topics counts.
   */
  matchers?: string;
}

/** The keys of `createPrometheusWeightSource`'s options that read OTel's histogram in Prometheus. */
export interface OtelPrometheusQuery {
  /** The PromQL template: busy seconds per second by topic and partition, summed over processes. */
  readonly query: string;
  /** `messaging_destination_name`. */
  readonly topicLabel: string;
  /** `messaging_destination_partition_id`. */
  readonly partitionLabel: string;
}

/**
 * The query, topic label and partition label for `@load-aware/weights-prometheus` that read
 * `messaging.process.duration` as Prometheus stores it (exported by an OTel collector or the SDK's
 * Prometheus exporter): `rate()` of the histogram's `_sum` is each partition's busy seconds per
 * second, summed over every process that handled it, the same units as `@load-aware/busy-time`'s
 * counter. The metric is matched with and without the `_seconds` unit suffix, which exporters add
 * only when the instrument has a unit (`@opentelemetry/instrumentation-kafkajs` sets none).
 *
 * @example
 * ```ts
 * const weights = createPrometheusWeightSource({
 *   url: 'http://prometheus:9090',
 *   ...otelPrometheusQuery({ window: '5m', matchers: 'job="orders-consumer"' }),
 * });
 * ```
 */
export function otelPrometheusQuery(options: OtelPrometheusQueryOptions = {}): OtelPrometheusQuery {
  const o = validateOptions(schema, options, 'otelPrometheusQuery');
  const extra = o.matchers === undefined ? '' : `, ${o.matchers.trim()}`;
  const selector = `{__name__=~"messaging_process_duration(_seconds)?_sum", ${PROMETHEUS_TOPIC_LABEL}=~"%s"${extra}}`;
  return Object.freeze({
    query: `sum by (${PROMETHEUS_TOPIC_LABEL}, ${PROMETHEUS_PARTITION_LABEL}) (rate(${selector}[${o.window}]))`,
    topicLabel: PROMETHEUS_TOPIC_LABEL,
    partitionLabel: PROMETHEUS_PARTITION_LABEL,
  });
}
