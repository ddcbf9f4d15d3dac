import { Kafka, logLevel } from 'kafkajs';
import type { LogRecord } from '@load-aware/test-support';
import { kafkaBrokersFromEnv, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { useSharedBrokerAdmin } from './support/shared-broker';
import { gaugeValue, settableWeights, startSizedGroup, type SizedGroup, type SizedPod } from './support/sized-group';
import { waitUntil } from './support/wait';

/**
 * `load_aware_scale_out_futile` on a real group, both sides. Two pods of one member consume six
 * partitions; partition 0 carries 90 and the others 10 (fixed weights: an input, the broker, the
 * group and the trigger are real). At a member capacity of 100 and the default target of 0.7,
 * a member may carry 70: partition 0 alone is more, so more pods cannot help (gauge 1, one
 * WARN naming it). At 150 a member may carry 105 and the same load is no problem (gauge 0).
 */

// Each case waits for a real group to form and its coordinator to size it.
jest.setTimeout(90_000);

const PARTITIONS = 6;
const WEIGHTS = [90, 10, 10, 10, 10, 10];
const TARGET_UTILIZATION = 0.7;
const FUTILE_WARN = 'scale-out is futile';

const brokers = kafkaBrokersFromEnv();
const kafka = new Kafka({ clientId: 'scale-out-futile-int', brokers, logLevel: logLevel.NOTHING });
const { admin, createTopic, closeBeforeCleanup } = useSharedBrokerAdmin(kafka, 'futile', {
  deleteTopicsAfterAll: true,
});

const futileWarnings = (pod: SizedPod): LogRecord[] =>
  pod.logger.records.filter((r) => r.level === 'warn' && r.message.startsWith(FUTILE_WARN));

describe('load_aware_scale_out_futile on a real group', () => {
  let group: SizedGroup | undefined;
  afterEach(async () => {
    await group?.close();
    group = undefined;
  });

  /** Starts the group at `memberCapacity`, waits for its coordinator's sizing and runs three more checks. */
  async function sizedAt(memberCapacity: number) {
    const topic = await createTopic(PARTITIONS);
    const groupId = uniqueName('futile-group');
    const g = (group = await startSizedGroup({
      kafka,
      groupId,
      topic,
      weights: settableWeights(Object.fromEntries(WEIGHTS.map((w, p) => [`${topic}:${String(p)}`, w]))),
      sizing: { memberCapacity, targetUtilization: TARGET_UTILIZATION },
      membersPerPod: [1, 1],
      serveMetrics: false,
    }));
    closeBeforeCleanup(() => g.close());
    await waitForStableGroup(admin, groupId, 2, PARTITIONS);
    const { pod, trigger } = await g.coordinator();
    const futile = await waitUntil(
      () => gaugeValue(pod.registry, 'load_aware_scale_out_futile', groupId),
      "the coordinator's first sizing",
      30_000,
    );
    // Repeated checks of the same load publish the same answer and log it only once.
    for (let i = 0; i < 3; i++) await trigger.checkNow();
    const gauges = {
      futile: await gaugeValue(pod.registry, 'load_aware_scale_out_futile', groupId),
      desiredMembers: await gaugeValue(pod.registry, 'load_aware_desired_members', groupId),
      desiredInstances: await gaugeValue(pod.registry, 'load_aware_desired_instances', groupId),
    };
    const other = g.pods.find((p) => p !== pod)!;
    return {
      topic,
      pod,
      other,
      firstFutile: futile,
      gauges,
      otherFutile: await gaugeValue(other.registry, 'load_aware_scale_out_futile', groupId),
    };
  }

  it("reports 1 and names the partition when it alone exceeds a member's target load (90 > 0.7 × 100)", async () => {
    const { topic, pod, other, firstFutile, gauges, otherFutile } = await sizedAt(100);
    expect(firstFutile).toBe(1);
    // The desired counts stop where partition 0 is a member's whole load: 90 | 50.
    expect(gauges).toEqual({ futile: 1, desiredMembers: 2, desiredInstances: 2 });
    // Only the coordinator publishes.
    expect(otherFutile).toBeUndefined();
    const warnings = futileWarnings(pod);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain(`${topic}:0 alone exceed(s) one member's target load`);
    expect(warnings[0]!.fields).toMatchObject({
      futilePartitions: [`${topic}:0`],
      futileCount: 1,
      desiredMembers: 2,
      desiredInstances: 2,
      targetUtilization: TARGET_UTILIZATION,
    });
    expect(futileWarnings(other)).toEqual([]);
    process.stdout.write(`scale-out futile: ${warnings[0]!.message}\n`);
  });

  it("reports 0 and warns nothing when every partition fits a member's target load (90 ≤ 0.7 × 150)", async () => {
    const { pod, other, firstFutile, gauges, otherFutile } = await sizedAt(150);
    expect(firstFutile).toBe(0);
    // 140 in all at up to 105 per member: two members, 90 | 50.
    expect(gauges).toEqual({ futile: 0, desiredMembers: 2, desiredInstances: 2 });
    expect(otherFutile).toBeUndefined();
    expect(futileWarnings(pod)).toEqual([]);
    expect(futileWarnings(other)).toEqual([]);
    // The sizing itself was logged, once.
    expect(pod.logger.messages('info').filter((m) => m.startsWith('group size: 2 members'))).toHaveLength(1);
  });
});
