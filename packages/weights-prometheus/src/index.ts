/**
 * @packageDocumentation
 * Partition weights from Prometheus or VictoriaMetrics for the load-aware KafkaJS assigner: one
 * PromQL instant query per assignment, over the HTTP API, with an optional short-lived cache.
 *
 * The root exports what users need (each documented in this API reference); tests reach the internals
 * through the unstable `@load-aware/weights-prometheus/internal`.
 */
export { createPrometheusWeightSource } from './prometheus-weight-source.js';
export type { PrometheusWeightSourceOptions } from './options.js';
export {
  PrometheusErrorCodes,
  PrometheusQueryError,
  InvalidTopicError,
  type PrometheusErrorCode,
  type PrometheusQueryErrorCode,
  type PrometheusQueryErrorDetails,
} from './errors.js';
export {
  PrometheusTimeoutError,
  PrometheusRequestFailedError,
  PrometheusHttpStatusError,
  PrometheusQueryFailedError,
  PrometheusMalformedResponseError,
  isPrometheusQueryError,
} from './errors.js';
