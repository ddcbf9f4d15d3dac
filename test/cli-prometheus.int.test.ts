import { Kafka, logLevel, PartitionAssigners, type Admin, type Consumer } from 'kafkajs';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { runCliBin } from './support/cli-bin';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { startPrometheusExporter, type PrometheusExporter } from './support/prometheus-exporter';
import { describeWithServers } from './support/prometheus-process';
import { PROMETHEUS, startPrometheus, type PrometheusServer } from './support/prometheus-server';
import { waitForEveryWeight } from './support/wait';

/**
 * `load-aware inspect --weights prometheus` against a real Prometheus scraping an exporter: the
 * CLI's query reaches the server with the group's topics substituted, and the report carries the
 * series' values as weights.
 */

const PARTITIONS = 6;
const QUERY = 'sum by (topic, partition) (kafka_partition_rate{topic=~"%s"})';

describeWithServers([PROMETHEUS], 'load-aware CLI with weights from a real Prometheus', () => {
  const kafka = new Kafka({ clientId: 'cli-prometheus', brokers: kafkaBrokersFromEnv(), logLevel: logLevel.NOTHING });
  const consumers: Consumer[] = [];
  const topic = `${uniqueName('cli-prom')}.orders`;
  const groupId = uniqueName('cli-prom-group');
  let admin: Admin | undefined;
  let exporter: PrometheusExporter | undefined;
  let prometheus: PrometheusServer | undefined;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    // Partition p reports 10·(p + 1) events/s.
    exporter = await startPrometheusExporter();
    for (let p = 0; p < PARTITIONS; p++)
      exporter.set('kafka_partition_rate', { topic, partition: String(p) }, 10 * (p + 1));
    prometheus = await startPrometheus({ targets: [exporter.target] });
    const probe = createPrometheusWeightSource({ url: prometheus.url, query: QUERY, timeoutMs: 3_000 });
    await waitForEveryWeight(probe, topic, PARTITIONS, 'Prometheus to have scraped every partition', 200);
    for (let i = 0; i < 2; i++) {
      await startGroupConsumer(kafka, {
        groupId,
        topic,
        partitionAssigners: [PartitionAssigners.roundRobin],
        created: (c) => consumers.push(c),
      });
    }
    await waitForStableGroup(admin, groupId, 2, PARTITIONS);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(consumers.map((c) => c.disconnect()));
    await prometheus?.stop();
    await exporter?.close();
    await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin?.disconnect();
  }, 60_000);

  it("weighs every partition with the server's answer", async () => {
    const run = await runCliBin([
      'inspect',
      '--brokers',
      kafkaBrokersFromEnv().join(','),
      '--group',
      groupId,
      '--json',
      '--weights',
      'prometheus',
      '--prometheus-url',
      prometheus!.url,
      '--query',
      QUERY,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      weights: string;
      weighed: number;
      totalLoad: number;
      partitions: Array<{ partition: string; weight: number }>;
    };
    process.stdout.write(
      `cli inspect with real Prometheus weights: ${report.weights}, total ${String(report.totalLoad)}\n`,
    );
    expect(report.weights).toMatch(/^prometheus \(/);
    expect(report.weighed).toBe(PARTITIONS);
    expect(report.partitions.map((p) => p.weight)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(report.totalLoad).toBe(210);
  });
});
