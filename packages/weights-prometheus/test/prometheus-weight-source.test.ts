import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fetchWeights, type TopicPartition, type WeightSource } from '@load-aware/assignor/internal';
import {
  createPrometheusWeightSource,
  InvalidTopicError,
  MAX_EXCERPT_LENGTH,
  PrometheusErrorCodes,
  PrometheusQueryError,
  type PrometheusWeightSourceOptions,
} from '@load-aware/weights-prometheus/internal';
import { Registry } from 'prom-client';
import {
  reachableStrings,
  recordingLogger,
  series,
  startFakePrometheus,
  vectorBody,
  type FakePrometheus,
} from './fake-prometheus';
import { rejectionOf } from '@load-aware/test-support';

const QUERY = 'sum by (topic, partition) (rate(kafka_messages_in_total{topic=~"%s"}[1m]))';
let fake: FakePrometheus;

beforeEach(async () => {
  fake = await startFakePrometheus();
});
afterEach(async () => {
  await fake.close();
});

function source(options: Partial<PrometheusWeightSourceOptions> = {}): WeightSource {
  return createPrometheusWeightSource({ url: fake.url, query: QUERY, ...options });
}

function tps(topic: string, ...partitions: number[]): TopicPartition[] {
  return partitions.map((partition) => ({ topic, partition }));
}

function queryErrorOf(promise: Promise<unknown>): Promise<PrometheusQueryError> {
  return rejectionOf(promise, PrometheusQueryError);
}

describe('createPrometheusWeightSource', () => {
  describe('the request', () => {
    it('POSTs the rendered template form-encoded to {url}/api/v1/query', async () => {
      await source().getWeights([...tps('payments', 0), ...tps('orders.v2', 0, 1)]);
      expect(fake.requests).toHaveLength(1);
      const [request] = fake.requests;
      expect(request?.method).toBe('POST');
      expect(request?.path).toBe('/api/v1/query');
      expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request?.headers.authorization).toBeUndefined();
      // Sorted and de-duplicated topics; the regex dot escaped for a double-quoted string.
      expect(request?.query).toBe(
        'sum by (topic, partition) (rate(kafka_messages_in_total{topic=~"orders\\\\.v2|payments"}[1m]))',
      );
    });

    it('keeps the URL’s path prefix (VictoriaMetrics: /select/0/prometheus)', async () => {
      await source({ url: `${fake.url}/select/0/prometheus` }).getWeights(tps('t', 0));
      expect(fake.requests[0]?.path).toBe('/select/0/prometheus/api/v1/query');
    });

    it('sends the configured Authorization header', async () => {
      await source({ authorization: 'Bearer tok-123' }).getWeights(tps('t', 0));
      expect(fake.requests[0]?.headers.authorization).toBe('Bearer tok-123');
    });

    it('answers an empty request without querying', async () => {
      expect(await source().getWeights([])).toEqual([]);
      expect(fake.requests).toHaveLength(0);
    });

    it('rejects illegal topic names without sending anything', async () => {
      for (const topic of ['a b', 'x"}) or vector(1', '', 'x'.repeat(250)]) {
        const err: unknown = await source()
          .getWeights(tps(topic, 0))
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidTopicError);
        expect((err as InvalidTopicError).code).toBe(PrometheusErrorCodes.invalidTopic);
      }
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('the answer', () => {
    it('returns finite samples of requested partitions only, in request order; missing, NaN and ±Inf are left out', async () => {
      fake.answer({
        body: vectorBody([
          series('t', 0, '12.5'),
          series('t', 1, 'NaN'),
          series('t', 2, '+Inf'),
          series('t', 3, '-Inf'),
          series('t', 4, '0'),
          series('t', 9, '99'), // not requested
          series('other', 0, '7'), // topic not requested
        ]),
      });
      const weights = await source().getWeights(tps('t', 4, 0, 1, 2, 3, 5));
      expect(weights).toEqual([
        { topic: 't', partition: 4, weight: 0 },
        { topic: 't', partition: 0, weight: 12.5 },
      ]);
    });

    it('reads topic and partition from the configured label names', async () => {
      fake.answer({ body: vectorBody([{ metric: { kafka_topic: 't', kafka_partition: '3' }, value: '4' }]) });
      const weights = await source({ topicLabel: 'kafka_topic', partitionLabel: 'kafka_partition' }).getWeights(
        tps('t', 3),
      );
      expect(weights).toEqual([{ topic: 't', partition: 3, weight: 4 }]);
    });

    it('sums several series of one partition, and leaves it out when any of them is not finite', async () => {
      fake.answer({
        body: vectorBody([
          series('t', 0, '1.5', { instance: 'a' }),
          series('t', 0, '2', { instance: 'b' }),
          series('t', 1, '5', { instance: 'a' }),
          series('t', 1, 'NaN', { instance: 'b' }),
        ]),
      });
      expect(await source().getWeights(tps('t', 0, 1))).toEqual([{ topic: 't', partition: 0, weight: 3.5 }]);
    });

    it('passes negative samples through for the assignor to default', async () => {
      fake.answer({ body: vectorBody([series('t', 0, '-3')]) });
      expect(await source().getWeights(tps('t', 0))).toEqual([{ topic: 't', partition: 0, weight: -3 }]);
    });

    it('ignores series without usable labels and warns when no series has them', async () => {
      const logger = recordingLogger();
      fake.answer({
        body: vectorBody([
          { metric: { topic: 't' }, value: '1' },
          { metric: { topic: 't', partition: 'x' }, value: '1' },
          { metric: { partition: '0' }, value: '1' },
        ]),
      });
      expect(await source({ logger }).getWeights(tps('t', 0))).toEqual([]);
      expect(logger.lines.some((l) => l.level === 'warn' && l.fields['partitionLabel'] === 'partition')).toBe(true);
    });

    it('works through the assignor’s fetchWeights within its time budget', async () => {
      fake.answer({ body: vectorBody([series('t', 0, '10')]) });
      expect(await fetchWeights(source(), tps('t', 0, 1), 2000)).toEqual([{ topic: 't', partition: 0, weight: 10 }]);
    });
  });

  describe('failures', () => {
    it('rejects a non-success status with the server’s error type and message', async () => {
      fake.answer({ body: '{"status":"error","errorType":"bad_data","error":"1:15: parse error: unexpected }"}' });
      const err = await queryErrorOf(source().getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.queryFailed);
      expect(err.message).toContain('bad_data: 1:15: parse error');
    });

    it('rejects a non-2xx answer with its status and a bounded excerpt of the body', async () => {
      fake.answer({ status: 503, body: `Service Unavailable\n\n${'x'.repeat(10_000)}` });
      const err = await queryErrorOf(source().getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.httpStatus);
      expect(err.status).toBe(503);
      expect(err.message).toContain('HTTP 503: Service Unavailable xxx');
      expect(err.bodyExcerpt?.length).toBeLessThanOrEqual(MAX_EXCERPT_LENGTH + 1);
      expect(err.message.length).toBeLessThan(400);
    });

    it('rejects a 4xx JSON error body as an HTTP status error that quotes the body', async () => {
      fake.answer({ status: 400, body: '{"status":"error","errorType":"bad_data","error":"invalid parameter"}' });
      const err = await queryErrorOf(source().getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.httpStatus);
      expect(err.message).toContain('invalid parameter');
    });

    it('does not follow redirects (they would carry the Authorization header elsewhere)', async () => {
      fake.answer({ status: 302, body: '' });
      const err = await queryErrorOf(source().getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.httpStatus);
      expect(err.message).toContain('(empty body)');
      expect(fake.requests).toHaveLength(1);
    });

    it.each([
      ['HTML', '<html>oops</html>'],
      ['a matrix', '{"status":"success","data":{"resultType":"matrix","result":[]}}'],
      ['a non-numeric value', vectorBody([series('t', 0, 'lots')])],
    ])('rejects a 2xx body that is %s as malformed', async (_what, body) => {
      fake.answer({ body });
      const err = await queryErrorOf(source().getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.malformedResponse);
    });

    it('times out when the server does not answer within timeoutMs', async () => {
      fake.answer({ body: vectorBody([]), delayMs: 5_000 });
      const startedAt = Date.now();
      const err = await queryErrorOf(source({ timeoutMs: 200 }).getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.timeout);
      expect(err.message).toContain('timeoutMs=200');
      expect(Date.now() - startedAt).toBeLessThan(1_500);
    });

    it('times out on a server that accepts the connection but never answers', async () => {
      const sockets = new Set<Socket>();
      const silent: TcpServer = createTcpServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = silent.address() as AddressInfo;
        const err = await queryErrorOf(
          source({ url: `http://127.0.0.1:${String(port)}`, timeoutMs: 200 }).getWeights(tps('t', 0)),
        );
        expect(err.code).toBe(PrometheusErrorCodes.timeout);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) =>
          silent.close(() => {
            resolve();
          }),
        );
      }
    });

    it('bounds the whole exchange: a body trickled byte by byte still times out', async () => {
      fake.answer({ body: vectorBody([series('t', 0, '1')]), trickleMs: 20 });
      const startedAt = Date.now();
      const err = await queryErrorOf(source({ timeoutMs: 300 }).getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.timeout);
      expect(Date.now() - startedAt).toBeLessThan(1_500);
    });

    it('rejects when nothing listens, with a plain cause that holds only the failure code and message', async () => {
      const url = fake.url;
      await fake.close();
      const err = await queryErrorOf(createPrometheusWeightSource({ url, query: QUERY }).getWeights(tps('t', 0)));
      expect(err.code).toBe(PrometheusErrorCodes.requestFailed);
      expect(err.message).toContain('ECONNREFUSED');
      expect(err.cause).toBeInstanceOf(Error);
      expect(Object.keys(err.cause as object)).toEqual(['code']);
      fake = await startFakePrometheus(); // for afterEach
    });
  });

  describe('the authorization value', () => {
    const token = 'Bearer s3cr3t-t0ken-value';

    it('appears in no log line, error message, cause chain or metric, whatever fails', async () => {
      const logger = recordingLogger();
      const registry = new Registry();
      const leaks: string[] = [];
      const check = (what: string, value: unknown): void => {
        for (const text of reachableStrings(value)) {
          if (text.includes('s3cr3t-t0ken-value')) leaks.push(`${what}: ${text.slice(0, 200)}`);
        }
      };
      const answers = [
        { status: 401, body: `{"error":"invalid token ${token}"}` }, // a server that echoes the token
        { status: 200, body: `garbage s3cr3t-t0ken-value` },
        { status: 200, body: `{"status":"error","errorType":"auth","error":"bad s3cr3t-t0ken-value"}` },
        { status: 200, body: vectorBody([]), delayMs: 2_000 },
      ];
      for (const answer of answers) {
        fake.answer(answer);
        const err = await queryErrorOf(
          source({ authorization: token, logger, registry, timeoutMs: 200 }).getWeights(tps('t', 0)),
        );
        check(err.code, err);
        expect(fake.requests.at(-1)?.headers.authorization).toBe(token);
      }
      const url = fake.url;
      await fake.close();
      check(
        'refused',
        await queryErrorOf(
          createPrometheusWeightSource({ url, query: QUERY, authorization: token, logger, registry }).getWeights(
            tps('t', 0),
          ),
        ),
      );
      fake = await startFakePrometheus();
      check('logs', logger.lines);
      check('metrics', await registry.metrics());
      expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(5);
      expect(leaks).toEqual([]);
    });

    it('is redacted from a body excerpt, keeping the rest of the excerpt', async () => {
      fake.answer({ status: 403, body: `forbidden for ${token}` });
      const err = await queryErrorOf(source({ authorization: token }).getWeights(tps('t', 0)));
      expect(err.message).toContain('forbidden for [REDACTED]');
    });
  });

  describe('caching and in-flight sharing', () => {
    it('shares one request between concurrent callers for the same topics, even without maxAgeMs', async () => {
      fake.answer({ body: vectorBody([series('t', 0, '1'), series('t', 1, '2')]), delayMs: 100 });
      const s = source();
      const [a, b] = await Promise.all([s.getWeights(tps('t', 0)), s.getWeights(tps('t', 1, 0))]);
      expect(fake.requests).toHaveLength(1);
      expect(a).toEqual([{ topic: 't', partition: 0, weight: 1 }]);
      expect(b).toEqual([
        { topic: 't', partition: 1, weight: 2 },
        { topic: 't', partition: 0, weight: 1 },
      ]);
      await s.getWeights(tps('t', 0));
      expect(fake.requests).toHaveLength(2);
    });

    it('shares a failure with the callers that joined it, then tries again', async () => {
      fake.answer({ status: 500, body: 'boom', delayMs: 50 });
      const s = source({ maxAgeMs: 60_000 });
      const results = await Promise.allSettled([s.getWeights(tps('t', 0)), s.getWeights(tps('t', 0))]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(fake.requests).toHaveLength(1);
      fake.answer({ body: vectorBody([series('t', 0, '1')]) });
      expect(await s.getWeights(tps('t', 0))).toHaveLength(1);
      expect(fake.requests).toHaveLength(2);
    });

    it('reuses an answer for the same topic set for maxAgeMs, then queries again', async () => {
      const registry = new Registry();
      fake.answer({ body: vectorBody([series('a', 0, '1'), series('b', 0, '2')]) });
      const s = source({ maxAgeMs: 300, registry });
      await s.getWeights(tps('a', 0));
      fake.answer({ body: vectorBody([series('a', 0, '5')]) });
      expect(await s.getWeights(tps('a', 0, 1))).toEqual([{ topic: 'a', partition: 0, weight: 1 }]);
      expect(fake.requests).toHaveLength(1);
      // Another topic set is another key.
      await s.getWeights([...tps('a', 0), ...tps('b', 0)]);
      expect(fake.requests).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 350));
      expect(await s.getWeights(tps('a', 0))).toEqual([{ topic: 'a', partition: 0, weight: 5 }]);
      expect(fake.requests).toHaveLength(3);
      const text = await registry.metrics();
      expect(text).toContain('load_aware_prometheus_lookups_total{result="hit"} 1');
      expect(text).toContain('load_aware_prometheus_lookups_total{result="miss"} 3');
    });

    it('keeps a late answer for the next caller: a rebalance never waits twice on a slow server', async () => {
      fake.answer({ body: vectorBody([series('t', 0, '7')]), delayMs: 300 });
      const s = source({ maxAgeMs: 60_000 });
      // The assignor gives up after 50 ms and falls back, but the query runs on and is stored.
      await expect(fetchWeights(s, tps('t', 0), 50)).rejects.toMatchObject({ code: 'LOAD_AWARE_WEIGHTS_TIMEOUT' });
      await new Promise((r) => setTimeout(r, 400));
      const startedAt = Date.now();
      expect(await fetchWeights(s, tps('t', 0), 50)).toEqual([{ topic: 't', partition: 0, weight: 7 }]);
      expect(Date.now() - startedAt).toBeLessThan(50);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe('metrics', () => {
    it('counts queries by result and records their duration; two sources share one registry', async () => {
      const registry = new Registry();
      const one = source({ registry });
      const two = source({ registry });
      fake.answer({ body: vectorBody([]) });
      await one.getWeights(tps('t', 0));
      fake.answer({ status: 502, body: 'bad gateway' });
      await two.getWeights(tps('t', 0)).catch(() => undefined);
      fake.answer({ body: 'nope' });
      await two.getWeights(tps('t', 0)).catch(() => undefined);
      const text = await registry.metrics();
      expect(text).toContain('load_aware_prometheus_queries_total{result="success"} 1');
      expect(text).toContain('load_aware_prometheus_queries_total{result="http_status"} 1');
      expect(text).toContain('load_aware_prometheus_queries_total{result="malformed_response"} 1');
      expect(text).toContain('load_aware_prometheus_query_duration_seconds_count{result="success"} 1');
      // Only the bounded `result` label, never topics or URLs.
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toMatch(/topic=/);
    });
  });
});
