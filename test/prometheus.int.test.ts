import { performance } from 'node:perf_hooks';
import type { PartitionWeight, TopicPartition, WeightSource } from '@load-aware/assignor';
import {
  createPrometheusWeightSource,
  PrometheusErrorCodes,
  PrometheusQueryError,
  type PrometheusWeightSourceOptions,
} from '@load-aware/weights-prometheus';
import { uniqueName } from './support';
import { startPrometheusExporter, type PrometheusExporter } from './support/prometheus-exporter';
import { describeWithServers, waitUntil } from './support/prometheus-process';
import { PROMETHEUS, startPrometheus, type PrometheusServer } from './support/prometheus-server';

const RATE_QUERY = 'kafka_partition_rate{topic=~"%s"}';

function tps(topic: string, ...partitions: number[]): TopicPartition[] {
  return partitions.map((partition) => ({ topic, partition }));
}

function byPartition(weights: ReadonlyArray<PartitionWeight>): Record<string, number> {
  return Object.fromEntries(weights.map((w) => [`${w.topic}:${String(w.partition)}`, w.weight]));
}

describeWithServers([PROMETHEUS], 'Prometheus weight source against a real Prometheus server', () => {
  let exporter: PrometheusExporter;
  let prometheus: PrometheusServer | undefined;
  // Topic names with dots, so the regex escaping is exercised by the real RE2 engine.
  const topic = `${uniqueName('prom')}.v2`;
  const lookalike = topic.replace(/\.v2$/, 'Xv2');
  const other = uniqueName('prom-other');

  function source(options: Partial<PrometheusWeightSourceOptions> = {}): WeightSource {
    if (prometheus === undefined) throw new Error('Prometheus did not start');
    return createPrometheusWeightSource({ url: prometheus.url, query: RATE_QUERY, timeoutMs: 5_000, ...options });
  }

  beforeAll(async () => {
    exporter = await startPrometheusExporter();
    exporter.set('kafka_partition_rate', { topic, partition: '0' }, 120);
    exporter.set('kafka_partition_rate', { topic, partition: '1' }, 30);
    exporter.set('kafka_partition_rate', { topic, partition: '2' }, 'NaN');
    exporter.set('kafka_partition_rate', { topic, partition: '3' }, '+Inf');
    exporter.set('kafka_partition_rate', { topic, partition: '4' }, '-Inf');
    // Partition 5 has no series at all.
    exporter.set('kafka_partition_rate', { topic: lookalike, partition: '0' }, 1_000_000);
    // Two label sets of one partition (e.g. two producers' rates): the source sums them.
    exporter.set('kafka_partition_rate', { topic: other, partition: '0', producer: 'a' }, 5);
    exporter.set('kafka_partition_rate', { topic: other, partition: '0', producer: 'b' }, 7);
    exporter.set('kafka_consumer_lag', { kafka_topic: topic, kafka_partition: '0' }, 42);
    const startedAt = Date.now();
    prometheus = await startPrometheus({ targets: [exporter.target] });
    const readyMs = Date.now() - startedAt;
    // The first scrape lands a few seconds after startup; wait until it is queryable.
    await waitUntil(
      async () => ((await source().getWeights(tps(topic, 0))).length > 0 ? true : undefined),
      'the first scrape to be queryable',
      30_000,
      200,
    );
    process.stdout.write(
      `\nPrometheus ready in ${String(readyMs)} ms, first samples after ${String(Date.now() - startedAt)} ms\n`,
    );
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await exporter.close();
  });

  it('returns the scraped finite weights and leaves NaN, ±Inf and missing series out', async () => {
    const weights = await source().getWeights(tps(topic, 0, 1, 2, 3, 4, 5));
    expect(byPartition(weights)).toEqual({ [`${topic}:0`]: 120, [`${topic}:1`]: 30 });
  });

  it('sums the series of one partition that differ in another label', async () => {
    expect(await source().getWeights(tps(other, 0))).toEqual([{ topic: other, partition: 0, weight: 12 }]);
  });

  it('escapes dots for RE2: the topic regex does not match a look-alike topic', async () => {
    // Sums every series the matcher selects and labels the sum with the topic: a dot matching any
    // character would add the look-alike's 1,000,000.
    const query = `label_replace(sum by (partition) (kafka_partition_rate{topic=~"%s", partition="0"}), "topic", "${topic}", "", "")`;
    expect(await source({ query }).getWeights(tps(topic, 0))).toEqual([{ topic, partition: 0, weight: 120 }]);
  });

  it('reads topic and partition from configured label names', async () => {
    const weights = await source({
      query: 'kafka_consumer_lag{kafka_topic=~"%s"}',
      topicLabel: 'kafka_topic',
      partitionLabel: 'kafka_partition',
    }).getWeights(tps(topic, 0, 1));
    expect(weights).toEqual([{ topic, partition: 0, weight: 42 }]);
  });

  it('follows changes in the exported values on the next scrape', async () => {
    const s = source();
    exporter.set('kafka_partition_rate', { topic, partition: '1' }, 31);
    await exporter.waitForScrapes(2);
    expect(await s.getWeights(tps(topic, 1))).toEqual([{ topic, partition: 1, weight: 31 }]);
    exporter.set('kafka_partition_rate', { topic, partition: '1' }, 30);
    await exporter.waitForScrapes(2);
  }, 30_000);

  it('rejects a PromQL syntax error with the server’s reason', async () => {
    const err: unknown = await source({ query: 'kafka_partition_rate{topic=~"%s"} +' })
      .getWeights(tps(topic, 0))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrometheusQueryError);
    // Prometheus answers 400 with {"status":"error","errorType":"bad_data",…}.
    expect((err as PrometheusQueryError).code).toBe(PrometheusErrorCodes.httpStatus);
    expect((err as PrometheusQueryError).message).toContain('bad_data');
  });

  it('rejects a query that returns a range vector instead of an instant vector', async () => {
    const err: unknown = await source({ query: 'kafka_partition_rate{topic=~"%s"}[1m]' })
      .getWeights(tps(topic, 0))
      .catch((e: unknown) => e);
    expect((err as PrometheusQueryError).code).toBe(PrometheusErrorCodes.malformedResponse);
    expect((err as PrometheusQueryError).message).toContain('"matrix"');
  });

  it('answers a long topic list in one POST (measured latency is printed)', async () => {
    const s = source();
    const many = [topic, ...Array.from({ length: 500 }, (_, i) => `${uniqueName('absent')}.${String(i)}`)];
    const lists = { '1 topic': tps(topic, 0, 1), '501 topics': many.flatMap((t) => tps(t, 0, 1)) };
    const report: string[] = [];
    for (const [label, partitions] of Object.entries(lists)) {
      const durations: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        const startedAt = performance.now();
        const weights = await s.getWeights(partitions);
        durations.push(performance.now() - startedAt);
        expect(byPartition(weights)).toEqual({ [`${topic}:0`]: 120, [`${topic}:1`]: 30 });
      }
      const sorted = durations.sort((a, b) => a - b);
      const at = (q: number): string => (sorted[Math.floor(q * (sorted.length - 1))] ?? 0).toFixed(1);
      report.push(`${label}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`);
    }
    process.stdout.write(`\nPrometheus getWeights latency (20 queries each) ${report.join('; ')}\n`);
  }, 30_000);
});
