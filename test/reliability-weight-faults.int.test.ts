import { Kafka, logLevel, PartitionAssigners, type Admin, type Consumer } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { Registry } from 'prom-client';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { findFreePorts } from './support/free-ports';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { recordingLogger, type RecordedLog } from './support/offset-rate-helpers';
import { startPrometheusExporter, type PrometheusExporter } from './support/prometheus-exporter';
import { describeWithServers } from './support/prometheus-process';
import { PROMETHEUS, startPrometheus, type PrometheusServer } from './support/prometheus-server';
import { startFaultProxy, type FaultMode, type FaultProxy } from './support/reliability-fault-proxy';
import { waitForEveryWeight } from './support/wait';

/**
 * A weight source that is down, slower than its budget, or answering garbage, on a real broker
 * with a real Prometheus behind a fault-injecting proxy: each time the group still forms and every
 * partition is assigned, the assignment completes within weightsTimeoutMs (+1 s of slack), and the
 * failure is counted in metrics and logged with its code. Garbage *values* (NaN, ±Inf, negative)
 * from the real server give a load-aware assignment on default weights, counted as defaulted.
 */

const PARTITIONS = 6;
const BUDGET_MS = 1000;
const SLACK_MS = 1000;

function outcomeText(e: FaultCase['expect']): string {
  return 'fallback' in e ? `fallback ${e.fallback}` : `load-aware, ${String(e.defaulted)} defaulted`;
}

interface FaultCase {
  readonly name: string;
  /** Where the source sends its queries (the proxy, or a port nobody listens on). */
  readonly url: () => string;
  readonly mode: FaultMode;
  readonly metric: string;
  /** The assignor's outcome: round-robin fallback with this error code, or load-aware on defaults. */
  readonly expect: { fallback: string } | { defaulted: number };
  /** What the source's WARN carries, when it fails. */
  readonly sourceCode?: string;
}

describeWithServers([PROMETHEUS], 'weight source faults on a real broker and a real Prometheus', () => {
  const brokers = kafkaBrokersFromEnv();
  const kafka = new Kafka({ clientId: 'reliability-faults', brokers, logLevel: logLevel.NOTHING });
  const topic = uniqueName('faults');
  let admin: Admin;
  let exporter: PrometheusExporter | undefined;
  let prometheus: PrometheusServer | undefined;
  let proxy: FaultProxy | undefined;
  let closedPort = 0;
  const report: string[] = [];

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    exporter = await startPrometheusExporter();
    const garbageValues = ['NaN', '+Inf', '-Inf', -5, 'NaN', '-Inf'] as const;
    for (let p = 0; p < PARTITIONS; p++) {
      exporter.set('kafka_partition_rate', { topic, partition: String(p) }, p === 0 ? 600 : 100);
      exporter.set('kafka_partition_garbage', { topic, partition: String(p) }, garbageValues[p]!);
    }
    prometheus = await startPrometheus({ targets: [exporter.target] });
    proxy = await startFaultProxy(prometheus.url);
    closedPort = (await findFreePorts(1))[0]!;
    const probe = createPrometheusWeightSource({ url: proxy.url, query: 'kafka_partition_rate{topic=~"%s"}' });
    await waitForEveryWeight(probe, topic, PARTITIONS, 'Prometheus to have scraped the exporter', 200);
  }, 60_000);

  afterAll(async () => {
    process.stdout.write(`${report.join('\n')}\n`);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await proxy?.close();
    await prometheus?.stop();
    await exporter?.close();
  }, 60_000);

  const cases: FaultCase[] = [
    {
      name: 'down (connection refused)',
      url: () => `http://127.0.0.1:${String(closedPort)}`,
      mode: { kind: 'pass' },
      metric: 'kafka_partition_rate',
      expect: { fallback: 'LOAD_AWARE_WEIGHTS_FAILED' },
      sourceCode: 'LOAD_AWARE_PROMETHEUS_REQUEST_FAILED',
    },
    {
      name: 'slower than its budget (answers after 3 s, budget 1 s)',
      url: () => proxy!.url,
      mode: { kind: 'delay', ms: 3000 },
      metric: 'kafka_partition_rate',
      expect: { fallback: 'LOAD_AWARE_WEIGHTS_TIMEOUT' },
    },
    {
      name: 'answering a garbage body',
      url: () => proxy!.url,
      mode: {
        kind: 'garbage',
        status: 200,
        body: '{"status":"success","data":{"resultType":"vector","result":[{"metric":',
      },
      metric: 'kafka_partition_rate',
      expect: { fallback: 'LOAD_AWARE_WEIGHTS_FAILED' },
      sourceCode: 'LOAD_AWARE_PROMETHEUS_MALFORMED_RESPONSE',
    },
    {
      name: 'answering HTTP 503 with an HTML body',
      url: () => proxy!.url,
      mode: { kind: 'garbage', status: 503, body: '<html><body>upstream connect error</body></html>' },
      metric: 'kafka_partition_rate',
      expect: { fallback: 'LOAD_AWARE_WEIGHTS_FAILED' },
      sourceCode: 'LOAD_AWARE_PROMETHEUS_HTTP_STATUS',
    },
    {
      name: 'answering NaN, ±Inf and negative values',
      url: () => proxy!.url,
      mode: { kind: 'pass' },
      metric: 'kafka_partition_garbage',
      expect: { defaulted: PARTITIONS },
    },
  ];

  it.each(cases)(
    '$name: the group forms on defaults within the budget, counted and logged',
    async (c) => {
      proxy!.set(c.mode);
      const logger = recordingLogger();
      const registry = new Registry();
      const weights = createPrometheusWeightSource({
        url: c.url(),
        query: `${c.metric}{topic=~"%s"}`,
        timeoutMs: 10_000,
        logger,
        registry,
      });
      const groupId = uniqueName('faults-group');
      const consumers: Consumer[] = [];
      try {
        for (const instanceId of ['x', 'y']) {
          const assigner = LoadAwareAssigner({ instanceId, weights, weightsTimeoutMs: BUDGET_MS, logger, registry });
          await startGroupConsumer(kafka, {
            groupId,
            topic,
            partitionAssigners: [assigner, PartitionAssigners.roundRobin],
            created: (consumer) => consumers.push(consumer),
          });
        }
        const group = await waitForStableGroup(admin, groupId, 2, PARTITIONS, 60_000);
        expect(group.protocol).toBe('LoadAwareAssigner');
        expect(group.members.every((m) => m.assigned.length > 0)).toBe(true);

        const assignments = logger.records.filter(
          (r) =>
            r.message.startsWith('round-robin fallback assignment') || r.message.startsWith('load-aware assignment:'),
        );
        expect(assignments.length).toBeGreaterThan(0);
        const durations = assignments.map((r) => r.fields['durationMs'] as number);
        for (const d of durations) expect(d).toBeLessThanOrEqual(BUDGET_MS + SLACK_MS);
        const text = await registry.metrics();
        const warn = (prefix: string): RecordedLog | undefined =>
          logger.records.find((r) => r.level === 'warn' && r.message.startsWith(prefix));
        const outcome = c.expect;
        if ('fallback' in outcome) {
          expect(assignments.every((r) => r.message.startsWith('round-robin fallback'))).toBe(true);
          expect(text).toMatch(
            new RegExp(`load_aware_assignments_total\\{group="${groupId}",result="fallback"\\} [1-9]`),
          );
          expect(warn('load-aware assignment failed')?.fields['code']).toBe(outcome.fallback);
        } else {
          expect(assignments.every((r) => r.message.startsWith('load-aware assignment:'))).toBe(true);
          expect(text).toContain(`load_aware_defaulted_weights{group="${groupId}"} ${String(outcome.defaulted)}`);
          expect(assignments.every((r) => r.fields['defaulted'] === outcome.defaulted)).toBe(true);
          expect(
            logger.records.some(
              (r) => r.message.startsWith('unevenness factors') && r.message.includes('no usable weight'),
            ),
          ).toBe(true);
        }
        if (c.sourceCode !== undefined) {
          expect(warn('Prometheus weight query failed')?.fields['code']).toBe(c.sourceCode);
          expect(text).toMatch(
            /load_aware_prometheus_queries_total\{result="(request_failed|malformed_response|http_status)"\} [1-9]/,
          );
        }
        report.push(
          `weight source ${c.name}: ${String(assignments.length)} assignments, durationMs ` +
            `${durations.map((d) => d.toFixed(0)).join('/')} (budget ${String(BUDGET_MS)}), ` +
            outcomeText(c.expect),
        );
      } finally {
        await Promise.allSettled(consumers.map((consumer) => consumer.disconnect()));
        proxy!.set({ kind: 'pass' });
      }
    },
    90_000,
  );
});
