import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { parse } from 'yaml';
import { sizeGroup } from '@load-aware/assignor/internal';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { describeWithServers, waitUntil } from './support/prometheus-process';
import { PROMETHEUS, startPrometheus, type PrometheusServer } from './support/prometheus-server';
import { useSharedBrokerAdmin } from './support/shared-broker';
import { gaugeValue, settableWeights, startSizedGroup, type SizedGroup } from './support/sized-group';

/**
 * The queries of examples/autoscaling/ run, as written there, against a real Prometheus that
 * scrapes real trigger coordinators: two pods of two KafkaJS members each, sizing their group at
 * every check. KEDA's replica count (ceil(answer ÷ threshold)) and the plain HPA's (ceil(answer ÷
 * averageValue) of prometheus-adapter's query) must both come out at the desired instances the
 * coordinator computed; the futile-scale-out alert of the rules file must stay quiet, then go
 * pending once a partition outgrows a member.
 */

// A real group forms, Prometheus starts and scrapes, then the weights change once.
jest.setTimeout(120_000);

const EXAMPLES = join(__dirname, '..', 'examples', 'autoscaling');
const manifest = (name: string): unknown => parse(readFileSync(join(EXAMPLES, name), 'utf8'));

interface ScaledObjectManifest {
  spec: { triggers: Array<{ metadata: { query: string; threshold: string } }> };
}
interface HpaManifest {
  spec: {
    metrics: Array<{
      external: {
        metric: { name: string; selector: { matchLabels: Record<string, string> } };
        target: { averageValue: string };
      };
    }>;
  };
}
interface AdapterConfig {
  externalRules: Array<{ seriesQuery: string; metricsQuery: string }>;
}

const keda = (manifest('keda-scaledobject.yaml') as ScaledObjectManifest).spec.triggers[0]!.metadata;
const hpaMetric = (manifest('hpa.yaml') as HpaManifest).spec.metrics[0]!.external;
const adapterRule = (manifest('prometheus-adapter.yaml') as AdapterConfig).externalRules[0]!;
/** The group the manifests select (`orders`); the test's own group is relabelled to it on scrape. */
const manifestGroup = hpaMetric.metric.selector.matchLabels['group']!;

/**
 * The query prometheus-adapter sends for the HPA's External metric: its rule's `metricsQuery` with
 * `<<.Series>>` the series name of `seriesQuery` and `<<.LabelMatchers>>` the HPA's selector
 * (with `namespaced: false` the adapter adds no namespace matcher).
 */
function adapterQuery(): string {
  const series = adapterRule.seriesQuery.split('{')[0]!;
  const matchers = Object.entries(hpaMetric.metric.selector.matchLabels)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(',');
  return adapterRule.metricsQuery.replaceAll('<<.Series>>', series).replaceAll('<<.LabelMatchers>>', matchers);
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(prometheus: PrometheusServer, promql: string): Promise<Sample[]> {
  const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data?: { resultType: string; result: Sample[] } };
  if (body.status !== 'success' || body.data?.resultType !== 'vector') {
    throw new Error(`query ${promql} answered ${JSON.stringify(body)}`);
  }
  return body.data.result;
}

interface AlertingRule {
  name: string;
  state: string;
  health: string;
  alerts: Array<{ labels: Record<string, string>; state: string }>;
}

async function alertingRules(prometheus: PrometheusServer): Promise<AlertingRule[]> {
  const response = await fetch(`${prometheus.url}/api/v1/rules?type=alert`);
  const body = (await response.json()) as { data: { groups: Array<{ rules: AlertingRule[] }> } };
  return body.data.groups.flatMap((g) => g.rules);
}

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: 'autoscaling-promql-int', brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic, closeBeforeCleanup } = useSharedBrokerAdmin(kafka, 'autoscaling', {
  deleteTopicsAfterAll: true,
});

describeWithServers([PROMETHEUS], 'the autoscaling examples against a real Prometheus and coordinator', () => {
  let group: SizedGroup | undefined;
  let prometheus: PrometheusServer | undefined;
  afterEach(async () => {
    await prometheus?.stop();
    await group?.close();
  });

  it("KEDA's and the HPA's queries answer the coordinator's desired instances, and the futile alert follows the gauge", async () => {
    const PARTITIONS = 8;
    const topic = await createTopic(PARTITIONS);
    const groupId = uniqueName('autoscaling-group');
    const weightsOf = (list: number[]): Record<string, number> =>
      Object.fromEntries(list.map((w, p) => [`${topic}:${String(p)}`, w]));
    const sizing = { memberCapacity: 100, targetUtilization: 0.7 };
    // 290/s over 8 partitions at 70/s per member: 5 members, so 3 pods of 2 members; the group
    // runs 2 such pods. Then partition 0 grows to 90/s, more than a member's 70: futile.
    const even = [60, 50, 40, 40, 30, 30, 20, 20];
    const hot = [90, 50, 40, 40, 30, 30, 20, 20];
    const weights = settableWeights(weightsOf(even));
    const sized = (list: number[]) =>
      sizeGroup({
        partitions: list.map((weight, partition) => ({ topic, partition, weight })),
        ...sizing,
        membersPerInstance: 2,
      });
    expect([sized(even).desiredMembers, sized(even).desiredInstances, sized(even).futile]).toEqual([5, 3, false]);
    expect([sized(hot).desiredMembers, sized(hot).desiredInstances, sized(hot).futile]).toEqual([4, 2, true]);

    const g = (group = await startSizedGroup({
      kafka,
      groupId,
      topic,
      weights,
      sizing,
      membersPerPod: [2, 2],
      serveMetrics: true,
    }));
    closeBeforeCleanup(() => g.close());
    // Started beside the group: its scrape manager takes about 5 s to begin anyway.
    prometheus = await startPrometheus({
      targets: g.pods.map((p) => p.target!),
      metricRelabels: [{ sourceLabel: 'group', regex: groupId, targetLabel: 'group', replacement: manifestGroup }],
      ruleFiles: [join(EXAMPLES, 'prometheus-rules.yaml')],
    });
    const server = prometheus;
    await waitForStableGroup(admin, groupId, 4, PARTITIONS);
    const { pod, trigger } = await g.coordinator();
    const computed = await waitUntil(
      () => gaugeValue(pod.registry, 'load_aware_desired_instances', groupId),
      "the coordinator's first sizing",
      30_000,
    );
    expect(computed).toBe(sized(even).desiredInstances);
    expect(await gaugeValue(pod.registry, 'load_aware_desired_members', groupId)).toBe(sized(even).desiredMembers);
    // Only the coordinator publishes: the other pod's registry has no series for the group.
    const others = g.pods.filter((p) => p !== pod);
    for (const other of others) {
      expect(await gaugeValue(other.registry, 'load_aware_desired_instances', groupId)).toBeUndefined();
    }

    // KEDA: the trigger's query, verbatim; replicas = ceil(answer ÷ threshold).
    const kedaAnswer = await waitUntil(
      async () => {
        const result = await query(server, keda.query);
        return result.length > 0 ? result : undefined;
      },
      `an answer to ${keda.query}`,
      30_000,
      250,
    );
    expect(kedaAnswer).toHaveLength(1);
    const kedaValue = Number(kedaAnswer[0]!.value[1]);
    expect(kedaValue).toBe(computed);
    expect(Math.ceil(kedaValue / Number(keda.threshold))).toBe(3);

    // The HPA: prometheus-adapter's query for the External metric; replicas = ceil(sum ÷ averageValue).
    const adapterAnswer = await query(server, adapterQuery());
    expect(adapterAnswer.map((s) => s.metric)).toEqual([{ group: manifestGroup }]);
    const hpaSum = adapterAnswer.reduce((sum, s) => sum + Number(s.value[1]), 0);
    expect(Math.ceil(hpaSum / Number(hpaMetric.target.averageValue))).toBe(3);

    // The alert of the rules file: loaded, evaluated, quiet while no partition outgrows a member.
    const rule = await waitUntil(
      async () => (await alertingRules(server)).find((r) => r.name === 'LoadAwareScaleOutFutile'),
      'the futile alert rule to load',
      10_000,
    );
    expect(rule).toMatchObject({ health: 'ok', state: 'inactive', alerts: [] });

    // Partition 0 grows past a member's target load: the coordinator's next check says futile,
    // its answer drops to 2 pods of 2 (the hot partition fills a member alone), and both reach
    // Prometheus.
    const hotAt = Date.now();
    weights.set(weightsOf(hot));
    await waitUntil(
      async () => ((await gaugeValue(pod.registry, 'load_aware_scale_out_futile', groupId)) === 1 ? true : undefined),
      'the coordinator to see the futile partition',
      15_000,
    );
    expect(trigger.isCoordinator).toBe(true);
    const hotComputed = await gaugeValue(pod.registry, 'load_aware_desired_instances', groupId);
    expect(hotComputed).toBe(sized(hot).desiredInstances);
    let lastKeda: number | undefined;
    await waitUntil(
      async () => {
        lastKeda = Number((await query(server, keda.query))[0]?.value[1]);
        return lastKeda === hotComputed ? true : undefined;
      },
      `${keda.query} to answer ${String(hotComputed)}`,
      15_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`last answer ${String(lastKeda)}`, { cause: err });
    });
    expect(Math.ceil(lastKeda! / Number(keda.threshold))).toBe(2);
    const alert = await waitUntil(
      async () =>
        (await alertingRules(server))
          .find((r) => r.name === 'LoadAwareScaleOutFutile')
          ?.alerts.find((a) => a.labels['group'] === manifestGroup),
      'the futile alert to go pending',
      15_000,
      250,
    );
    // `for: 15m` in the rules file: pending, not yet firing.
    expect(alert.state).toBe('pending');
    expect(alert.labels).toMatchObject({ alertname: 'LoadAwareScaleOutFutile', severity: 'warning' });
    process.stdout.write(
      `autoscaling promql: coordinator ${String(computed)} instances -> KEDA ${String(kedaValue)} ` +
        `(${String(Math.ceil(kedaValue / Number(keda.threshold)))} replicas), adapter ${String(hpaSum)}; ` +
        `partition 0 at 90/s: ${String(hotComputed)} instances, futile alert pending ` +
        `${String(Date.now() - hotAt)} ms after the change\n`,
    );
  });
});
