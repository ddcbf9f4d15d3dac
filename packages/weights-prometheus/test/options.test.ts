import { ConfigError, ErrorCodes } from '@load-aware/assignor';
import { createPrometheusWeightSource, resolveOptions } from '@load-aware/weights-prometheus/internal';
import { Registry } from 'prom-client';
import { reachableStrings } from './fake-prometheus';
import { errorThrownBy } from '@load-aware/test-support';

const base = { url: 'http://127.0.0.1:9090', query: 'x{topic=~"%s"}' };

function configErrorOf(options: unknown): ConfigError {
  return errorThrownBy(() => resolveOptions(options), ConfigError);
}

describe('PrometheusWeightSource options', () => {
  it('applies documented defaults and appends /api/v1/query to the URL', () => {
    const resolved = resolveOptions(base);
    expect(resolved.endpoint).toBe('http://127.0.0.1:9090/api/v1/query');
    expect(resolved.topicLabel).toBe('topic');
    expect(resolved.partitionLabel).toBe('partition');
    expect(resolved.timeoutMs).toBe(30_000);
    expect(resolved.maxAgeMs).toBe(0);
    expect(resolved.authorization).toBeUndefined();
    expect(resolved.registry).toBeUndefined();
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it('keeps a path prefix such as VictoriaMetrics’ and drops trailing slashes', () => {
    expect(resolveOptions({ ...base, url: 'http://127.0.0.1:8481/select/0/prometheus/' }).endpoint).toBe(
      'http://127.0.0.1:8481/select/0/prometheus/api/v1/query',
    );
  });

  it('accepts a full, valid configuration', () => {
    const resolved = resolveOptions({
      ...base,
      topicLabel: 'kafka_topic',
      partitionLabel: 'kafka_partition',
      authorization: 'Bearer abc',
      timeoutMs: 500,
      maxAgeMs: 10_000,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      registry: new Registry(),
    });
    expect(resolved.topicLabel).toBe('kafka_topic');
    expect(resolved.maxAgeMs).toBe(10_000);
  });

  it('throws at creation, not at the first rebalance, for a template without %s', () => {
    expect(() => createPrometheusWeightSource({ ...base, query: 'sum(rate(x[1m]))' })).toThrow(ConfigError);
  });

  it.each([
    ['url', { url: 'not a url' }],
    ['url', { url: 'ftp://127.0.0.1/' }],
    ['url', { url: 'http://user:pw@127.0.0.1:9090' }],
    ['url', { url: 'http://127.0.0.1:9090/?tenant=1' }],
    ['url', { url: 'http://127.0.0.1:9090/api/v1/query' }],
    ['url', { url: undefined }],
    ['query', { query: 'sum(rate(x[1m]))' }],
    ['query', { query: 'x{topic=~%s}' }],
    ['query', { query: undefined }],
    ['topicLabel', { topicLabel: 'kafka-topic' }],
    ['partitionLabel', { partitionLabel: '1p' }],
    ['partitionLabel', { topicLabel: 'x', partitionLabel: 'x' }],
    ['authorization', { authorization: '' }],
    ['authorization', { authorization: 'Bearer a\r\nX-Evil: 1' }],
    ['timeoutMs', { timeoutMs: 0 }],
    ['timeoutMs', { timeoutMs: 1.5 }],
    ['maxAgeMs', { maxAgeMs: -1 }],
    ['logger', { logger: console.log }],
    ['registry', { registry: {} }],
    ['quey', { quey: 'x' }],
  ])('names the bad key %s in a ConfigError', (key, options) => {
    const err = configErrorOf({ ...base, ...options });
    expect(err.code).toBe(ErrorCodes.config);
    expect(err.message).toContain(key);
  });

  it('never echoes the authorization value or URL credentials in a config error', () => {
    const secret = 'Bearer s3cr3t-token\n';
    const err = configErrorOf({ ...base, url: 'http://user:hunter2pw@127.0.0.1', authorization: secret });
    const strings = reachableStrings(err);
    expect(strings.some((s) => s.includes('s3cr3t-token') || s.includes('hunter2pw'))).toBe(false);
  });
});
