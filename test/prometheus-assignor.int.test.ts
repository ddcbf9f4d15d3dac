import { Kafka, logLevel, PartitionAssigners, type Admin, type Consumer } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { Registry } from 'prom-client';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { startPrometheusExporter, type PrometheusExporter } from './support/prometheus-exporter';
import { describeWithServers } from './support/prometheus-process';
import { PROMETHEUS, startPrometheus, type PrometheusServer } from './support/prometheus-server';
import { waitForEveryWeight } from './support/wait';

const PARTITIONS = 6;
const HOT = 3;

describeWithServers([PROMETHEUS], 'LoadAwareAssigner with weights from a real Prometheus', () => {
  const brokers = kafkaBrokersFromEnv();
  const kafka = new Kafka({ clientId: 'prometheus-int', brokers, logLevel: logLevel.NOTHING });
  const consumers: Consumer[] = [];
  let admin: Admin;
  let exporter: PrometheusExporter | undefined;
  let prometheus: PrometheusServer | undefined;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  }, 60_000);

  afterEach(async () => {
    await Promise.allSettled(consumers.splice(0).map((c) => c.disconnect()));
    await prometheus?.stop();
    await exporter?.close();
  }, 60_000);

  afterAll(async () => {
    await admin.disconnect();
  });

  it('puts the partition Prometheus reports as hot alone on its instance', async () => {
    const topic = `${uniqueName('prom-e2e')}.orders`;
    const groupId = uniqueName('prom-e2e-group');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);

    // One hot partition at 1000 msg/s, five at 10: the hot one outweighs the rest together.
    exporter = await startPrometheusExporter();
    for (let partition = 0; partition < PARTITIONS; partition += 1) {
      exporter.set('kafka_partition_rate', { topic, partition: String(partition) }, partition === HOT ? 1000 : 10);
    }
    prometheus = await startPrometheus({ targets: [exporter.target] });
    const sourceRegistry = new Registry();
    const weights = createPrometheusWeightSource({
      url: prometheus.url,
      query: 'sum by (topic, partition) (kafka_partition_rate{topic=~"%s"})',
      timeoutMs: 3_000,
      registry: sourceRegistry,
    });
    await waitForEveryWeight(weights, topic, PARTITIONS, 'Prometheus to have scraped every partition', 200);

    // Two instances in this process, told apart by their assigners' instance ids; instance a
    // runs two consumers, instance b one.
    const assignorRegistry = new Registry();
    const instanceA = LoadAwareAssigner({ weights, instanceId: 'instance-a', registry: assignorRegistry });
    const instanceB = LoadAwareAssigner({ weights, instanceId: 'instance-b', registry: assignorRegistry });
    for (const assigner of [instanceA, instanceA, instanceB]) {
      await startGroupConsumer(kafka, {
        groupId,
        topic,
        partitionAssigners: [assigner, PartitionAssigners.roundRobin],
        created: (consumer) => consumers.push(consumer),
      });
    }

    const group = await waitForStableGroup(admin, groupId, 3, PARTITIONS);
    expect(group.protocol).toBe('LoadAwareAssigner');
    const hot = `${topic}:${String(HOT)}`;
    const partitionsOf = (instanceId: string): string[] =>
      group.members
        .filter((m) => m.instanceId === instanceId)
        .flatMap((m) => m.assigned)
        .sort();
    const hotInstance = ['instance-a', 'instance-b'].find((id) => partitionsOf(id).includes(hot));
    const coldInstance = hotInstance === 'instance-a' ? 'instance-b' : 'instance-a';
    expect(hotInstance).toBeDefined();
    // Alone on its instance; every other partition on the other instance. By count alone the
    // split would be 3/3.
    expect(partitionsOf(hotInstance!)).toEqual([hot]);
    expect(partitionsOf(coldInstance)).toHaveLength(PARTITIONS - 1);

    // The leader used measured weights for every partition (none defaulted) from successful queries.
    const assignorMetrics = await assignorRegistry.metrics();
    expect(assignorMetrics).toContain(`load_aware_defaulted_weights{group="${groupId}"} 0`);
    expect(assignorMetrics).toMatch(
      new RegExp(`load_aware_assignments_total\\{group="${groupId}",result="load_aware"\\} [1-9]`),
    );
    expect(await sourceRegistry.metrics()).toMatch(/load_aware_prometheus_queries_total\{result="success"\} [1-9]/);
  }, 120_000);
});
