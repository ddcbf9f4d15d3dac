import type { TopicPartition, WeightSource } from '@load-aware/assignor';
import {
  createPrometheusWeightSource,
  PrometheusErrorCodes,
  PrometheusQueryError,
  type PrometheusWeightSourceOptions,
} from '@load-aware/weights-prometheus';
import { Registry } from 'prom-client';
import { uniqueName } from './support';
import { startPrometheusExporter, type PrometheusExporter } from './support/prometheus-exporter';
import { describeWithServers, waitUntil } from './support/prometheus-process';
import { startVictoriaMetrics, VICTORIA_METRICS, type VictoriaMetricsServer } from './support/victoria-metrics-server';

const QUERY = 'sum by (topic, partition) (kafka_partition_rate{topic=~"%s"})';
const PASSWORD = 'vm-pa55word-not-for-logs';

function tps(topic: string, ...partitions: number[]): TopicPartition[] {
  return partitions.map((partition) => ({ topic, partition }));
}

describeWithServers([VICTORIA_METRICS], 'Prometheus weight source against a real VictoriaMetrics', () => {
  let exporter: PrometheusExporter;
  let vm: VictoriaMetricsServer | undefined;
  const topic = `${uniqueName('vm')}.events`;
  const lines: string[] = [];
  const logger = {
    debug: (fields: object, message?: string) => lines.push(JSON.stringify({ ...fields, message })),
    info: (fields: object, message?: string) => lines.push(JSON.stringify({ ...fields, message })),
    warn: (fields: object, message?: string) => lines.push(JSON.stringify({ ...fields, message })),
    error: (fields: object, message?: string) => lines.push(JSON.stringify({ ...fields, message })),
  };

  function source(options: Partial<PrometheusWeightSourceOptions> = {}): WeightSource {
    if (vm?.authorization === undefined) throw new Error('VictoriaMetrics did not start');
    return createPrometheusWeightSource({
      url: vm.prometheusUrl,
      query: QUERY,
      authorization: vm.authorization,
      timeoutMs: 5_000,
      logger,
      ...options,
    });
  }

  beforeAll(async () => {
    exporter = await startPrometheusExporter();
    exporter.set('kafka_partition_rate', { topic, partition: '0' }, 250);
    exporter.set('kafka_partition_rate', { topic, partition: '1' }, 2.5);
    exporter.set('kafka_partition_rate', { topic, partition: '2' }, 'NaN');
    exporter.set('kafka_partition_rate', { topic, partition: '3' }, '+Inf');
    exporter.set('kafka_partition_rate', { topic, partition: '0', replica: 'b' }, 50);
    const startedAt = Date.now();
    vm = await startVictoriaMetrics({
      targets: [exporter.target],
      basicAuth: { username: 'load-aware', password: PASSWORD },
    });
    const server = vm;
    await waitUntil(
      async () => {
        await server.flush();
        return (await source().getWeights(tps(topic, 0))).length > 0 ? true : undefined;
      },
      'the first scrape to be queryable',
      30_000,
      200,
    );
    process.stdout.write(`\nVictoriaMetrics first samples after ${String(Date.now() - startedAt)} ms\n`);
  }, 60_000);

  afterAll(async () => {
    await vm?.stop();
    await exporter.close();
  });

  it('reads weights through the /prometheus path prefix with basic auth; NaN, ±Inf and missing are left out', async () => {
    const weights = await source().getWeights(tps(topic, 0, 1, 2, 3, 4));
    expect(weights).toEqual([
      { topic, partition: 0, weight: 300 },
      { topic, partition: 1, weight: 2.5 },
    ]);
  });

  it('rejects with the HTTP status when the credentials are wrong, and leaks neither them nor the right ones', async () => {
    const wrong = `Basic ${Buffer.from('load-aware:wrong-secret-value').toString('base64')}`;
    const registry = new Registry();
    const err: unknown = await source({ authorization: wrong, registry })
      .getWeights(tps(topic, 0))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrometheusQueryError);
    expect((err as PrometheusQueryError).code).toBe(PrometheusErrorCodes.httpStatus);
    expect((err as PrometheusQueryError).status).toBe(401);
    const seen = [
      (err as Error).message,
      (err as Error).stack ?? '',
      JSON.stringify(err),
      ...lines,
      await registry.metrics(),
    ].join('\n');
    for (const secret of [wrong, wrong.slice(6), 'wrong-secret-value', vm?.authorization ?? '', PASSWORD]) {
      expect(seen).not.toContain(secret);
    }
  });

  it('rejects without credentials', async () => {
    if (vm === undefined) throw new Error('VictoriaMetrics did not start');
    const err: unknown = await createPrometheusWeightSource({ url: vm.prometheusUrl, query: QUERY })
      .getWeights(tps(topic, 0))
      .catch((e: unknown) => e);
    expect((err as PrometheusQueryError).code).toBe(PrometheusErrorCodes.httpStatus);
  });
});
