import { ConfigError } from '@load-aware/assignor';
import { createPrometheusWeightSource, resolveOptions } from '@load-aware/weights-prometheus/internal';
import { reachableStrings } from './fake-prometheus';
import { errorThrownBy } from '@load-aware/test-support';

/**
 * Every option of `createPrometheusWeightSource(options)`, given a wrong type and a wrong range,
 * fails at construction with a `ConfigError` (`LOAD_AWARE_CONFIG`) naming the key, and never
 * quotes the authorization value. The table is checked against the resolved options, so an
 * option added later without a row here fails.
 */

const base = { url: 'http://127.0.0.1:9090', query: 'x{topic=~"%s"}' };
const SECRET = 'Bearer tok-3f9a8c1d77';

const WRONG_FOR_ALL: unknown[] = [null, Symbol('x'), [], true];

const BAD: Record<string, unknown[]> = {
  url: [
    '',
    'prometheus:9090',
    'file:///etc/passwd',
    'http://u:p@h:9090',
    'http://h/?x=1',
    'http://h/#f',
    'http://h/api/v1/query',
    undefined,
  ],
  query: ['', 'up', 'x{topic=~%s}', undefined, { text: 'x' }],
  topicLabel: ['', 'kafka-topic', '0topic', 'tópico', 7],
  partitionLabel: ['', 'p-1', '1p', false],
  authorization: ['', `${SECRET}\r\nX-Injected: 1`, `${SECRET}\0`, 12345, { token: SECRET }],
  timeoutMs: [0, -1, 1.5, 600_001, Number.NaN, Number.POSITIVE_INFINITY, '30000'],
  maxAgeMs: [-1, 86_400_001, 0.5, Number.NaN, '0'],
  logger: [console.log, {}, { debug() {}, info() {} }],
  registry: [{}, { registerMetric() {} }, 'default'],
};

/** The option each resolved key comes from. */
const OPTION_OF: Record<string, string> = { endpoint: 'url', template: 'query' };

function configErrorOf(options: unknown): ConfigError {
  return errorThrownBy(() => createPrometheusWeightSource(options as never), ConfigError);
}

const cases = Object.entries(BAD).flatMap(([key, values]) =>
  [...values, ...WRONG_FOR_ALL].map((value) => [key, value] as const),
);

describe('createPrometheusWeightSource config errors (every option)', () => {
  it('has a row for every option the source resolves', () => {
    const resolved = Object.keys(resolveOptions(base)).map((k) => OPTION_OF[k] ?? k);
    expect(resolved.sort()).toEqual(Object.keys(BAD).sort());
  });

  it.each(cases)('rejects %s = %p with LOAD_AWARE_CONFIG naming the key', (key, value) => {
    const err = configErrorOf({ ...base, [key]: value });
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
    expect(reachableStrings(err).filter((s) => s.includes('tok-3f9a8c1d77'))).toEqual([]);
  });

  it('rejects equal topic and partition labels, naming partitionLabel', () => {
    expect(configErrorOf({ ...base, topicLabel: 'p', partitionLabel: 'p' }).message).toContain('partitionLabel');
  });

  it('rejects missing and non-object options', () => {
    for (const options of [undefined, null, {}, 'http://prometheus:9090', 9090]) {
      expect(configErrorOf(options).code).toBe('LOAD_AWARE_CONFIG');
    }
  });
});
