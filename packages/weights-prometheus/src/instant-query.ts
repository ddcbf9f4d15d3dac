import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import {
  PrometheusHttpStatusError,
  PrometheusMalformedResponseError,
  PrometheusQueryFailedError,
  PrometheusRequestFailedError,
  PrometheusTimeoutError,
} from './errors.js';
import { excerpt, type Redactor } from './redaction.js';
import { parseInstantVector, type InstantVector } from './response.js';
import { errorCodeOf, errorMessageOf } from '@load-aware/assignor/internal';

/** Largest response body accepted; a broad query against a big server must not exhaust memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** What an instant query needs to know about its server. */
export interface InstantQueryConfig {
  /** The full `…/api/v1/query` URL, without credentials. */
  readonly endpoint: string;
  /** The `Authorization` header value, if any. */
  readonly authorization: string | undefined;
  /** Deadline for the whole exchange: connect, request, response headers and body. */
  readonly timeoutMs: number;
  /** Scrubs the authorization value out of anything that reaches an error. */
  readonly redactor: Redactor;
}

/** Runs one PromQL instant query; resolves with the vector or rejects with a `PrometheusQueryError` (a subclass per code). */
export type InstantQuery = (promql: string) => Promise<InstantVector>;

/**
 * Creates the HTTP side of the source: `POST {url}/api/v1/query` with a form-encoded `query=`,
 * which both Prometheus and VictoriaMetrics accept and which, unlike GET, has no URL length limit
 * for long topic lists. No `time` parameter is sent, so the server's own clock decides "now".
 */
export function createInstantQuery(config: InstantQueryConfig): InstantQuery {
  const client: AxiosInstance = axios.create({
    // Statuses, bodies and JSON are judged here, so errors can carry a bounded, redacted excerpt.
    validateStatus: () => true,
    responseType: 'text',
    transformResponse: [(data: unknown) => data],
    // A redirect would re-send the Authorization header to wherever it points: refuse it.
    maxRedirects: 0,
    maxContentLength: MAX_RESPONSE_BYTES,
    headers: {
      Accept: 'application/json',
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(config.authorization === undefined ? {} : { Authorization: config.authorization }),
    },
  });
  return (promql) => run(client, config, promql);
}

async function run(client: AxiosInstance, config: InstantQueryConfig, promql: string): Promise<InstantVector> {
  const { endpoint, redactor, timeoutMs } = config;
  // axios's own `timeout` is an idle timer that restarts on every chunk, so a server that trickles
  // its answer would never trip it; one abort signal bounds the whole exchange instead.
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, timeoutMs);
  timer.unref();
  let response: AxiosResponse<unknown>;
  try {
    response = await client.post(endpoint, new URLSearchParams({ query: promql }).toString(), {
      signal: controller.signal,
    });
  } catch (err) {
    // Only the timer aborts, so an aborted signal means the deadline passed.
    if (controller.signal.aborted) {
      throw new PrometheusTimeoutError(
        `Prometheus query to ${endpoint} timed out after timeoutMs=${String(timeoutMs)}`,
      );
    }
    // Never pass the axios error on: its `config.headers` holds the Authorization value and its
    // `request` the whole socket. Keep only what explains the failure.
    const cause = sanitize(err, redactor);
    throw new PrometheusRequestFailedError(`Prometheus query to ${endpoint} failed: ${cause.message}`, { cause });
  } finally {
    clearTimeout(timer);
  }
  const text = typeof response.data === 'string' ? response.data : '';
  const bodyExcerpt = excerpt(text, redactor);
  if (response.status < 200 || response.status > 299) {
    throw new PrometheusHttpStatusError(
      `Prometheus query to ${endpoint} answered HTTP ${String(response.status)}: ${bodyExcerpt || '(empty body)'}`,
      { status: response.status, bodyExcerpt },
    );
  }
  const parsed = parseInstantVector(text);
  if (parsed.ok) return parsed.vector;
  const { failure } = parsed;
  if (failure.kind === 'query_failed') {
    throw new PrometheusQueryFailedError(
      redactor.redact(`Prometheus query to ${endpoint} failed: ${failure.errorType}: ${failure.error}`),
      { status: response.status, bodyExcerpt },
    );
  }
  throw new PrometheusMalformedResponseError(
    redactor.redact(
      `Prometheus query to ${endpoint} returned an unusable body (${failure.reason}): ${bodyExcerpt || '(empty body)'}`,
    ),
    { status: response.status, bodyExcerpt },
  );
}

/** A plain error with the failure's code and message only: no config, headers, request or response. */
function sanitize(err: unknown, redactor: Redactor): Error {
  const code = errorCodeOf(err);
  const message = redactor.redact(errorMessageOf(err));
  const plain = new Error(code === undefined || message.includes(code) ? message : `${code}: ${message}`);
  if (code !== undefined) Object.defineProperty(plain, 'code', { value: code, enumerable: true });
  return plain;
}
