import { LoadAwareError } from '@load-aware/assignor';

/**
 * The error catalogue of `@load-aware/weights-prometheus`. Codes are stable and never reused;
 * callers and tests match on `code`, never on the message. Bad options throw the assignor's
 * `ConfigError` (code `LOAD_AWARE_CONFIG`) instead, so config errors read the same in every package.
 */
export const PrometheusErrorCodes = {
  /** A requested topic name has characters Kafka does not allow; no query was sent. */
  invalidTopic: 'LOAD_AWARE_PROMETHEUS_INVALID_TOPIC',
  /** No complete answer within `timeoutMs` (connect, request and response body together). */
  timeout: 'LOAD_AWARE_PROMETHEUS_TIMEOUT',
  /** The request never got an HTTP answer: connection refused, reset, DNS failure, body too large. */
  requestFailed: 'LOAD_AWARE_PROMETHEUS_REQUEST_FAILED',
  /** The server answered with a status outside 2xx (redirects included: they are not followed). */
  httpStatus: 'LOAD_AWARE_PROMETHEUS_HTTP_STATUS',
  /** The server answered 2xx with `status: "error"`, e.g. a PromQL syntax error. */
  queryFailed: 'LOAD_AWARE_PROMETHEUS_QUERY_FAILED',
  /** The body is not a Prometheus instant-vector answer (not JSON, wrong shape, wrong result type). */
  malformedResponse: 'LOAD_AWARE_PROMETHEUS_MALFORMED_RESPONSE',
} as const;

/** A code from {@link PrometheusErrorCodes}. */
export type PrometheusErrorCode = (typeof PrometheusErrorCodes)[keyof typeof PrometheusErrorCodes];

/** Codes of errors that come from running a query (everything but an invalid topic). */
export type PrometheusQueryErrorCode = Exclude<PrometheusErrorCode, typeof PrometheusErrorCodes.invalidTopic>;

/** What a failed query adds to its message, for callers that want it as data. */
export interface PrometheusQueryErrorDetails {
  /** The HTTP status, when the server answered at all. */
  readonly status?: number;
  /** A short, whitespace-collapsed start of the response body, secrets redacted. */
  readonly bodyExcerpt?: string;
  /** A sanitized description of the underlying failure: never an axios error, whose config holds headers. */
  readonly cause?: Error;
}

/**
 * A query to Prometheus failed. The message names the endpoint and the reason, with a bounded
 * excerpt of the body when there is one. It never contains the `authorization` value, and neither
 * does its `cause` chain: the HTTP client's own error (which carries the request headers) is
 * replaced by a plain error holding only its code and message.
 */
export class PrometheusQueryError extends LoadAwareError {
  declare readonly code: PrometheusQueryErrorCode;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** A short start of the response body, secrets redacted, when there was a body. */
  readonly bodyExcerpt: string | undefined;

  constructor(code: PrometheusQueryErrorCode, message: string, details: PrometheusQueryErrorDetails = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.bodyExcerpt = details.bodyExcerpt;
  }
}

/** `getWeights()` was asked for a topic whose name Kafka would not accept; nothing was queried. */
export class InvalidTopicError extends LoadAwareError {
  declare readonly code: typeof PrometheusErrorCodes.invalidTopic;
  constructor(readonly topic: string) {
    super(
      PrometheusErrorCodes.invalidTopic,
      `Invalid topic name ${JSON.stringify(topic.length > 80 ? `${topic.slice(0, 80)}…` : topic)} (length ${String(topic.length)}): expected 1–249 characters from [a-zA-Z0-9._-]`,
    );
  }
}
