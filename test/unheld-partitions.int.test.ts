import { setTimeout as sleep } from 'node:timers/promises';
import { settledCoordinator } from './support/coordinator-gauge';
import { describeGroup, waitForStableGroup } from './support/group';
import { eventually } from './support/wait';
import { createUnheldScenario, type UnheldScenario } from './support/unheld-scenario';

/**
 * Partitions added to a subscribed topic, on a real broker, with the consumers wired as the
 * trigger README shows (KafkaJS defaults: 3 s heartbeats, 5 s fetch waits, 5 min metadataMaxAge)
 * and a 3 s check. The target: every added partition is first consumed at most
 * checkIntervalMs + 5 s after the broker lists it. Without the trigger, nobody consumes them until
 * the leader's next assignment.
 */

jest.setTimeout(180_000);

const BEFORE = 4;
const AFTER = 8;
const ADDED = [4, 5, 6, 7];
const CHECK_MS = 3000;
const TARGET_MS = CHECK_MS + 5000;

/** Waits until every partition of the topic was consumed once: the group is up and reading. */
async function consuming(s: UnheldScenario, partitions: number): Promise<void> {
  const all = Array.from({ length: partitions }, (_, p) => p);
  await eventually(() => s.firstConsumed(all, 0).size === partitions, 'every partition consumed', 60_000);
}

describe('partitions added to a subscribed topic', () => {
  let scenario: UnheldScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  async function addedPartitionsConsumed(clientIds: string[], coordinatorIsLeader: boolean): Promise<void> {
    const s = (scenario = await createUnheldScenario(BEFORE));
    await s.start(clientIds, { trigger: true, checkIntervalMs: CHECK_MS });
    await waitForStableGroup(s.admin, s.groupId, clientIds.length, BEFORE);
    await consuming(s, BEFORE);
    const elected = [...clientIds].sort()[0]!;
    const coordinator = await settledCoordinator(s.instances, elected);
    expect(coordinator.spec.clientId).toBe(elected);
    expect(coordinator.isLeader()).toBe(coordinatorIsLeader);

    const listedAt = await s.addPartitions(AFTER);
    await eventually(
      () => s.firstConsumed(ADDED, listedAt).size === ADDED.length,
      'the added partitions consumed',
      60_000,
    );
    const first = s.firstConsumed(ADDED, listedAt);
    const latencies = ADDED.map((p) => first.get(p)! - listedAt);
    const forced = coordinator.lines('rebalance forced');
    expect(forced).toHaveLength(1);
    expect(forced[0]!.message).toContain(`4 subscribed partition(s) held by no member: ${s.topic}[4-7]`);
    expect(forced[0]!.fields['isLeader']).toBe(coordinatorIsLeader);
    const detectedMs = forced[0]!.at - listedAt;
    process.stdout.write(
      `unheld int (Kafka ${process.env['KAFKA_VERSION_RUNNING'] ?? '?'}, coordinator is leader: ` +
        `${String(coordinatorIsLeader)}): forced ${String(detectedMs)} ms after the broker listed them; ` +
        `first consumed after ${latencies.map(String).join(', ')} ms (target ${String(TARGET_MS)} ms)\n`,
    );
    expect(Math.max(...latencies)).toBeLessThanOrEqual(TARGET_MS);

    // Once held, no more forced rebalances: a few more checks see nothing to do.
    const group = await waitForStableGroup(s.admin, s.groupId, clientIds.length, AFTER);
    expect(group.members.flatMap((m) => m.assigned).sort()).toEqual(
      Array.from({ length: AFTER }, (_, p) => `${s.topic}:${String(p)}`).sort(),
    );
    await sleep(3 * CHECK_MS);
    expect(s.instances.flatMap((i) => i.lines('rebalance forced'))).toHaveLength(1);
    expect(s.instances.flatMap((i) => i.lines('rebalance initiated'))).toEqual([]);
    expect(coordinator.lines('every subscribed partition is held again')).toHaveLength(1);
    expect(s.instances.flatMap((i) => i.events.filter((e) => e.event === 'log' && e.level === 'warn'))).toEqual([]);
  }

  it('are consumed within checkIntervalMs + 5 s with the trigger (coordinator is the leader)', async () => {
    await addedPartitionsConsumed(['unheld-a', 'unheld-b'], true);
  });

  it('are consumed within checkIntervalMs + 5 s with the trigger when the coordinator is not the leader', async () => {
    await addedPartitionsConsumed(['unheld-z', 'unheld-a'], false);
  });

  it('wait for the leader’s next assignment without the trigger: a member joining brings them in', async () => {
    const s = (scenario = await createUnheldScenario(BEFORE));
    await s.start(['plain-a', 'plain-b'], { trigger: false, checkIntervalMs: CHECK_MS });
    await waitForStableGroup(s.admin, s.groupId, 2, BEFORE);
    await consuming(s, BEFORE);

    const listedAt = await s.addPartitions(AFTER);
    // Bounded: well past the trigger's target, far short of KafkaJS's 5 min metadataMaxAge.
    const waitMs = 2.5 * TARGET_MS;
    await sleep(waitMs);
    expect(s.firstConsumed(ADDED, listedAt).size).toBe(0);
    const group = await describeGroup(s.admin, s.groupId);
    expect(group.state).toBe('Stable');
    expect(group.members.flatMap((m) => m.assigned)).toHaveLength(BEFORE);

    // The next assignment (here a member joins) lists them: the leader refreshes before assigning.
    const joinedAt = Date.now();
    await s.start(['plain-c'], { trigger: false, checkIntervalMs: CHECK_MS });
    await eventually(
      () => s.firstConsumed(ADDED, listedAt).size === ADDED.length,
      'the added partitions consumed',
      60_000,
    );
    const first = s.firstConsumed(ADDED, listedAt);
    const afterJoin = Math.max(...ADDED.map((p) => first.get(p)!)) - joinedAt;
    process.stdout.write(
      `unheld int (Kafka ${process.env['KAFKA_VERSION_RUNNING'] ?? '?'}, no trigger): none of ${String(ADDED.length)} ` +
        `added partitions consumed in ${String(waitMs)} ms; all consumed ${String(afterJoin)} ms after a member joined\n`,
    );
    await waitForStableGroup(s.admin, s.groupId, 3, AFTER);
  });

  it('wait for the leader’s own metadata refresh without the trigger (metadataMaxAge, here 10 s)', async () => {
    const maxAgeMs = 10_000;
    const s = (scenario = await createUnheldScenario(BEFORE));
    await s.start(['aged-a', 'aged-b'], { trigger: false, checkIntervalMs: CHECK_MS, metadataMaxAgeMs: maxAgeMs });
    await waitForStableGroup(s.admin, s.groupId, 2, BEFORE);
    await consuming(s, BEFORE);
    const listedAt = await s.addPartitions(AFTER);
    await eventually(
      () => s.firstConsumed(ADDED, listedAt).size === ADDED.length,
      'the added partitions consumed',
      maxAgeMs + 30_000,
    );
    const first = s.firstConsumed(ADDED, listedAt);
    const latencies = ADDED.map((p) => first.get(p)! - listedAt);
    process.stdout.write(
      `unheld int (Kafka ${process.env['KAFKA_VERSION_RUNNING'] ?? '?'}, no trigger, metadataMaxAge ` +
        `${String(maxAgeMs)} ms): first consumed after ${latencies.map(String).join(', ')} ms\n`,
    );
    // Within one refresh period and one rebalance: the leader's refresh finds them and it rejoins.
    expect(Math.max(...latencies)).toBeLessThanOrEqual(maxAgeMs + 10_000);
    await waitForStableGroup(s.admin, s.groupId, 2, AFTER);
  });
});
