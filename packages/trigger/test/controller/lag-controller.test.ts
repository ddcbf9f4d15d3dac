import { Registry } from 'prom-client';
import type { PartitionProgress, TopicPartition } from '@load-aware/assignor';
import {
  createTriggerController,
  type MembershipEvent,
  type TriggerController,
  type TriggerControllerOptions,
  type TriggerTarget,
} from '@load-aware/trigger';
import { lagChangedMaterially, observeGroup, type LagLine } from '@load-aware/trigger/internal';
import { recordingLogger } from '@load-aware/test-support';
import { description, type FakeMember } from '../fakes';

/**
 * The coordinator's lag gauges and lines through a fake target: DescribeGroups answers `members`,
 * the weights are the rates in `rates` (events/s), `readProgress` the offsets in `offsets`.
 */

const members: FakeMember[] = [
  { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1] },
  { memberId: 'b-1', instanceId: 'pod-b', partitions: [2, 3] },
];

async function gauge(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const { values } = (await registry.getSingleMetric(name)?.get()) ?? { values: [] };
  return values.find((v) => v.labels['group'] === 'g' && Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    ?.value;
}

interface State {
  rates: number[];
  /** [committed, end] per partition; committed -1: none. */
  offsets: Array<[number, number]>;
  /** What readProgress does: answer, reject, or never answer within its timeout. */
  read: 'answer' | 'reject' | 'hang';
  reads: number;
}

describe('createTriggerController: lag and time to drain', () => {
  const controllers: TriggerController[] = [];
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
  });

  function setup(options: TriggerControllerOptions, withReader = true) {
    const state: State = {
      rates: [10, 10, 10, 10],
      offsets: [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ],
      read: 'answer',
      reads: 0,
    };
    const registry = new Registry();
    const logger = recordingLogger();
    const listeners: Array<(e: MembershipEvent) => void> = [];
    const readProgress = (
      _groupId: string,
      partitions: ReadonlyArray<TopicPartition>,
      timeoutMs: number,
    ): Promise<PartitionProgress[]> => {
      state.reads++;
      if (state.read === 'reject') return Promise.reject(Object.assign(new Error('coordinator gone'), { code: 'X' }));
      if (state.read === 'hang') {
        return new Promise((_, reject) => {
          setTimeout(() => {
            reject(new Error(`not read within ${String(timeoutMs)} ms`));
          }, timeoutMs);
        });
      }
      return Promise.resolve(
        partitions.map((p) => {
          const [committed, end] = state.offsets[p.partition]!;
          return { ...p, committed, end };
        }),
      );
    };
    const target: TriggerTarget = {
      assigner: {
        weights: {
          getWeights: (partitions) =>
            Promise.resolve(partitions.map((p) => ({ ...p, weight: state.rates[p.partition]! }))),
        },
        defaultWeight: 1,
        moveTolerance: 0.05,
        maxMovesPerRebalance: undefined,
        bumpEpoch: () => 1,
        startRebalance: () => 1,
        ...(withReader ? { readProgress } : {}),
      },
      describeGroup: () => Promise.resolve(observeGroup(description('g', members))),
      onMembership(listener) {
        listeners.push(listener);
        return () => undefined;
      },
    };
    const controller = createTriggerController(
      { target },
      { checkIntervalMs: 3_600_000, advise: true, logger, registry, ...options },
    );
    controllers.push(controller);
    for (const l of listeners) l({ kind: 'join', groupId: 'g', memberId: 'a-1', isLeader: true });
    const lagLines = () => logger.messages('info').filter((m) => m.startsWith('group lag:'));
    return { state, controller, registry, logger, lagLines };
  }

  it('publishes lag, seconds behind and time to drain, and logs them once until they change materially', async () => {
    const { state, controller, registry, logger, lagLines } = setup({ sizing: { memberCapacity: 30 } });
    // a: 300 + 100 waiting at 10/s each; b: 50 on partition 2, partition 3 never committed.
    state.offsets = [
      [100, 400],
      [900, 1000],
      [950, 1000],
      [-1, 500],
    ];
    expect((await controller.checkNow()).outcome).toBe('balanced');
    expect(await gauge(registry, 'load_aware_group_lag_messages')).toBe(450);
    expect(await gauge(registry, 'load_aware_group_lag_seconds')).toBe(30); // 300 ÷ 10
    // a drains 400 at 30 − 20 = 10/s; b 50 at 10/s.
    expect(await gauge(registry, 'load_aware_group_drain_seconds')).toBe(40);
    expect(await gauge(registry, 'load_aware_group_drain_never')).toBe(0);
    expect(await gauge(registry, 'load_aware_group_lag_unmeasured_partitions', { reason: 'no_commit' })).toBe(1);
    expect(await gauge(registry, 'load_aware_group_lag_unmeasured_partitions', { reason: 'no_rate' })).toBe(0);
    expect(lagLines()).toEqual([
      'group lag: 450 messages, 30 s behind at the current arrival rate; drains in 40 s at a member capacity of 30 ' +
        '(slowest: instance pod-a); left out: 1 partition(s) without a committed offset',
    ]);
    expect(logger.records.find((r) => r.message.startsWith('group lag:'))?.fields).toMatchObject({
      lagMessages: 450,
      lagSeconds: 30,
      drainSeconds: 40,
      memberCapacity: 30,
      slowestInstance: 'pod-a',
      slowestMember: 'a-1',
      noCommitPartitions: 1,
    });

    // Half again behind: not material (30 → 45 s, 40 → 60 s), the gauges follow, the log does not.
    state.offsets[0] = [100, 550];
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_lag_seconds')).toBe(45);
    expect(lagLines()).toHaveLength(1);
    // Doubled since the last line (30 → 60 s): material.
    state.offsets[0] = [100, 700];
    await controller.checkNow();
    expect(lagLines()).toHaveLength(2);
    expect(lagLines()[1]).toMatch(/^group lag: 750 messages, 60 s behind/);
    expect(logger.messages('warn')).toEqual([]);
  });

  it('reports a member receiving at or above its capacity as never draining, without a drain figure', async () => {
    const { state, controller, registry, lagLines } = setup({ sizing: { memberCapacity: 20 } });
    state.offsets[2] = [0, 200];
    state.rates = [10, 10, 15, 5];
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_drain_never')).toBe(1);
    // Absent, never +Inf: the 0/1 gauge says it.
    expect(await gauge(registry, 'load_aware_group_drain_seconds')).toBeUndefined();
    expect(lagLines()).toEqual([
      'group lag: 200 messages, 13 s behind at the current arrival rate; never drains at this load: a member of ' +
        'instance pod-b receives 20, at or above the member capacity of 20',
    ]);
    // Back under capacity: the switch is material, and the figure comes back.
    state.rates = [10, 10, 10, 5];
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_drain_never')).toBe(0);
    expect(await gauge(registry, 'load_aware_group_drain_seconds')).toBe(40); // 200 ÷ (20 − 15)
    expect(lagLines()).toHaveLength(2);
  });

  it('gives no seconds for messages waiting where nothing arrives, and says so', async () => {
    const { state, controller, registry, lagLines } = setup({ lag: true });
    state.rates = [0, 10, 10, 10];
    state.offsets[0] = [0, 70];
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_lag_messages')).toBe(70);
    // The other partitions have no lag: 0 s behind.
    expect(await gauge(registry, 'load_aware_group_lag_seconds')).toBe(0);
    expect(await gauge(registry, 'load_aware_group_lag_unmeasured_partitions', { reason: 'no_rate' })).toBe(1);
    // No sizing: no capacity, no drain gauges at all.
    expect(await gauge(registry, 'load_aware_group_drain_seconds')).toBeUndefined();
    expect(await gauge(registry, 'load_aware_group_drain_never')).toBeUndefined();
    expect(lagLines()[0]).toBe(
      'group lag: 70 messages, 0.0 s behind at the current arrival rate (slowest: instance pod-a); left out: 1 ' +
        'partition(s) with messages waiting and no arrival rate (in the messages, not the seconds)',
    );
  });

  it('is off without sizing unless asked for, and off with sizing when told so', async () => {
    const plain = setup({});
    await plain.controller.checkNow();
    const sizedOnly = setup({ sizing: { memberCapacity: 30 }, lag: false });
    await sizedOnly.controller.checkNow();
    for (const s of [plain, sizedOnly]) {
      expect(s.state.reads).toBe(0);
      expect(await gauge(s.registry, 'load_aware_group_lag_messages')).toBeUndefined();
      expect(s.logger.messages('warn')).toEqual([]);
    }
  });

  it('warns once when the target cannot read progress, and publishes nothing', async () => {
    const { controller, registry, logger } = setup({ sizing: { memberCapacity: 30 } }, false);
    for (let i = 0; i < 3; i++) expect((await controller.checkNow()).outcome).toBe('balanced');
    expect(logger.messages('warn')).toEqual([
      "group lag is not measured: this consumer's trigger target cannot read the group's committed and end offsets " +
        '(readProgress); the lag gauges stay absent',
    ]);
    expect(await gauge(registry, 'load_aware_group_lag_messages')).toBeUndefined();
    // Sizing goes on regardless.
    expect(await gauge(registry, 'load_aware_desired_members')).toBe(2);
  });

  it('removes the gauges while reads fail, warns once per streak, and never fails the check', async () => {
    const { state, controller, registry, logger } = setup({ sizing: { memberCapacity: 30 } });
    state.offsets[0] = [0, 10];
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_lag_messages')).toBe(10);
    state.read = 'reject';
    expect((await controller.checkNow()).outcome).toBe('balanced');
    expect((await controller.checkNow()).outcome).toBe('balanced');
    expect(await gauge(registry, 'load_aware_group_lag_messages')).toBeUndefined();
    expect(
      await gauge(registry, 'load_aware_group_lag_unmeasured_partitions', { reason: 'no_commit' }),
    ).toBeUndefined();
    expect(logger.messages('warn')).toEqual([
      'group lag not read: coordinator gone; the lag gauges are absent until a read works',
    ]);
    expect(logger.messages('debug')).toContain('group lag not read again');
    state.read = 'answer';
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_lag_messages')).toBe(10);
    // Measured again after the gap: the line is logged again.
    expect(logger.messages('info').filter((m) => m.startsWith('group lag:'))).toHaveLength(2);
  });

  it('gives a read that does not answer half the check budget, so the check itself still judges', async () => {
    const { state, controller, logger } = setup({ sizing: { memberCapacity: 30 }, checkTimeoutMs: 400 });
    state.read = 'hang';
    const started = performance.now();
    expect((await controller.checkNow()).outcome).toBe('balanced');
    expect(performance.now() - started).toBeLessThan(400);
    expect(logger.messages('warn')).toEqual([
      expect.stringMatching(/^group lag not read: not read within (19\d|200) ms; /),
    ]);
  });

  it('drops every lag series, the unmeasured ones too, when it stops being the coordinator', async () => {
    const { controller, registry } = setup({ sizing: { memberCapacity: 30 } });
    await controller.checkNow();
    expect(await gauge(registry, 'load_aware_group_lag_unmeasured_partitions', { reason: 'not_read' })).toBe(0);
    await controller.stop();
    for (const name of [
      'load_aware_group_lag_messages',
      'load_aware_group_lag_seconds',
      'load_aware_group_drain_seconds',
      'load_aware_group_drain_never',
    ]) {
      expect(await gauge(registry, name)).toBeUndefined();
    }
    expect((await registry.getSingleMetric('load_aware_group_lag_unmeasured_partitions')?.get())?.values).toEqual([]);
  });
});

describe('lagChangedMaterially', () => {
  const none = { no_commit: 0, no_rate: 0, not_read: 0 };
  const line = (lagSeconds: number | undefined, drainSeconds?: number | 'never', unmeasured = none): LagLine => ({
    lagSeconds,
    drainSeconds,
    unmeasured,
  });

  it('logs the first line, then on a doubling or halving against the last line logged', () => {
    expect(lagChangedMaterially(undefined, line(0))).toBe(true);
    expect(lagChangedMaterially(line(40), line(79))).toBe(false);
    expect(lagChangedMaterially(line(40), line(80))).toBe(true);
    expect(lagChangedMaterially(line(40), line(20))).toBe(true);
    expect(lagChangedMaterially(line(40, 100), line(40, 250))).toBe(true);
  });

  it('counts anything below 10 s as 10 s, so a caught-up group does not log its noise', () => {
    expect(lagChangedMaterially(line(0.5), line(9))).toBe(false);
    expect(lagChangedMaterially(line(1), line(19))).toBe(false);
    expect(lagChangedMaterially(line(1), line(20))).toBe(true);
    expect(lagChangedMaterially(line(30), line(2))).toBe(true);
  });

  it('logs when a figure appears, goes, or switches to never, and when partitions start or stop being left out', () => {
    expect(lagChangedMaterially(line(5), line(undefined))).toBe(true);
    expect(lagChangedMaterially(line(5, 5), line(5, 'never'))).toBe(true);
    expect(lagChangedMaterially(line(5, 'never'), line(5, 'never'))).toBe(false);
    expect(lagChangedMaterially(line(5), line(5, undefined, { ...none, no_rate: 1 }))).toBe(true);
    // A count that only moves (2 → 3) is not news.
    const two = { ...none, no_commit: 2 };
    expect(lagChangedMaterially(line(5, undefined, two), line(5, undefined, { ...two, no_commit: 3 }))).toBe(false);
  });
});
