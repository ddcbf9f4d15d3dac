import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import type { Registry } from 'prom-client';
import { sizeGroup, utilizationForLatency } from '@load-aware/assignor';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { produceAtRates, type RateProducer } from './support/offset-rate-producer';
import { useSharedBrokerAdmin } from './support/shared-broker';
import { gaugeValue, settableWeights, startSizedGroup, type SizedGroup } from './support/sized-group';
import type { SizingOptions } from '@load-aware/trigger';
import { waitUntil } from './support/wait';

/**
 * The member capacity derived from busy time on a real group. Two pods of one member consume six
 * partitions, each receiving 2 messages/s from a real producer, and each pod's handler is wrapped
 * by its own busy-time recorder and awaits 80 ms a message. No capacity is stated: the coordinator
 * must derive it from its recorder (1 ÷ the measured seconds per message, ≈ 12.5 events/s) and
 * size the group at it. The weights are an input set to the produced rates (events/s); the
 * broker, the group, the handler's cost and the trigger are real.
 *
 * At 12.5 a member may carry 0.7 × 12.5 = 8.75 events/s: three or four partitions of 2, so the
 * group needs 2 members. Any measured cost between 58 and 117 ms gives 2, so the answer does not
 * hang on timer jitter; the test also checks it is the one `sizeGroup()` gives at the capacity
 * the coordinator published.
 *
 * With a latency SLA of 0.6 s (p99) instead of the fixed target, the target follows from the work a
 * message costs: 0.42 at 80 ms (5.3 events/s a member), so two partitions a member and 3 members.
 * Any cost from 80 to 90 ms keeps it between 4 and 6 events/s, so again the answer does not hang
 * on jitter.
 */

// A group must form, the handler must measure, and the window must fill over several checks.
jest.setTimeout(120_000);

const PARTITIONS = 6;
const RATE = 2;
const COST_MS = 80;
const TARGET_UTILIZATION = 0.7;
const SLA_SECONDS = 0.6;

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: 'capacity-busy-time-int', brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic, closeBeforeCleanup } = useSharedBrokerAdmin(kafka, 'capacity', {
  deleteTopicsAfterAll: true,
});

/** The value of `load_aware_member_capacity` for `group` and `source`, undefined without that series. */
async function capacityGauge(registry: Registry, group: string, source: string): Promise<number | undefined> {
  const metric = registry.getSingleMetric('load_aware_member_capacity');
  if (metric === undefined) return undefined;
  return (await metric.get()).values.find((v) => v.labels['group'] === group && v.labels['source'] === source)?.value;
}

describe('member capacity derived from busy time on a real group', () => {
  let group: SizedGroup | undefined;
  let producer: RateProducer | undefined;
  afterEach(async () => {
    await producer?.stop();
    await group?.close();
    group = undefined;
    producer = undefined;
  });

  /**
   * Two pods of one member, each handler awaiting COST_MS a message under its own busy-time
   * recorder, sized with `sizing` at a derived capacity; resolves once the window of 10 checks
   * has filled with measured messages and a last check ran.
   */
  async function sizedAtMeasuredCapacity(name: string, sizing: SizingOptions) {
    const topic = await createTopic(PARTITIONS);
    const groupId = uniqueName(name);
    const rates = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, perSecond: RATE }));
    producer = produceAtRates(kafka, rates, 110_000);
    const g = (group = await startSizedGroup({
      kafka,
      groupId,
      topic,
      weights: settableWeights(Object.fromEntries(rates.map((r) => [`${topic}:${String(r.partition)}`, RATE]))),
      sizing,
      busyTime: { weightUnits: 'events' },
      membersPerPod: [1, 1],
      serveMetrics: false,
      eachMessage: () => sleep(COST_MS),
    }));
    closeBeforeCleanup(() => g.close());
    await waitForStableGroup(admin, groupId, 2, PARTITIONS);
    const { pod, trigger } = await g.coordinator();
    await waitUntil(
      () => gaugeValue(pod.registry, 'load_aware_desired_members', groupId),
      "the coordinator's first sizing at a derived capacity",
      60_000,
    );
    // Let the window (10 checks of 1 s) fill with measured messages before reading the answer.
    await sleep(12_000);
    await trigger.checkNow();
    const weighted = rates.map((r) => ({ topic, partition: r.partition, weight: RATE }));
    return { pod, groupId, weighted };
  }

  it('sizes the group at 1 ÷ the measured seconds per message when no capacity is stated', async () => {
    const { pod, groupId, weighted } = await sizedAtMeasuredCapacity('capacity-group', {
      targetUtilization: TARGET_UTILIZATION,
    });
    const derived = (await capacityGauge(pod.registry, groupId, 'derived'))!;
    const desiredMembers = await gaugeValue(pod.registry, 'load_aware_desired_members', groupId);
    const totals = pod.busyTime!.totals();
    const secondsPerMessage = totals.busySeconds / totals.messages;
    const trueCapacity = 1000 / COST_MS;
    process.stdout.write(
      `capacity from busy time: derived ${derived.toFixed(2)} events/s a member (true cost ${String(COST_MS)} ms: ` +
        `${trueCapacity.toFixed(2)}); recorder since start ${(secondsPerMessage * 1000).toFixed(2)} ms a message over ` +
        `${String(totals.messages)} messages; desired members ${String(desiredMembers)}\n`,
    );

    expect(await capacityGauge(pod.registry, groupId, 'stated')).toBeUndefined();
    // The handler spends at least its 80 ms; what KafkaJS and the timers add must stay small.
    expect(derived).toBeLessThanOrEqual(trueCapacity * 1.01);
    expect(derived).toBeGreaterThan(trueCapacity * 0.8);
    // The answer is the placement's at the derived capacity, and the true cost's too.
    const at = (memberCapacity: number) =>
      sizeGroup({ partitions: weighted, memberCapacity, targetUtilization: TARGET_UTILIZATION }).desiredMembers;
    expect(desiredMembers).toBe(at(derived));
    expect(desiredMembers).toBe(at(trueCapacity));
    expect(desiredMembers).toBe(2);

    const said = pod.logger.records.find((r) => r.message.startsWith('member capacity: '));
    expect(said?.message).toMatch(/per member at 100%, derived from busy time: \d+(\.\d+)? ms of work a message/);
    expect(said?.fields).toMatchObject({ capacitySource: 'derived', weightUnits: 'events', slots: 1 });
    expect(pod.logger.records.filter((r) => r.level === 'error')).toEqual([]);
  });
  it('sizes for a latency SLA at the target the measured work a message allows', async () => {
    const { pod, groupId, weighted } = await sizedAtMeasuredCapacity('capacity-sla-group', {
      latencySla: { seconds: SLA_SECONDS },
    });
    const derived = (await capacityGauge(pod.registry, groupId, 'derived'))!;
    const target = (await gaugeValue(pod.registry, 'load_aware_target_utilization', groupId))!;
    const desiredMembers = await gaugeValue(pod.registry, 'load_aware_desired_members', groupId);
    process.stdout.write(
      `latency SLA ${String(SLA_SECONDS)} s p99: ${(1000 / derived).toFixed(2)} ms a message measured, target ` +
        `${target.toFixed(3)} of ${derived.toFixed(2)} events/s; desired members ${String(desiredMembers)}\n`,
    );
    // One slot: the capacity is 1 ÷ the work a message cost in the window, and the target follows from it.
    const expected = utilizationForLatency({ slaSeconds: SLA_SECONDS, secondsPerMessage: 1 / derived });
    expect(expected.ok).toBe(true);
    expect(target).toBeCloseTo(expected.ok ? expected.utilization : Number.NaN, 9);
    expect(desiredMembers).toBe(
      sizeGroup({ partitions: weighted, memberCapacity: derived, targetUtilization: target }).desiredMembers,
    );
    expect(desiredMembers).toBe(3);
    const sized = pod.logger.records.filter((r) => r.message.startsWith('group size: '));
    expect(sized.at(-1)?.message).toMatch(/\(the 0\.6 s p99 latency SLA at \d+(\.\d+)? ms a message\)/);
    expect(pod.logger.records.filter((r) => r.level === 'error' || r.level === 'warn').map((r) => r.message)).toEqual(
      [],
    );
  });
});
