/**
 * The error catalogue of `@load-aware/weights-prometheus`: one class per code. Codes are stable
 * and never reused; callers and tests match on `code`, never on the message. Bad options throw
 * the assignor's `ConfigError` (code `LOAD_AWARE_CONFIG`) instead, so config errors read the same
 * in every package.
 */
import { ERROR_CODES, isLoadAwareError, LoadAwareError } from '@load-aware/assignor';

/** Codes of every error this package throws: its group of the assignor's `ERROR_CODES`. */
export const PrometheusErrorCodes = ERROR_CODES.prometheus;

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
 * A query to Prometheus failed; the base of one class per query code below. The message names the endpoint and the reason, with a bounded
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

/** No complete answer within `timeoutMs` (connect, request and response body together). */
export class PrometheusTimeoutError extends PrometheusQueryError {
  declare readonly code: typeof PrometheusErrorCodes.timeout;
  constructor(message: string, details?: PrometheusQueryErrorDetails) {
    super(PrometheusErrorCodes.timeout, message, details);
  }
}

/** No HTTP answer: refused, reset, DNS failure, body too large; `cause` is sanitized. */
export class PrometheusRequestFailedError extends PrometheusQueryError {
  declare readonly code: typeof PrometheusErrorCodes.requestFailed;
  constructor(message: string, details?: PrometheusQueryErrorDetails) {
    super(PrometheusErrorCodes.requestFailed, message, details);
  }
}

/** An HTTP status outside 2xx (redirects included: they are not followed). */
export class PrometheusHttpStatusError extends PrometheusQueryError {
  declare readonly code: typeof PrometheusErrorCodes.httpStatus;
  constructor(message: string, details?: PrometheusQueryErrorDetails) {
    super(PrometheusErrorCodes.httpStatus, message, details);
  }
}

/** A 2xx answer with `status: "error"`, e.g. a PromQL syntax error. */
export class PrometheusQueryFailedError extends PrometheusQueryError {
  declare readonly code: typeof PrometheusErrorCodes.queryFailed;
  constructor(message: string, details?: PrometheusQueryErrorDetails) {
    super(PrometheusErrorCodes.queryFailed, message, details);
  }
}

/** A body that is not an instant-vector answer (not JSON, wrong shape, wrong result type). */
export class PrometheusMalformedResponseError extends PrometheusQueryError {
  declare readonly code: typeof PrometheusErrorCodes.malformedResponse;
  constructor(message: string, details?: PrometheusQueryErrorDetails) {
    super(PrometheusErrorCodes.malformedResponse, message, details);
  }
}

/**
 * True for a failed query's error ({@link PrometheusQueryError} or a subclass), by brand and code
 * rather than `instanceof`, so errors of another installed copy of this package count too.
 */
export function isPrometheusQueryError(e: unknown): e is PrometheusQueryError {
  return isLoadAwareError(e) && QUERY_ERROR_CODES.has(e.code);
}

const QUERY_ERROR_CODES: ReadonlySet<string> = new Set<PrometheusQueryErrorCode>([
  PrometheusErrorCodes.timeout,
  PrometheusErrorCodes.requestFailed,
  PrometheusErrorCodes.httpStatus,
  PrometheusErrorCodes.queryFailed,
  PrometheusErrorCodes.malformedResponse,
]);

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
