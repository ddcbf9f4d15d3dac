import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Kafka, logLevel, PartitionAssigners, type KafkaConfig } from 'kafkajs';
import pino from 'pino';
import { Registry } from 'prom-client';
import { kafkaJsLogCreator, LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { createTriggerController } from '@load-aware/trigger';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { createTopicsWithLeaders, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { startPrometheusExporter, type PrometheusExporter } from './support/prometheus-exporter';
import { describeWithServers, waitUntil } from './support/prometheus-process';
import { startSecureKafka, type SecureKafka } from './support/reliability-secure-kafka';
import { authenticatedFirst, socketSpy } from './support/reliability-socket-spy';
import { startVictoriaMetrics, VICTORIA_METRICS, type VictoriaMetricsServer } from './support/victoria-metrics-server';
import { waitForEveryWeight } from './support/wait';

/**
 * Security on a real broker that only lets SASL/PLAIN over TLS in (SASL_SSL listener, self-signed
 * certificate trusted through `ssl.ca`), and a real VictoriaMetrics behind basic auth:
 *
 * - the user's KafkaJS `ssl` and `sasl` settings reach every client the library creates (the
 *   offset-rate sampler's private cluster, the trigger's DescribeGroups through the consumer):
 *   every connection goes through the user's socket factory with the user's `ssl` options and
 *   authenticates before its first other request, and the broker itself refuses clients without;
 * - the SASL password and the Prometheus Authorization value (right and wrong ones) appear in no
 *   log line (the library's and KafkaJS's own through the pino bridge, at trace level), no error
 *   (message, stack, cause chain, properties) and no metric, also when authentication fails.
 */

const PASSWORD = 'alice-S3cr3t-pw-9f2c';
const WRONG_PASSWORD = 'alice-wrong-pw-77ab';
const VM_PASSWORD = 'vm-Pa55-word-41e0';
const PARTITIONS = 4;

jest.setTimeout(150_000);

/** Everything pino writes, at every level. */
function capture(): { logger: pino.Logger; text: () => string } {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (chunk: string) => lines.push(chunk) });
  return { logger, text: () => lines.join('') };
}

/** Every form a secret could leak in: itself, and its base64 forms in Basic and SASL/PLAIN. */
function forms(secret: string, user: string): string[] {
  return [
    secret,
    Buffer.from(`${user}:${secret}`).toString('base64'),
    Buffer.from(`\0${user}\0${secret}`).toString('base64'),
    Buffer.from(secret).toString('base64'),
  ];
}

/** Counter value of `name` with `labels` on `registry` (0 when absent). */
async function counter(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

describeWithServers([VICTORIA_METRICS], 'secrets and the user’s TLS/SASL settings', () => {
  let secure: SecureKafka | undefined;
  let exporter: PrometheusExporter | undefined;
  let vm: VictoriaMetricsServer | undefined;
  const topic = uniqueName('secure');
  const stops: Array<() => Promise<unknown>> = [];
  const errors: unknown[] = [];

  beforeAll(async () => {
    secure = await startSecureKafka({ alice: PASSWORD });
    exporter = await startPrometheusExporter();
    for (let p = 0; p < PARTITIONS; p++) exporter.set('kafka_partition_rate', { topic, partition: String(p) }, 10 + p);
    vm = await startVictoriaMetrics({
      targets: [exporter.target],
      basicAuth: { username: 'reader', password: VM_PASSWORD },
    });
  }, 150_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await vm?.stop();
    await exporter?.close();
    await secure?.stop();
  }, 120_000);

  const userConfig = (overrides: Partial<KafkaConfig> = {}): KafkaConfig => ({
    clientId: 'secure-app',
    brokers: secure!.secureBrokers,
    ssl: { ca: [secure!.ca], servername: secure!.servername },
    sasl: { mechanism: 'plain', username: 'alice', password: PASSWORD },
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1000 },
    ...overrides,
  });

  it('every client the library creates uses the user’s TLS and SASL settings, and no secret leaks', async () => {
    const spy = socketSpy();
    const { logger, text } = capture();
    const config = userConfig({
      socketFactory: spy.factory,
      logLevel: logLevel.DEBUG,
      logCreator: kafkaJsLogCreator(logger),
    });
    const kafka = new Kafka(config);
    const admin = kafka.admin();
    await admin.connect();
    stops.push(() => admin.disconnect());
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    const producer = kafka.producer();
    await producer.connect();
    stops.push(() => producer.disconnect());
    await producer.send({
      topic,
      messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % PARTITIONS, value: String(i) })),
    });

    const registry = new Registry();
    const before = spy.sockets.length;
    const weights: OffsetRateWeightSource = createOffsetRateWeightSource({
      kafka,
      rateIntervalMs: 4000,
      sampleIntervalMs: 1000,
      logger,
      registry,
    }).start();
    stops.push(() => weights.stop());
    const assigner = LoadAwareAssigner({ weights, instanceId: 'secure-a', logger, registry });
    const groupId = uniqueName('secure-group');
    await startGroupConsumer(kafka, {
      groupId,
      topic,
      partitionAssigners: [assigner, PartitionAssigners.roundRobin],
      created: (consumer) => {
        const trigger = createTriggerController(
          { target: assigner.triggerTarget(consumer) },
          { checkIntervalMs: 500, advise: true, logger, registry },
        );
        stops.push(() => consumer.disconnect());
        stops.push(() => trigger.stop());
      },
    });
    await waitForStableGroup(admin, groupId, 1, PARTITIONS);
    // The sampler read end offsets through its own connections; the trigger described the group.
    await waitForEveryWeight(
      weights,
      topic,
      PARTITIONS,
      'the sampler to have measured every partition (two samples through its own connections)',
      250,
    );
    await waitUntil(
      async () =>
        (await counter(registry, 'load_aware_trigger_evaluations_total', { outcome: 'balanced' })) +
          (await counter(registry, 'load_aware_trigger_evaluations_total', { outcome: 'weights_unknown' })) >
        0
          ? true
          : undefined,
      'the trigger to have judged the group',
      30_000,
      250,
    );
    expect(await counter(registry, 'load_aware_offset_rate_sample_errors_total')).toBe(0);
    expect(await counter(registry, 'load_aware_trigger_evaluations_total', { outcome: 'error' })).toBe(0);

    // Every connection went through the user's factory, with the user's ssl, and authenticated first.
    const opened = spy.sockets.length;
    expect(opened - before).toBeGreaterThan(0); // the sampler's own connections
    for (const socket of spy.sockets) {
      expect(socket.ssl).toEqual(config.ssl);
      if (socket.apiKeys.length > 1) expect(authenticatedFirst(socket)).toBe(true);
    }

    // The broker refuses the same clients without SASL, or with the wrong password: settings matter.
    const failing: Array<[string, KafkaConfig]> = [
      [
        'no SASL',
        userConfig({ sasl: undefined as never, logCreator: kafkaJsLogCreator(logger), logLevel: logLevel.DEBUG }),
      ],
      [
        'wrong password',
        userConfig({
          sasl: { mechanism: 'plain', username: 'alice', password: WRONG_PASSWORD },
          logCreator: kafkaJsLogCreator(logger),
          logLevel: logLevel.DEBUG,
        }),
      ],
    ];
    const refusals: string[] = [];
    for (const [name, failingConfig] of failing) {
      const failingRegistry = new Registry();
      const source = createOffsetRateWeightSource({
        kafka: new Kafka(failingConfig),
        rateIntervalMs: 4000,
        sampleIntervalMs: 1000,
        sampleTimeoutMs: 3000,
        logger,
        registry: failingRegistry,
      }).start();
      await source.getWeights([{ topic, partition: 0 }]);
      await waitUntil(
        async () =>
          (await counter(failingRegistry, 'load_aware_offset_rate_sample_errors_total', { scope: 'all' })) > 0
            ? true
            : undefined,
        `a failed sample (${name})`,
        30_000,
        250,
      );
      await source.stop();
      refusals.push(`${name}: refused`);
      // A direct admin with the failing settings: its error is what a user would log.
      const failingAdmin = new Kafka({ ...failingConfig, logCreator: kafkaJsLogCreator(logger) }).admin();
      errors.push(
        await failingAdmin.connect().then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      await failingAdmin.disconnect().catch(() => undefined);
    }

    const everything = [
      text(),
      await registry.metrics(),
      ...errors.map((e) => inspect(e, { depth: 10, showHidden: true })),
    ].join('\n');
    for (const secret of [...forms(PASSWORD, 'alice'), ...forms(WRONG_PASSWORD, 'alice')]) {
      expect(everything).not.toContain(secret);
    }
    process.stdout.write(
      `security (Kafka): ${String(opened)} connections through the user's socket factory, all with the user's ssl ` +
        `(${String(opened - before)} opened by the offset-rate sampler), ${String(spy.sockets.filter(authenticatedFirst).length)} ` +
        `authenticated before any other request; ${refusals.join(', ')}; ${String(everything.length)} characters of ` +
        `logs (library + KafkaJS at DEBUG), errors and metrics contain no form of either password\n`,
    );
  });

  it('the Prometheus Authorization value, right or wrong, appears in no log, error or metric', async () => {
    const { logger, text } = capture();
    const right = vm!.authorization!;
    const wrong = `Basic ${Buffer.from('reader:not-the-password-5c1').toString('base64')}`;
    // A server that echoes the header it got, as some proxies do in their error pages.
    const echo: Server = createServer((req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`bad credentials: ${req.headers.authorization ?? ''}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise((resolve) => echo.close(resolve)));
    const echoUrl = `http://127.0.0.1:${String((echo.address() as AddressInfo).port)}`;
    const query = 'kafka_partition_rate{topic=~"%s"}';
    const all = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition }));
    await waitUntil(
      async () => {
        await vm!.flush();
        const w = await createPrometheusWeightSource({
          url: vm!.prometheusUrl,
          query,
          authorization: right,
        }).getWeights(all);
        return w.length === PARTITIONS ? true : undefined;
      },
      'VictoriaMetrics to serve the exporter',
      30_000,
      250,
    );

    const kafka = new Kafka(userConfig({ logLevel: logLevel.DEBUG, logCreator: kafkaJsLogCreator(logger) }));
    const admin = kafka.admin();
    await admin.connect();
    stops.push(() => admin.disconnect());
    const registry = new Registry();
    const sources: Array<[string, WeightSource]> = [
      [
        'right',
        createPrometheusWeightSource({ url: vm!.prometheusUrl, query, authorization: right, logger, registry }),
      ],
      [
        'wrong',
        createPrometheusWeightSource({ url: vm!.prometheusUrl, query, authorization: wrong, logger, registry }),
      ],
      ['echoed', createPrometheusWeightSource({ url: echoUrl, query, authorization: right, logger, registry })],
    ];
    const outcomes: string[] = [];
    for (const [name, weights] of sources) {
      errors.push(
        await weights.getWeights(all).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      const groupId = uniqueName(`secure-prom-${name}`);
      await startGroupConsumer(kafka, {
        groupId,
        topic,
        partitionAssigners: [
          LoadAwareAssigner({ weights, weightsTimeoutMs: 3000, logger, registry }),
          PartitionAssigners.roundRobin,
        ],
        created: (consumer) => stops.push(() => consumer.disconnect()),
      });
      await waitForStableGroup(admin, groupId, 1, PARTITIONS);
      const fallback = await counter(registry, 'load_aware_assignments_total', { group: groupId, result: 'fallback' });
      outcomes.push(`${name} -> ${fallback > 0 ? 'fallback' : 'load-aware'}`);
      expect(fallback > 0).toBe(name !== 'right');
    }
    const everything = [
      text(),
      await registry.metrics(),
      ...errors.map((e) => inspect(e, { depth: 10, showHidden: true })),
      ...errors.map((e) => JSON.stringify(e)),
    ].join('\n');
    for (const secret of [
      right,
      wrong,
      right.slice(6),
      wrong.slice(6),
      VM_PASSWORD,
      'not-the-password-5c1',
      ...forms(PASSWORD, 'alice'),
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect(text()).toContain('[REDACTED]'); // the echoed header was there, and was scrubbed
    process.stdout.write(
      `security (Prometheus): ${outcomes.join(', ')}; ${String(everything.length)} characters of logs, errors and ` +
        `metrics contain neither Authorization value, their base64 credentials nor the password\n`,
    );
  });
});
