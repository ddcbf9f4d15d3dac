import { performance } from 'node:perf_hooks';
import type { PartitionWeight, TopicPartition, WeightSource } from '@load-aware/assignor';
import { bindLogger, partitionKey } from '@load-aware/assignor/internal';
import { createAnswerCache } from './cache.js';
import { InvalidTopicError, isPrometheusQueryError } from './errors.js';
import { createInstantQuery } from './instant-query.js';
import { createSourceMetrics, queryResultOf } from './metrics.js';
import { resolveOptions, type PrometheusWeightSourceOptions } from './options.js';
import { createRedactor } from './redaction.js';
import type { VectorSample } from './response.js';
import { isLegalTopic } from './topics.js';

/** Distinct topic sets whose answers are kept at once (each is one query's worth of weights). */
const MAX_CACHED_TOPIC_SETS = 64;

/** Weights of every partition a query returned for a topic set, keyed by `partitionKey()`. */
type WeightTable = ReadonlyMap<string, number>;

/**
 * Creates a {@link WeightSource} that reads partition weights from Prometheus (or anything that
 * speaks its HTTP API, such as VictoriaMetrics) with one PromQL instant query per call.
 *
 * Options are validated here, once: a bad key, a URL with credentials or a template without a
 * `%s` inside a string throws a `ConfigError` naming it.
 *
 * `getWeights()` returns entries only for requested partitions whose series came back with a
 * finite value; missing series, `NaN` and `±Inf` are left out so the assignor gives them the
 * default weight and counts them as defaulted. When several series carry the same topic and
 * partition (different values of some other label), their values are **summed**, which is right
 * for rates split across label sets; a non-finite value among them leaves the partition out
 * rather than under-reporting it. A failed query rejects with a `PrometheusQueryError` (a
 * subclass per code); an illegal topic name rejects with an {@link InvalidTopicError} before
 * anything is sent.
 *
 * @example
 * ```ts
 * import { Kafka, PartitionAssigners } from 'kafkajs';
 * import { LoadAwareAssigner } from '@load-aware/assignor';
 * import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
 *
 * const weights = createPrometheusWeightSource({
 *   url: 'http://prometheus:9090',
 *   query: 'sum by (topic, partition) (rate(kafka_log_log_endoffset{topic=~"%s"}[5m]))',
 *   authorization: `Bearer ${process.env.PROMETHEUS_TOKEN}`,
 *   maxAgeMs: 60_000,
 *   logger,
 *   registry,
 * });
 * const consumer = new Kafka({ brokers }).consumer({
 *   groupId: 'orders',
 *   partitionAssigners: [LoadAwareAssigner({ weights }), PartitionAssigners.roundRobin],
 * });
 * ```
 */
export function createPrometheusWeightSource(options: PrometheusWeightSourceOptions): WeightSource {
  const resolved = resolveOptions(options);
  const { endpoint, template, topicLabel, partitionLabel } = resolved;
  // The component travels as a field, so messages need no "prometheus:" prefix to be found.
  const logger = bindLogger(resolved.logger, { component: 'prometheus' });
  const redactor = createRedactor(resolved.authorization);
  const query = createInstantQuery({
    endpoint,
    authorization: resolved.authorization,
    timeoutMs: resolved.timeoutMs,
    redactor,
  });
  const metrics = createSourceMetrics(resolved.registry);
  const cache = createAnswerCache<WeightTable>({
    maxAgeMs: resolved.maxAgeMs,
    maxEntries: MAX_CACHED_TOPIC_SETS,
    now: () => performance.now(),
  });

  const queryTopics = async (topics: ReadonlyArray<string>): Promise<WeightTable> => {
    const startedAt = performance.now();
    try {
      const vector = await query(template.render(topics));
      const durationMs = performance.now() - startedAt;
      metrics.query('success', durationMs / 1000);
      const { table, unlabelled } = tabulate(vector.samples, topicLabel, partitionLabel);
      const fields = { topics: topics.length, series: vector.samples.length, partitions: table.size, durationMs };
      if (vector.warnings.length > 0) {
        logger.warn({ ...fields, warnings: vector.warnings }, 'Prometheus query warnings');
      }
      if (unlabelled > 0 && table.size === 0) {
        logger.warn(
          { ...fields, topicLabel, partitionLabel },
          'Prometheus query returned series but none carries both the topic and the partition label',
        );
      } else {
        logger.debug({ ...fields, unlabelled }, 'Prometheus weights queried');
      }
      return table;
    } catch (err) {
      const durationMs = performance.now() - startedAt;
      if (isPrometheusQueryError(err)) {
        metrics.query(queryResultOf(err.code), durationMs / 1000);
        logger.warn({ err, code: err.code, topics: topics.length, durationMs }, 'Prometheus weight query failed');
      }
      throw err;
    }
  };

  return {
    async getWeights(partitions: ReadonlyArray<TopicPartition>): Promise<ReadonlyArray<PartitionWeight>> {
      if (partitions.length === 0) return [];
      const topics = [...new Set(partitions.map((p) => p.topic))].sort();
      const illegal = topics.find((topic) => !isLegalTopic(topic));
      if (illegal !== undefined) throw new InvalidTopicError(illegal);
      // ',' cannot occur in a topic name, so the joined list identifies the set unambiguously.
      const lookup = cache.get(topics.join(','), () => queryTopics(topics));
      metrics.lookup(lookup.result);
      const table = await lookup.value;
      const weights: PartitionWeight[] = [];
      for (const { topic, partition } of partitions) {
        const weight = table.get(partitionKey(topic, partition));
        if (weight !== undefined && Number.isFinite(weight)) weights.push({ topic, partition, weight });
      }
      return weights;
    },
  };
}

/**
 * Sums the samples per topic and partition. Non-finite values take part in the sum on purpose:
 * NaN or ±Inf anywhere makes the partition's total non-finite, so it is left out (defaulted)
 * instead of being reported lighter than it is.
 */
function tabulate(
  samples: ReadonlyArray<VectorSample>,
  topicLabel: string,
  partitionLabel: string,
): { table: Map<string, number>; unlabelled: number } {
  const table = new Map<string, number>();
  let unlabelled = 0;
  for (const { labels, value } of samples) {
    const topic = labels[topicLabel];
    const partition = parsePartition(labels[partitionLabel]);
    if (topic === undefined || partition === undefined) {
      unlabelled += 1;
      continue;
    }
    const key = partitionKey(topic, partition);
    table.set(key, (table.get(key) ?? 0) + value);
  }
  return { table, unlabelled };
}

function parsePartition(label: string | undefined): number | undefined {
  if (label === undefined || !/^\d{1,10}$/.test(label)) return undefined;
  const partition = Number(label);
  return partition <= 0x7fff_ffff ? partition : undefined;
}
