import { Kafka, logLevel } from 'kafkajs';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { findFreePorts } from './support/free-ports';
import { runExample } from './support/run-example';

describe('examples', () => {
  const brokers = kafkaBrokersFromEnv();
  let topic: string;

  beforeAll(async () => {
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    topic = uniqueName('examples');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 3, replicationFactor: 1 }]);
    await admin.disconnect();
  });

  it.each([
    ['offset-rate-weights.js', 'load-aware assignment'],
    ['custom-weight-source.js', 'load-aware assignment'],
    // No Prometheus listens on this port: the example must fall back to round-robin and keep going.
    ['prometheus-weights.js', 'falling back to round-robin'],
  ])('%s joins a group, assigns, and exits cleanly', async (file, expected) => {
    const { code, output } = await runExample(file, {
      BROKERS: brokers.join(','),
      TOPIC: topic,
      GROUP_ID: uniqueName('example'),
      PROMETHEUS_URL: 'http://127.0.0.1:9',
    });
    expect(output).toContain(expected);
    expect(code).toBe(0);
  });

  it('cross-group.js runs two groups on one shared crossGroup assigner, and both get assigned', async () => {
    const { code, output } = await runExample('cross-group.js', {
      BROKERS: brokers.join(','),
      ORDERS_TOPIC: topic,
      PAYMENTS_TOPIC: topic,
      ORDERS_GROUP: uniqueName('example-orders'),
      PAYMENTS_GROUP: uniqueName('example-payments'),
    });
    // One leader per group, each with its own assignment line.
    expect(output.match(/load-aware assignment/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(code).toBe(0);
  });

  it('busy-time-weights.js weighs with the fallback alone when Prometheus is unreachable', async () => {
    const port = (await findFreePorts(1))[0]!;
    const { code, output } = await runExample('busy-time-weights.js', {
      BROKERS: brokers.join(','),
      TOPIC: topic,
      GROUP_ID: uniqueName('example'),
      // No Prometheus listens here: the blend answers with the offset rates, the group still forms.
      PROMETHEUS_URL: 'http://127.0.0.1:9',
      METRICS_PORT: String(port),
    });
    expect(output).toContain('using the fallback alone');
    expect(output).toContain('load-aware assignment');
    expect(code).toBe(0);
  });

  it('proactive-rebalance.js serves assignor, sampler and trigger metrics on /metrics', async () => {
    const port = (await findFreePorts(1))[0]!;
    const run = runExample('proactive-rebalance.js', {
      BROKERS: brokers.join(','),
      TOPIC: topic,
      GROUP_ID: uniqueName('example'),
      METRICS_PORT: String(port),
      CONSUMERS: '2',
    });
    let metrics = '';
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !metrics.includes('load_aware_assignments_total{')) {
      await new Promise((r) => setTimeout(r, 500));
      metrics = await fetch(`http://127.0.0.1:${String(port)}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
    }
    const { code, output } = await run;
    expect(metrics).toContain('load_aware_assignments_total{');
    expect(metrics).toContain('load_aware_offset_rate_tracked_partitions');
    expect(metrics).toContain('load_aware_trigger_coordinator');
    expect(output).toContain('metrics on /metrics');
    expect(code).toBe(0);
  });
});
