/**
 * @packageDocumentation
 * Busy-time weights for the load-aware KafkaJS assigner from OpenTelemetry, without wrapping
 * handlers: a weight source whose MetricReader reads the `messaging.process.duration` histogram
 * that `@opentelemetry/instrumentation-kafkajs` records in this process, and the PromQL template
 * that reads the same histogram from Prometheus, summed over processes.
 *
 * The root exports what users need (each documented in this API reference); tests reach the
 * internals through the unstable `@load-aware/weights-otel/internal`.
 */
export { createOtelWeightSource, type OtelWeightSource } from './otel-weight-source.js';
export type { OtelWeightSourceOptions, AttributeMatchValue } from './options.js';
export { otelPrometheusQuery, type OtelPrometheusQuery, type OtelPrometheusQueryOptions } from './prometheus-query.js';
export { OtelErrorCodes, OtelReaderNotRegisteredError, OtelCollectFailedError, type OtelErrorCode } from './errors.js';
