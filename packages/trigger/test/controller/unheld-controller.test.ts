import { Registry } from 'prom-client';
import type { Cluster } from 'kafkajs';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { createTriggerController, type TriggerController, type TriggerControllerOptions } from '@load-aware/trigger';
import { metadataAnswer, recordingLogger } from '@load-aware/test-support';
import { description, fakeConsumer, type FakeMember } from '../fakes';

/**
 * The coordinator's look for subscribed partitions no member holds, through a real assigner whose
 * consumer cluster is a fake: the broker lists what `sizes` says, DescribeGroups what `members` say.
 */

const tenEach: WeightSource = {
  getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 10 }))),
};
const fourHeld: FakeMember[] = [
  { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1] },
  { memberId: 'b-1', instanceId: 'pod-b', partitions: [2, 3] },
];

async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { values } = (await registry.getSingleMetric(name)?.get()) ?? { values: [] };
  const match = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return match?.value ?? Number.NaN;
}

describe('createTriggerController and subscribed partitions no member holds', () => {
  const controllers: TriggerController[] = [];
  let nowMs = 0;
  beforeEach(() => {
    nowMs = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => nowMs);
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    jest.restoreAllMocks();
  });

  function setup(options: TriggerControllerOptions = {}) {
    const state = { sizes: { t: 6 } as Record<string, number>, members: fourHeld, coordinatorFails: false };
    const registry = new Registry();
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a', weights: tenEach });
    const cluster = {
      refreshMetadataIfNecessary: () => Promise.resolve(),
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      findGroupCoordinator: () =>
        state.coordinatorFails
          ? Promise.reject(new Error('coordinator not available'))
          : Promise.resolve({ metadata: (topics: string[]) => metadataAnswer(state.sizes, topics) }),
    };
    assigner({ cluster: cluster as unknown as Cluster, groupId: 'g', logger: undefined as never }).protocol({
      topics: ['t'],
    });
    const consumer = fakeConsumer(() => Promise.resolve(description('g', state.members)));
    const controller = createTriggerController(
      { target: assigner.triggerTarget(consumer) },
      { checkIntervalMs: 3_600_000, unheldRetryMs: 60_000, logger, registry, ...options },
    );
    controllers.push(controller);
    const join = (): void => {
      consumer.emit('GROUP_JOIN', { memberId: 'a-1', groupId: 'g', isLeader: false, leaderId: 'b-1' });
    };
    join();
    return { state, controller, assigner, cluster, registry, logger, join };
  }

  it('forces a rebalance at once, naming the partitions, without consulting the trigger', async () => {
    const { controller, assigner, cluster, registry, logger } = setup();
    expect(await controller.checkNow()).toEqual({ outcome: 'unheld_partitions', evaluation: undefined });
    expect(assigner.epochOf('g')).toBe(1);
    await expect(cluster.refreshMetadataIfNecessary()).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    expect(logger.messages('info')).toContain(
      'rebalance forced: 2 subscribed partition(s) held by no member: t[4-5]; epoch bumped to 1 and a JoinGroup ' +
        'sent for this member, so the whole group rebalances',
    );
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'unheld_partitions' })).toBe(
      1,
    );
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'balanced' })).toBe(0);
    expect(await metricValue(registry, 'load_aware_trigger_rebalances_initiated_total')).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_unheld_partitions')).toBe(2);
  });

  it('does not force again while it waits, and judges the load meanwhile', async () => {
    const { controller, assigner, logger } = setup();
    await controller.checkNow();
    nowMs += 3000;
    expect((await controller.checkNow()).outcome).toBe('balanced');
    expect(assigner.epochOf('g')).toBe(1);
    expect(logger.messages('debug')).toContain(
      '2 subscribed partition(s) held by no member: t[4-5]; waiting for the forced rebalance (next attempt in 57 s)',
    );
    expect(logger.messages('warn')).toEqual([]);
  });

  it('warns once when a rebalance left them unheld, then retries after unheldRetryMs, doubling', async () => {
    const { controller, assigner, logger, join } = setup();
    await controller.checkNow();
    join(); // the forced rebalance happened, and the leader still left them out
    nowMs += 3000;
    await controller.checkNow();
    nowMs += 3000;
    await controller.checkNow();
    const warned = logger.messages('warn');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(
      /^2 subscribed partition\(s\) held by no member: t\[4-5\] even after the forced rebalance; next attempt in 57 s\. Likely causes: /,
    );
    nowMs = 60_000;
    expect((await controller.checkNow()).outcome).toBe('unheld_partitions');
    expect(assigner.epochOf('g')).toBe(2);
    expect(logger.messages('warn').at(-1)).toBe(
      'rebalance forced again (attempt 2): 2 subscribed partition(s) held by no member: t[4-5]; epoch bumped to 2 ' +
        'and a JoinGroup sent for this member, so the whole group rebalances; next attempt no sooner than 120 s',
    );
    nowMs = 179_000;
    expect((await controller.checkNow()).outcome).toBe('balanced');
    nowMs = 180_000;
    expect((await controller.checkNow()).outcome).toBe('unheld_partitions');
  });

  it('says so once every partition is held again, and publishes 0', async () => {
    const { state, controller, registry, logger } = setup();
    await controller.checkNow();
    state.members = [
      { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1, 4] },
      { memberId: 'b-1', instanceId: 'pod-b', partitions: [2, 3, 5] },
    ];
    expect((await controller.checkNow()).outcome).toBe('balanced');
    expect(logger.messages('info')).toContain('every subscribed partition is held again, after 1 forced rebalance(s)');
    expect(await metricValue(registry, 'load_aware_trigger_unheld_partitions')).toBe(0);
  });

  it('only logs and counts in advise mode', async () => {
    const { controller, assigner, cluster, registry, logger } = setup({ advise: true });
    expect((await controller.checkNow()).outcome).toBe('unheld_partitions');
    expect(assigner.epochOf('g')).toBe(0);
    await expect(cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();
    expect(logger.messages('info')).toContain(
      'advise mode: would force a group rebalance: 2 subscribed partition(s) held by no member: t[4-5]',
    );
    expect(await metricValue(registry, 'load_aware_trigger_advised_rebalances_total')).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_rebalances_initiated_total')).toBe(0);
    // Not every check: the advice backs off like a forced rebalance.
    expect((await controller.checkNow()).outcome).toBe('balanced');
  });

  it('still sees added partitions when another subscribed topic is gone', async () => {
    const { state, controller, logger } = setup();
    state.members = [fourHeld[0]!, { ...fourHeld[1]!, topic: 'gone', partitions: [] }];
    state.sizes = { t: 3 };
    expect((await controller.checkNow()).outcome).toBe('unheld_partitions');
    expect(logger.messages('info').at(-1)).toMatch(
      /^rebalance forced: 1 subscribed partition\(s\) held by no member: t\[2\];/,
    );
    expect(logger.messages('debug')).toContain(
      'subscribed topics the broker did not list: gone; their partitions are not checked',
    );
  });

  it('fails the check when the metadata cannot be read, like any read of the check', async () => {
    const { state, controller, logger } = setup();
    state.coordinatorFails = true;
    expect(await controller.checkNow()).toEqual({ outcome: 'error', evaluation: undefined });
    expect(logger.messages('warn')).toEqual(['trigger check failed: coordinator not available']);
  });
});
