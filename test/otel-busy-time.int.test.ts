/**
 * Issue 43: busy time without wrapping handlers. One consumer process runs with OpenTelemetry's
 * KafkaJS instrumentation and @load-aware/busy-time's wrapper on the same handler, whose messages
 * cost a known awaited time on partitions loaded far apart; the producer here keeps each
 * partition's rate steady. Both measures must agree within 10% per partition with meaningful load:
 *
 * - in-process: @load-aware/weights-otel's MetricReader against the recorder's counter, over the
 *   same window in the same process (fixtures/otel-instance.ts);
 * - through Prometheus: `otelPrometheusQuery()` over the SDK's Prometheus exporter against the
 *   busy-time counter's documented query, both scraped by a real Prometheus and read by
 *   @load-aware/weights-prometheus.
 *
 * The instrumentation must patch KafkaJS before the consumer's code requires it, which a jest
 * worker's module registry would get in the way of: the consumer is a plain node child process.
 */
import { Kafka, logLevel } from 'kafkajs';
import type { PartitionWeight, TopicPartition } from '@load-aware/assignor';
import { otelPrometheusQuery } from '@load-aware/weights-otel';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import type { OtelInstanceEvent, OtelInstanceSpec } from './fixtures/otel-instance';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { startFixtureProcess, type FixtureProcess } from './support/fixture-process';
import { findFreePorts } from './support/free-ports';
import { produceAtRates, type RateProducer } from './support/offset-rate-producer';
import { describeWithServers, waitUntil } from './support/prometheus-process';
import { PROMETHEUS, startPrometheus, type PrometheusServer } from './support/prometheus-server';

/** Per partition: messages per second and awaited ms per message. Busy s/s = rate × cost. */
const LOAD = [
  { perSecond: 30, costMs: 10 }, // 0.30
  { perSecond: 10, costMs: 20 }, // 0.20
  { perSecond: 20, costMs: 3 }, // 0.06
  { perSecond: 5, costMs: 10 }, // 0.05
  { perSecond: 2, costMs: 5 }, // 0.01: light, reported but not held to 10%
  { perSecond: 0, costMs: 5 }, // idle: no handler call, so unknown to the OTel source
] as const;
/** Busy seconds per second below which a partition's ratio is reported, not checked. */
const MEANINGFUL = 0.02;
const WINDOW_MS = 20_000;
const WINDOW = '20s';
/** Steady load before the measured window, so both windows see the same rates. */
const WARM_UP_MS = 8_000;
const TOLERANCE = 0.1;

type Ratios = Record<string, { busy: number; otel: number | undefined; ratio: number | undefined }>;

function ratios(busy: Record<string, number>, otel: Record<string, number>): Ratios {
  return Object.fromEntries(
    LOAD.map((_, p) => {
      const b = busy[String(p)] ?? 0;
      const o = otel[String(p)];
      return [String(p), { busy: b, otel: o, ratio: o === undefined || b === 0 ? undefined : o / b }];
    }),
  );
}

function format(title: string, table: Ratios): string {
  const rows = Object.entries(table).map(
    ([p, r]) =>
      `  p${p}: busy-time ${r.busy.toFixed(4)}  otel ${r.otel === undefined ? '—' : r.otel.toFixed(4)}  ` +
      `ratio ${r.ratio === undefined ? '—' : r.ratio.toFixed(3)}`,
  );
  return `${title}\n${rows.join('\n')}\n`;
}

function expectAgreement(table: Ratios): void {
  for (const [p, r] of Object.entries(table)) {
    if (r.busy < MEANINGFUL) continue;
    // Named, so a failure says which partition.
    expect({ partition: p, withinTolerance: Math.abs((r.ratio ?? 0) - 1) <= TOLERANCE }).toEqual({
      partition: p,
      withinTolerance: true,
    });
  }
}

const weightsByPartition = (weights: ReadonlyArray<PartitionWeight>): Record<string, number> =>
  Object.fromEntries(weights.map((w) => [String(w.partition), w.weight]));

describeWithServers([PROMETHEUS], 'busy time from OpenTelemetry on a real broker', () => {
  const brokers = kafkaBrokersFromEnv();
  const topic = uniqueName('otel');
  let prometheus: PrometheusServer | undefined;
  let instance: FixtureProcess<OtelInstanceEvent> | undefined;
  let producer: RateProducer | undefined;

  afterAll(async () => {
    await producer?.stop();
    await instance?.stop();
    await prometheus?.stop();
  });

  it('agrees with the busy-time recorder within 10% per partition, in-process and through Prometheus', async () => {
    const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await createTopicsWithLeaders(admin, [{ topic, numPartitions: LOAD.length, replicationFactor: 1 }]);
    } finally {
      await admin.disconnect();
    }

    const [exporterPort, busyPort] = await findFreePorts(2);
    prometheus = await startPrometheus({
      targets: [`127.0.0.1:${String(exporterPort)}`, `127.0.0.1:${String(busyPort)}`],
    });
    const spec: OtelInstanceSpec = {
      brokers,
      groupId: uniqueName('otel-group'),
      topic,
      costsMs: LOAD.map((l) => l.costMs),
      windowMs: WINDOW_MS,
      sampleIntervalMs: 1_000,
      exporterPort: exporterPort!,
      busyPort: busyPort!,
      lifetimeMs: 150_000,
    };
    instance = startFixtureProcess<OtelInstanceEvent>({ fixture: 'otel-instance', spec, name: 'otel-instance' });
    await instance.waitFor((events) => events.some((e) => e.event === 'ready'), 'the consumer to join', 60_000);
    // The instrumentation really patched the KafkaJS the consumer runs.
    expect(instance.last((e) => (e.event === 'ready' ? e.patched : undefined), false)).toBe(true);

    producer = produceAtRates(
      kafka,
      LOAD.flatMap((l, partition) => (l.perSecond > 0 ? [{ topic, partition, perSecond: l.perSecond }] : [])),
      WARM_UP_MS + WINDOW_MS + 30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));

    // In-process: the OTel source's window against the recorder's counter over the same span.
    instance.send('measure');
    await instance.waitFor((events) => events.some((e) => e.event === 'measured'), 'the measurement', 60_000);
    const measured = instance.events.find((e) => e.event === 'measured');
    if (measured?.event !== 'measured') throw new Error('no measurement');
    const inProcess = ratios(measured.busy, measured.otel);
    process.stdout.write(format(`in-process, ${String(Math.round(measured.spanMs))} ms window:`, inProcess));

    // Through Prometheus, at one evaluation time: the OTel template and the busy-time query.
    const url = prometheus.url;
    const requested: TopicPartition[] = LOAD.map((_, partition) => ({ topic, partition }));
    const otelSource = createPrometheusWeightSource({ url, ...otelPrometheusQuery({ window: WINDOW }) });
    const busySource = createPrometheusWeightSource({
      url,
      query: `sum by (topic, partition) (rate(load_aware_handler_busy_seconds_total{topic=~"%s"}[${WINDOW}]))`,
    });
    // Both targets need a window of scrapes; the measurement above took one already.
    await waitUntil(
      async () => ((await otelSource.getWeights(requested)).length >= 4 ? true : undefined),
      'OTel series in Prometheus',
      30_000,
      500,
    );
    const [fromOtel, fromBusy] = await Promise.all([
      otelSource.getWeights(requested),
      busySource.getWeights(requested),
    ]);
    const viaPrometheus = ratios(weightsByPartition(fromBusy), weightsByPartition(fromOtel));
    process.stdout.write(format(`through Prometheus, rate(...[${WINDOW}]):`, viaPrometheus));
    await producer.stop();

    // The load is as designed: partition 0 is the busiest, and the measured costs are close to
    // the awaited ones (timer sleeps run a little long).
    expect(inProcess['0']!.busy).toBeGreaterThan(0.25);
    expect(inProcess['0']!.busy).toBeGreaterThan(4 * inProcess['3']!.busy);
    // A partition without a single handler call is unknown to the OTel source, never free: a
    // blend's fallback weighs it.
    expect(inProcess['5']!.otel).toBeUndefined();
    expectAgreement(inProcess);
    expectAgreement(viaPrometheus);
  }, 180_000);
});
