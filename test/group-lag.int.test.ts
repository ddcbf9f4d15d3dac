import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { runCliBin } from './support/cli-bin';
import { waitForStableGroup } from './support/group';
import { adminLags, expectedLag, sumOf } from './support/group-lag';
import { produceAtRates, type RateProducer } from './support/offset-rate-producer';
import { useSharedBrokerAdmin } from './support/shared-broker';
import { gaugeValue, startSizedGroup, type SizedGroup, type SizedPod } from './support/sized-group';
import { waitUntil } from './support/wait';

/**
 * The coordinator's lag gauges on a real group, checked against the offsets a KafkaJS admin reads
 * on its own. Two pods of one member consume four partitions produced at 15 records/s each, so
 * each member receives 30/s; its handler takes 100 ms a message (about 10/s), so the lag grows.
 * Weights come from the real offset-rate source (records/s), the broker, group and trigger are
 * real. At a declared member capacity of 100 the drain estimate is a finite lag ÷ (100 − 30); at
 * the handler's true capacity of 10 the group never drains at this load.
 */

jest.setTimeout(150_000);

const PARTITIONS = 4;
const PER_SECOND = 15;
const HANDLER_MS = 100;
/** The offset-rate estimate, the timing between two reads and commits every 500 ms: within 30%. */
const TOLERANCE = 0.3;

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: 'group-lag-int', brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic, closeBeforeCleanup } = useSharedBrokerAdmin(kafka, 'lag', { deleteTopicsAfterAll: true });

const within = (actual: number | undefined, expected: number, slack = 0): boolean =>
  actual !== undefined && Math.abs(actual - expected) <= TOLERANCE * expected + slack;

const lagLines = (pod: SizedPod): string[] => pod.logger.messages('info').filter((m) => m.startsWith('group lag:'));

describe('the group lag gauges on a real group falling behind', () => {
  let group: SizedGroup | undefined;
  let producer: RateProducer | undefined;
  let source: OffsetRateWeightSource | undefined;
  afterEach(async () => {
    await producer?.stop();
    await group?.close();
    await source?.stop();
    group = undefined;
    producer = undefined;
    source = undefined;
  });

  /** A slow two-pod group on a fresh topic, its coordinator, and production not yet started. */
  async function slowGroup(memberCapacity: number) {
    const topic = await createTopic(PARTITIONS);
    const groupId = uniqueName('lag-group');
    source = createOffsetRateWeightSource({ kafka, rateIntervalMs: 10_000, sampleIntervalMs: 1000 }).start();
    const g = (group = await startSizedGroup({
      kafka,
      groupId,
      topic,
      weights: source,
      sizing: { memberCapacity, targetUtilization: 0.7 },
      membersPerPod: [1, 1],
      serveMetrics: false,
      eachMessage: () => sleep(HANDLER_MS),
      autoCommitInterval: 500,
    }));
    closeBeforeCleanup(() => g.close());
    await waitForStableGroup(admin, groupId, 2, PARTITIONS);
    const { pod, trigger } = await g.coordinator();
    const produce = () => {
      producer = produceAtRates(
        kafka,
        Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, perSecond: PER_SECOND })),
        90_000,
      );
    };
    const gauge = (name: string, labels?: Record<string, string>) =>
      labels === undefined ? gaugeValue(pod.registry, name, groupId) : reasonGauge(pod, name, groupId, labels);
    return { topic, groupId, pod, trigger, produce, gauge };
  }

  it('publishes lag, seconds behind and time to drain that match the offsets an admin reads', async () => {
    const { topic, groupId, pod, trigger, produce, gauge } = await slowGroup(100);

    // Nothing produced, nothing committed: every partition is counted apart, none has seconds.
    await trigger.checkNow();
    expect(await gauge('load_aware_group_lag_messages')).toBe(0);
    expect(await gauge('load_aware_group_lag_unmeasured_partitions', { reason: 'no_commit' })).toBe(PARTITIONS);
    expect(await gauge('load_aware_group_lag_seconds')).toBeUndefined();
    expect(await gauge('load_aware_group_drain_seconds')).toBe(0);
    expect(lagLines(pod)[0]).toContain(`left out: ${String(PARTITIONS)} partition(s) without a committed offset`);

    produce();
    // Until every partition has a commit and some partition is at least 8 s behind.
    await waitUntil(
      async () =>
        (await gauge('load_aware_group_lag_unmeasured_partitions', { reason: 'no_commit' })) === 0 &&
        ((await gauge('load_aware_group_lag_seconds')) ?? 0) >= 8
          ? true
          : undefined,
      'a lag of 8 s behind on some partition',
      60_000,
      500,
    );

    const before = await adminLags(admin, groupId, topic);
    await trigger.checkNow();
    const gauges = {
      messages: await gauge('load_aware_group_lag_messages'),
      seconds: await gauge('load_aware_group_lag_seconds'),
      drain: await gauge('load_aware_group_drain_seconds'),
      never: await gauge('load_aware_group_drain_never'),
      noCommit: await gauge('load_aware_group_lag_unmeasured_partitions', { reason: 'no_commit' }),
      noRate: await gauge('load_aware_group_lag_unmeasured_partitions', { reason: 'no_rate' }),
    };
    const after = await adminLags(admin, groupId, topic);
    // Each member receives 30/s of a declared 100: its lag drains at 70/s. The lag moves between
    // the two admin reads (produced and committed meanwhile): that much slack.
    const expected = await expectedLag(
      admin,
      groupId,
      { before, after },
      { perSecond: PER_SECOND, memberCapacity: 100 },
    );
    const drift = expected.drift;
    process.stdout.write(`group lag: gauges ${JSON.stringify(gauges)}, admin ${JSON.stringify(expected)}\n`);
    expect(within(gauges.messages, expected.messages, drift)).toBe(true);
    expect(within(gauges.seconds, expected.seconds, drift / PER_SECOND)).toBe(true);
    expect(within(gauges.drain, expected.drain, drift / 70)).toBe(true);
    expect(gauges).toMatchObject({ never: 0, noCommit: 0, noRate: 0 });
    // Logged on the first check, when the commits came, and on doublings: not at every check.
    expect(lagLines(pod).length).toBeGreaterThanOrEqual(2);
    expect(lagLines(pod).length).toBeLessThanOrEqual(6);

    // The CLI reads the same group on its own: lag per member, seconds and the drain estimate.
    const args = ['inspect', '--brokers', brokers.join(','), '--group', groupId, '--lookback', '10'];
    const json = await runCliBin([...args, '--member-capacity', '100', '--json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(json.stdout) as CliReport;
    const now = await adminLags(admin, groupId, topic);
    const slack = Math.abs(sumOf(now) - sumOf(after)) + 2 * PER_SECOND;
    for (const m of report.members) {
      const held = m.partitions.map((label) => Number(label.slice(label.lastIndexOf(':') + 1)));
      expect(within(m.lag, sumOf(now, held), slack)).toBe(true);
      const behind = Math.max(...held.map((p) => (now.get(p) ?? 0) / PER_SECOND));
      expect(within(m.lagSeconds, behind, slack / PER_SECOND)).toBe(true);
      expect(within(m.drainSeconds as number, sumOf(now, held) / (100 - m.load), slack / 70)).toBe(true);
    }
    expect(report.lagUnmeasured).toEqual({ no_commit: 0, no_rate: 0, not_read: 0 });
    const text = await runCliBin([...args, '--member-capacity', '100']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/LAG +BEHIND +DRAIN/);
    expect(text.stdout).toMatch(/total lag \d+, \d+(\.\d)?s behind/);
    expect(text.stdout).toMatch(/drains in \d+(\.\d)?s at 100% of the member capacity: slowest member/);
    process.stdout.write(`load-aware inspect (${String(Math.round(text.ms))} ms):\n${text.stdout}\n`);
  });

  it('says the group never drains when a member receives more than its capacity, with no drain figure', async () => {
    const { pod, trigger, produce, gauge } = await slowGroup(10);
    produce();
    await waitUntil(
      async () => ((await gauge('load_aware_group_drain_never')) === 1 ? true : undefined),
      'the coordinator to see a member that never drains',
      60_000,
      500,
    );
    const checksBefore = lagLines(pod).length;
    for (let i = 0; i < 5; i++) await trigger.checkNow();
    expect(await gauge('load_aware_group_drain_seconds')).toBeUndefined();
    expect(await gauge('load_aware_group_drain_never')).toBe(1);
    expect(await gauge('load_aware_group_lag_messages')).toBeGreaterThan(0);
    const never = lagLines(pod).find((m) => m.includes('never drains at this load'));
    expect(never).toMatch(
      /never drains at this load: a member of instance pod-\d receives \d+(\.\d+)?, at or above the member capacity of 10/,
    );
    // The same picture five checks in a row: at most one new line (a doubling of the seconds behind).
    expect(lagLines(pod).length - checksBefore).toBeLessThanOrEqual(1);
    process.stdout.write(`group lag, never: ${never!}\n`);
  });
});

/** The parts of `inspect --json` this test reads. */
interface CliReport {
  members: Array<{
    partitions: string[];
    load: number;
    lag: number;
    lagSeconds: number;
    drainSeconds: number | 'never';
  }>;
  lagUnmeasured: Record<string, number>;
}

async function reasonGauge(
  pod: SizedPod,
  name: string,
  group: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const metric = pod.registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  return (await metric.get()).values.find(
    (v) => v.labels['group'] === group && Object.entries(labels).every(([k, x]) => v.labels[k] === x),
  )?.value;
}
