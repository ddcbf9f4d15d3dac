import { isLogger, isRegistry, noopLogger, validateOptions, type Logger } from '@load-aware/assignor/internal';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { parseQueryTemplate, type QueryTemplate } from './query-template.js';

// Prometheus's label name grammar.
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const QUERY_PATH = '/api/v1/query';

const labelName = z
  .string()
  .regex(LABEL_NAME, { message: 'expected a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)' });

const schema = z
  .strictObject({
    url: z.string().superRefine((url, ctx) => {
      const problem = urlProblem(url);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
    query: z.string().superRefine((query, ctx) => {
      const parsed = parseQueryTemplate(query);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `unusable query template: ${parsed.problem}` });
    }),
    topicLabel: labelName.default('topic'),
    partitionLabel: labelName.default('partition'),
    // Messages here must never quote the value: it is a secret.
    authorization: z
      .string()
      .min(1, { message: 'expected a non-empty Authorization header value, e.g. "Bearer <token>"' })
      .refine((value) => !/[\r\n\0]/.test(value), { message: 'must not contain line breaks or NUL characters' })
      .optional(),
    timeoutMs: z.number().int().positive().max(600_000).default(30_000),
    maxAgeMs: z.number().int().min(0).max(86_400_000).default(0),
    logger: z
      .custom<Logger>(isLogger, { message: 'expected a pino-compatible logger (debug/info/warn/error)' })
      .optional(),
    registry: z.custom<Registry>(isRegistry, { message: 'expected a prom-client Registry' }).optional(),
  })
  .refine((o) => o.topicLabel !== o.partitionLabel, {
    message: 'topicLabel and partitionLabel must differ',
    path: ['partitionLabel'],
  });

/** Options of {@link createPrometheusWeightSource}. */
export interface PrometheusWeightSourceOptions {
  /**
   * Base URL of the Prometheus HTTP API, including any path prefix; `/api/v1/query` is appended.
   * Prometheus: `http://prometheus:9090`; VictoriaMetrics single node: `http://vm:8428/prometheus`;
   * VictoriaMetrics cluster: `http://vmselect:8481/select/0/prometheus`. Credentials go in
   * `authorization`, never in the URL (which appears in error messages); query strings are refused.
   */
  url: string;
  /**
   * A PromQL template returning one series per partition, labelled with topic and partition.
   * Every `%s` becomes the regex-escaped, `|`-joined list of requested topics, so it belongs in
   * a regex matcher: `sum by (topic, partition) (rate(kafka_log_end_offset{topic=~"%s"}[5m]))`.
   * Each `%s` must sit inside a string literal; a template without one throws at creation.
   */
  query: string;
  /** Label carrying the topic name in the query's result. Default `topic`. */
  topicLabel?: string;
  /** Label carrying the partition number in the query's result. Default `partition`. */
  partitionLabel?: string;
  /**
   * Value of the `Authorization` header sent with every query, e.g. `Bearer <token>` or
   * `Basic <base64>`. Never logged, never in an error message or cause, never in a metric.
   */
  authorization?: string;
  /** Deadline of one query: connect, request and the whole response. Default 30000. */
  timeoutMs?: number;
  /**
   * How long an answer is reused for the same set of topics, in ms. Default 0: every call queries
   * (calls that overlap still share one request). Set it to a little less than the shortest gap
   * between rebalances you care about, so a late answer serves the next rebalance at once.
   */
  maxAgeMs?: number;
  /** Any pino-compatible logger. Default: silent. */
  logger?: Logger;
  /** A prom-client registry to register the source's metrics on. Default: no metrics. */
  registry?: Registry;
}

/** Options after validation and defaults; frozen. */
export interface ResolvedPrometheusWeightSourceOptions {
  /** The full instant-query URL, `{url}/api/v1/query`. */
  readonly endpoint: string;
  readonly template: QueryTemplate;
  readonly topicLabel: string;
  readonly partitionLabel: string;
  readonly authorization: string | undefined;
  readonly timeoutMs: number;
  readonly maxAgeMs: number;
  readonly logger: Logger;
  readonly registry: Registry | undefined;
}

/** Validates options once, at construction; throws a `ConfigError` naming every bad key. */
export function resolveOptions(options: unknown): ResolvedPrometheusWeightSourceOptions {
  const o = validateOptions(schema, options, 'PrometheusWeightSource');
  const parsed = parseQueryTemplate(o.query);
  if (!parsed.ok) throw new Error(`unreachable: template validated above (${parsed.problem})`);
  return Object.freeze({
    endpoint: endpointOf(o.url),
    template: parsed.template,
    topicLabel: o.topicLabel,
    partitionLabel: o.partitionLabel,
    authorization: o.authorization,
    timeoutMs: o.timeoutMs,
    maxAgeMs: o.maxAgeMs,
    logger: o.logger ?? noopLogger,
    registry: o.registry,
  });
}

function urlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return 'expected an absolute http(s) URL such as http://prometheus:9090';
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `expected an http: or https: URL, got protocol ${parsed.protocol}`;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'must not contain credentials; pass them as `authorization` (e.g. "Basic <base64>") so they are never logged';
  }
  if (parsed.search !== '' || parsed.hash !== '') return 'must not have a query string or fragment';
  if (parsed.pathname.replace(/\/+$/, '').endsWith(QUERY_PATH)) {
    return `must not end with ${QUERY_PATH}: it is appended; give the base URL including any path prefix`;
  }
  return undefined;
}

function endpointOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}${QUERY_PATH}`;
}
