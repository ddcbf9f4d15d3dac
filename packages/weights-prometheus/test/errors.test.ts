import { ERROR_CODES, isLoadAwareError } from '@load-aware/assignor';
import {
  createPrometheusWeightSource,
  InvalidTopicError,
  isPrometheusQueryError,
  PrometheusErrorCodes,
  PrometheusHttpStatusError,
  PrometheusMalformedResponseError,
  PrometheusQueryError,
  PrometheusQueryFailedError,
  PrometheusRequestFailedError,
  PrometheusTimeoutError,
} from '@load-aware/weights-prometheus';
import { recordingLogger, startFakePrometheus } from './fake-prometheus';

describe('the Prometheus error catalogue', () => {
  const classes = [
    new PrometheusTimeoutError('t'),
    new PrometheusRequestFailedError('r'),
    new PrometheusHttpStatusError('h', { status: 503 }),
    new PrometheusQueryFailedError('q'),
    new PrometheusMalformedResponseError('m'),
    new InvalidTopicError('bad topic'),
  ];

  it('takes its codes from the assignor’s one catalogue', () => {
    expect(PrometheusErrorCodes).toBe(ERROR_CODES.prometheus);
  });

  it('has one class per code, each a branded load-aware error', () => {
    expect(classes.map((e) => e.code).sort()).toEqual(Object.values(PrometheusErrorCodes).sort());
    for (const err of classes) expect(isLoadAwareError(err, err.code)).toBe(true);
  });

  it('keeps every query failure a PrometheusQueryError, recognized by brand and code', () => {
    const [invalidTopic, ...queryErrors] = [classes[5], ...classes.slice(0, 5)];
    for (const err of queryErrors) {
      expect(err).toBeInstanceOf(PrometheusQueryError);
      expect(isPrometheusQueryError(err)).toBe(true);
    }
    expect(isPrometheusQueryError(invalidTopic)).toBe(false);
    expect(isPrometheusQueryError(Object.assign(new Error('x'), { code: PrometheusErrorCodes.timeout }))).toBe(false);
    expect(new PrometheusHttpStatusError('h', { status: 503 }).status).toBe(503);
  });

  it('rejects a failed query with the class of its code and logs it under component "prometheus"', async () => {
    const fake = await startFakePrometheus();
    try {
      fake.answer({ status: 503, body: 'down' });
      const logger = recordingLogger();
      const source = createPrometheusWeightSource({ url: fake.url, query: 'x{topic=~"%s"}', logger });
      const err: unknown = await source.getWeights([{ topic: 't', partition: 0 }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PrometheusHttpStatusError);
      expect((err as Error).name).toBe('PrometheusHttpStatusError');
      const warn = logger.lines.find((l) => l.message === 'Prometheus weight query failed');
      expect(warn?.fields).toMatchObject({ component: 'prometheus', code: PrometheusErrorCodes.httpStatus });
    } finally {
      await fake.close();
    }
  });
});
