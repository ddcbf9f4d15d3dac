/**
 * @packageDocumentation
 * Partition weights from Prometheus or VictoriaMetrics for the load-aware KafkaJS assigner: one
 * PromQL instant query per assignment, over the HTTP API, with an optional short-lived cache.
 */
export { createPrometheusWeightSource } from './prometheus-weight-source.js';
export type { PrometheusWeightSourceOptions, ResolvedPrometheusWeightSourceOptions } from './options.js';
export { resolveOptions } from './options.js';
export {
  PrometheusErrorCodes,
  PrometheusQueryError,
  InvalidTopicError,
  type PrometheusErrorCode,
  type PrometheusQueryErrorCode,
  type PrometheusQueryErrorDetails,
} from './errors.js';
export { parseQueryTemplate, TOPIC_PLACEHOLDER, type QueryTemplate, type ParsedTemplate } from './query-template.js';
export { escapeRegex, isLegalTopic, MAX_TOPIC_LENGTH } from './topics.js';
export { parseInstantVector, parseSampleValue, type InstantVector, type VectorSample } from './response.js';
export { MAX_EXCERPT_LENGTH } from './redaction.js';
export { MAX_RESPONSE_BYTES } from './instant-query.js';
export type { QueryResult } from './metrics.js';
export type { LookupResult } from './cache.js';

// Issue 17, item 5: a class per code, brand checks that survive duplicate installs.
export {
  PrometheusTimeoutError,
  PrometheusRequestFailedError,
  PrometheusHttpStatusError,
  PrometheusQueryFailedError,
  PrometheusMalformedResponseError,
  isPrometheusQueryError,
} from './errors.js';
export { isLoadAwareError, type LoadAwareErrorCode } from '@load-aware/assignor';
