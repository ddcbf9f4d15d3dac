import { getOrCreateMetric } from '@load-aware/assignor/internal';
import { Counter, Histogram, type Registry } from 'prom-client';
import { PrometheusErrorCodes, type PrometheusQueryErrorCode } from './errors.js';
import type { LookupResult } from './cache.js';

/** The `result` label of query metrics: `success` or one value per failure code. Bounded by design. */
export type QueryResult =
  'success' | 'timeout' | 'request_failed' | 'http_status' | 'query_failed' | 'malformed_response';

const resultOfCode: Readonly<Record<PrometheusQueryErrorCode, QueryResult>> = {
  [PrometheusErrorCodes.timeout]: 'timeout',
  [PrometheusErrorCodes.requestFailed]: 'request_failed',
  [PrometheusErrorCodes.httpStatus]: 'http_status',
  [PrometheusErrorCodes.queryFailed]: 'query_failed',
  [PrometheusErrorCodes.malformedResponse]: 'malformed_response',
};

/** The `result` label value for a failed query's error code. */
export function queryResultOf(code: PrometheusQueryErrorCode): QueryResult {
  return resultOfCode[code];
}

/** What the source records. */
export interface PrometheusSourceMetrics {
  /** One query sent to the server, by result, with its duration. */
  query(result: QueryResult, durationSeconds: number): void;
  /** One `getWeights()` call, by how the cache served it. */
  lookup(result: LookupResult): void;
}

const noopMetrics: PrometheusSourceMetrics = { query: () => undefined, lookup: () => undefined };

/**
 * Creates the source's metrics on `registry`, or reuses them when another source of the same
 * process registered them already. Label `result` only: topic names, URLs or queries would make
 * the series unbounded (and a URL can be sensitive).
 */
export function createSourceMetrics(registry: Registry | undefined): PrometheusSourceMetrics {
  if (registry === undefined) return noopMetrics;
  const queries = getOrCreateMetric(
    registry,
    'load_aware_prometheus_queries_total',
    (name) =>
      new Counter({
        name,
        help: 'Instant queries sent to Prometheus by the weight source, by result (success or the failure kind).',
        labelNames: ['result'],
        registers: [registry],
      }),
  );
  const duration = getOrCreateMetric(
    registry,
    'load_aware_prometheus_query_duration_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Duration of one instant query to Prometheus, response parsing included, by result.',
        labelNames: ['result'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [registry],
      }),
  );
  const lookups = getOrCreateMetric(
    registry,
    'load_aware_prometheus_lookups_total',
    (name) =>
      new Counter({
        name,
        help: 'getWeights() calls by how they were served: hit (fresh cached answer), joined (a query in flight) or miss (new query).',
        labelNames: ['result'],
        registers: [registry],
      }),
  );
  return {
    query(result, durationSeconds) {
      queries.inc({ result });
      duration.observe({ result }, durationSeconds);
    },
    lookup(result) {
      lookups.inc({ result });
    },
  };
}
