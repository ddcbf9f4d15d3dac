/** One series of an instant vector: its labels and its sample value (possibly NaN or ±Infinity). */
export interface VectorSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A successful instant query: the vector and any warnings the server attached. */
export interface InstantVector {
  readonly samples: ReadonlyArray<VectorSample>;
  readonly warnings: ReadonlyArray<string>;
}

/** Why a body could not be read, as {@link parseInstantVector} reports it. */
export type ParseFailure =
  { kind: 'malformed'; reason: string } | { kind: 'query_failed'; errorType: string; error: string };

/** The result of {@link parseInstantVector}. */
export type ParsedBody = { ok: true; vector: InstantVector } | { ok: false; failure: ParseFailure };

// Go's strconv.FormatFloat output, which is what Prometheus and VictoriaMetrics write.
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Inf: Number.POSITIVE_INFINITY,
  '+Inf': Number.POSITIVE_INFINITY,
  '-Inf': Number.NEGATIVE_INFINITY,
};
const MAX_WARNINGS = 5;
const MAX_FIELD_LENGTH = 300;

/**
 * Reads the body of `GET|POST /api/v1/query`:
 * `{"status":"success","data":{"resultType":"vector","result":[{"metric":{…},"value":[ts,"1.5"]}]}}`.
 *
 * Sample values arrive as strings and may be `"NaN"`, `"+Inf"` or `"-Inf"`; those become the
 * matching numbers and are left for the caller to drop. A value that is no float at all, or any
 * other shape, means the server is not speaking the Prometheus API and the whole body is refused:
 * guessing would hand the assignor weights nobody measured. Native-histogram samples carry no
 * scalar value and are read as NaN.
 */
export function parseInstantVector(text: string): ParsedBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return malformed('the body is not JSON');
  }
  if (!isRecord(body)) return malformed('the body is not a JSON object');
  if (body['status'] === 'error') {
    return {
      ok: false,
      failure: { kind: 'query_failed', errorType: bounded(body['errorType']), error: bounded(body['error']) },
    };
  }
  if (body['status'] !== 'success') return malformed(`status is ${describe(body['status'])}, expected "success"`);
  const data = body['data'];
  if (!isRecord(data)) return malformed('data is missing or not an object');
  if (data['resultType'] !== 'vector') {
    return malformed(
      `resultType is ${describe(data['resultType'])}, expected "vector": the query must return an instant vector`,
    );
  }
  const result = data['result'];
  if (!Array.isArray(result)) return malformed('data.result is not an array');
  const samples: VectorSample[] = [];
  for (const [index, series] of result.entries()) {
    const sample = readSample(series);
    if (typeof sample === 'string') return malformed(`data.result[${String(index)}] ${sample}`);
    samples.push(sample);
  }
  return { ok: true, vector: { samples, warnings: readWarnings(body['warnings']) } };
}

function readSample(series: unknown): VectorSample | string {
  if (!isRecord(series)) return 'is not an object';
  const metric = series['metric'];
  if (!isRecord(metric)) return 'has no metric object';
  const labels: Record<string, string> = {};
  for (const [name, value] of Object.entries(metric)) {
    if (typeof value !== 'string') return `has a non-string value for label ${JSON.stringify(name.slice(0, 100))}`;
    labels[name] = value;
  }
  const pair = series['value'];
  if (pair === undefined && series['histogram'] !== undefined) return { labels, value: Number.NaN };
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'number' || typeof pair[1] !== 'string') {
    return 'has no [timestamp, "value"] pair';
  }
  const value = parseSampleValue(pair[1]);
  if (value === undefined) return `has a sample value that is not a number: ${describe(pair[1])}`;
  return { labels, value };
}

/** Parses a sample value as Prometheus writes it; undefined when it is not a float at all. */
export function parseSampleValue(text: string): number | undefined {
  const special = Object.hasOwn(NON_FINITE, text) ? NON_FINITE[text] : undefined;
  if (special !== undefined) return special;
  return DECIMAL.test(text) ? Number(text) : undefined;
}

function readWarnings(warnings: unknown): string[] {
  if (!Array.isArray(warnings)) return [];
  return warnings.slice(0, MAX_WARNINGS).map(bounded);
}

function malformed(reason: string): ParsedBody {
  return { ok: false, failure: { kind: 'malformed', reason } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bounded(value: unknown): string {
  const text = typeof value === 'string' ? value : describe(value);
  return text.length > MAX_FIELD_LENGTH ? `${text.slice(0, MAX_FIELD_LENGTH)}…` : text;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}
