import { Registry } from 'prom-client';
import type { Cluster, GroupDescription } from 'kafkajs';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { createTriggerController, type TriggerController, type TriggerControllerOptions } from '@load-aware/trigger';
import { description, fakeConsumer, type FakeConsumer, type FakeMember } from '../fakes';
import { recordingLogger } from '@load-aware/test-support';
import { CAPACITY_WINDOW_CHECKS } from '@load-aware/trigger/internal';

// Four partitions of 10: a-1 holds three, b-1 one: ratio 1.5.
const skewed: FakeMember[] = [
  { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1, 2] },
  { memberId: 'b-1', instanceId: 'pod-b', partitions: [3] },
];
const even: FakeMember[] = [
  { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1] },
  { memberId: 'b-1', instanceId: 'pod-b', partitions: [2, 3] },
];
const tenEach: WeightSource = {
  getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 10 }))),
};

async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return Number.NaN;
  const { values } = await metric.get();
  const match = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return match?.value ?? Number.NaN;
}

function hookableCluster(): Cluster & { refreshes: () => Promise<unknown> } {
  const cluster = {
    refreshMetadataIfNecessary: () => Promise.resolve(),
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
  };
  return Object.assign(cluster, { refreshes: () => cluster.refreshMetadataIfNecessary() }) as unknown as Cluster & {
    refreshes: () => Promise<unknown>;
  };
}

describe('createTriggerController', () => {
  const controllers: TriggerController[] = [];
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
  });

  function setup(
    memberId: string | undefined,
    describe: () => GroupDescription,
    options: TriggerControllerOptions = {},
    weights: WeightSource = tenEach,
  ) {
    const registry = options.registry ?? new Registry();
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ instanceId: 'pod-x', weights });
    // KafkaJS creates the consumer's assigner with the consumer's own cluster; protocol() = joined.
    const cluster = hookableCluster();
    assigner({ cluster, groupId: 'g', logger: undefined as never }).protocol({ topics: ['t'] });
    const consumer: FakeConsumer = fakeConsumer(() => Promise.resolve(describe()));
    const controller = createTriggerController(
      { target: assigner.triggerTarget(consumer) },
      { checkIntervalMs: 3_600_000, trigger: { cooldownMs: 60_000 }, logger, registry, ...options },
    );
    controllers.push(controller);
    if (memberId !== undefined) consumer.emit('GROUP_JOIN', { memberId, groupId: 'g', isLeader: false, leaderId: 'z' });
    return { controller, consumer, registry, logger, assigner, cluster };
  }

  it('elects the smallest load-aware member id; only the coordinator evaluates', async () => {
    const a = setup('a-1', () => description('g', even));
    const b = setup('b-1', () => description('g', even));
    expect(await a.controller.checkNow()).toMatchObject({ outcome: 'balanced' });
    expect(await b.controller.checkNow()).toMatchObject({ outcome: 'skipped' });
    expect([a.controller.isCoordinator, b.controller.isCoordinator]).toEqual([true, false]);
    expect(await metricValue(a.registry, 'load_aware_trigger_coordinator', { group: 'g' })).toBe(1);
    expect(await metricValue(b.registry, 'load_aware_trigger_coordinator', { group: 'g' })).toBeNaN();
    expect(await metricValue(a.registry, 'load_aware_trigger_evaluations_total', { outcome: 'balanced' })).toBe(1);
    expect(await metricValue(a.registry, 'load_aware_trigger_imbalance_ratio')).toBe(1);
    expect(a.logger.messages('info')).toContain('this member is now the trigger coordinator of the group');
    expect(b.logger.messages('info')).toContain('trigger coordinator is member a-1');
  });

  it('publishes the group size with the sizing option, and logs it when it changes', async () => {
    // Four partitions of 10; members process 20/s at 100%: 0.7 lets one member carry one partition.
    const { controller, registry, logger } = setup('a-1', () => description('g', even), {
      sizing: { memberCapacity: 20 },
    });
    await controller.checkNow();
    expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(4);
    expect(await metricValue(registry, 'load_aware_desired_instances', { group: 'g' })).toBe(4);
    expect(await metricValue(registry, 'load_aware_scale_out_futile', { group: 'g' })).toBe(0);
    await controller.checkNow();
    const sizeLines = logger.messages('info').filter((m) => m.startsWith('group size:'));
    expect(sizeLines).toEqual([
      'group size: 4 members (or 4 instances of 1) keep every member within 70% of its capacity; the group has 2',
    ]);
    // Sizing turns the lag on; this fake cluster cannot read offsets: one WARN, over both checks.
    expect(logger.messages('warn')).toEqual([expect.stringMatching(/^group lag is not measured: /)]);
  });

  it('says scale-out is futile exactly when a partition alone exceeds a member target load', async () => {
    const futile = setup('a-1', () => description('g', even), {
      sizing: { memberCapacity: 10, targetUtilization: 0.9 },
    });
    await futile.controller.checkNow();
    expect(await metricValue(futile.registry, 'load_aware_scale_out_futile', { group: 'g' })).toBe(1);
    // Stops where each partition of 10 is a member's whole load.
    expect(await metricValue(futile.registry, 'load_aware_desired_members', { group: 'g' })).toBe(4);
    expect(futile.logger.messages('warn').filter((m) => !m.startsWith('group lag'))).toEqual([
      expect.stringMatching(/^scale-out is futile: t:0, t:1, t:2, t:3 alone exceed\(s\) one member's target load/),
    ]);
    // At exactly the target load it is not futile.
    const exact = setup('a-1', () => description('g', even), { sizing: { memberCapacity: 10, targetUtilization: 1 } });
    await exact.controller.checkNow();
    expect(await metricValue(exact.registry, 'load_aware_scale_out_futile', { group: 'g' })).toBe(0);
  });

  it('refuses a sizing option without a positive member capacity', () => {
    expect(() => setup('a-1', () => description('g', even), { sizing: { memberCapacity: 0 } })).toThrow(
      /sizing\.memberCapacity/,
    );
    expect(() =>
      setup('a-1', () => description('g', even), { sizing: { memberCapacity: 5, targetUtilization: 2 } }),
    ).toThrow(/sizing\.targetUtilization/);
  });

  describe('member capacity from busy time', () => {
    /** A busy-time recorder's totals the test sets; counts how often the sizing read them. */
    function totals(busySeconds: number, messages: number) {
      const source = {
        now: { busySeconds, messages } as { busySeconds: number; messages: number } | Error,
        reads: 0,
        add(seconds: number, count: number) {
          if (source.now instanceof Error) throw source.now;
          source.now = { busySeconds: source.now.busySeconds + seconds, messages: source.now.messages + count };
        },
        totals() {
          source.reads++;
          if (source.now instanceof Error) throw source.now;
          return source.now;
        },
      };
      return source;
    }
    const capacityOf = (registry: Registry, source: string) =>
      metricValue(registry, 'load_aware_member_capacity', { group: 'g', source });
    const capacityLines = (logger: ReturnType<typeof recordingLogger>) =>
      logger.messages('info').filter((m) => m.startsWith('member capacity'));
    const warnings = (logger: ReturnType<typeof recordingLogger>) =>
      logger.messages('warn').filter((m) => !m.startsWith('group lag'));

    it('sizes events/s weights at slots ÷ the measured seconds per message, and follows a slower handler', async () => {
      // 1.2 s for 60 messages: 20 ms each, 50 events/s a member; at 0.7 a member carries 35, two partitions of 10.
      const busy = totals(1.2, 60);
      const { controller, registry, logger } = setup('a-1', () => description('g', even), {
        sizing: { measured: { weightUnits: 'events', busyTime: busy } },
      });
      await controller.checkNow();
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(50, 9);
      expect(await capacityOf(registry, 'stated')).toBeNaN();
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(2);
      // The handler slows to 100 ms a message: 7.2 s over 120 since the start, 60 ms, 16.7 a member.
      busy.add(6, 60);
      await controller.checkNow();
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(1 / 0.06, 9);
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(4);
      expect(capacityLines(logger)).toEqual([
        'member capacity: 50 per member at 100%, derived from busy time: 20 ms of work a message, 1 slot(s)',
        'member capacity: 16.7 per member at 100%, derived from busy time: 60 ms of work a message, 1 slot(s)',
      ]);
      const sized = logger.records.filter((r) => r.message.startsWith('group size:'));
      expect(sized.at(-1)!.fields).toMatchObject({ capacitySource: 'derived', desiredMembers: 4 });
      expect(warnings(logger)).toEqual([]);
    });

    it('measures over the last checks only, so an old cost rolls out of the window', async () => {
      // 10 ms a message before the first check, then 20 ms: after enough checks only 20 ms is left.
      const busy = totals(1, 100);
      const { controller, registry } = setup('a-1', () => description('g', even), {
        sizing: { measured: { weightUnits: 'events', busyTime: busy, slots: 2 } },
      });
      await controller.checkNow();
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(200, 9);
      for (let i = 0; i < CAPACITY_WINDOW_CHECKS; i++) {
        busy.add(1, 50);
        await controller.checkNow();
      }
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(100, 9);
    });

    it('lets a stated memberCapacity win without reading busy time', async () => {
      const busy = totals(1.2, 60);
      const { controller, registry, logger } = setup('a-1', () => description('g', even), {
        sizing: { memberCapacity: 20, measured: { weightUnits: 'events', busyTime: busy } },
      });
      await controller.checkNow();
      await controller.checkNow();
      expect(busy.reads).toBe(0);
      expect(await capacityOf(registry, 'stated')).toBe(20);
      expect(await capacityOf(registry, 'derived')).toBeNaN();
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(4);
      expect(capacityLines(logger)).toEqual([
        'member capacity: 20 per member at 100%, as stated (sizing.memberCapacity)',
      ]);
    });

    it('gives busy-time weights one busy second per second a slot, with no recorder', async () => {
      const { controller, registry, logger } = setup(
        'a-1',
        () => description('g', even),
        { sizing: { measured: { weightUnits: 'busy', slots: 2 } } },
        // Four partitions each busy 0.5 s/s: at 0.7 × 2 a member carries two.
        { getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 0.5 }))) },
      );
      await controller.checkNow();
      expect(await capacityOf(registry, 'derived')).toBe(2);
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(2);
      expect(capacityLines(logger)).toEqual([
        'member capacity: 2 per member at 100%, derived: busy-time weights, 2 busy second(s) per second',
      ]);
    });

    it('does not size before busy time has measured a message: one WARN, then sizes once it has', async () => {
      const busy = totals(0, 0);
      const { controller, registry, logger } = setup('a-1', () => description('g', even), {
        sizing: { measured: { weightUnits: 'events', busyTime: busy } },
      });
      await controller.checkNow();
      await controller.checkNow();
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBeNaN();
      expect(await capacityOf(registry, 'derived')).toBeNaN();
      expect(warnings(logger)).toEqual([
        'member capacity not derived: no message handled in the window; the group is not sized until the ' +
          'handler has measured messages (or state sizing.memberCapacity)',
      ]);
      busy.add(0.5, 50);
      expect(await controller.checkNow()).toMatchObject({ outcome: 'balanced' });
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(1);
      expect(capacityLines(logger)).toEqual([
        'member capacity: 100 per member at 100%, derived from busy time: 10 ms of work a message, 1 slot(s)',
      ]);
    });

    it('keeps the last derived capacity through idle checks, NaN totals and a recorder that throws', async () => {
      const busy = totals(1.2, 60);
      const { controller, registry, logger } = setup('a-1', () => description('g', even), {
        sizing: { measured: { weightUnits: 'events', busyTime: busy } },
      });
      await controller.checkNow();
      // Nothing handled for a while: not a problem, the handler costs what it did.
      for (let i = 0; i <= CAPACITY_WINDOW_CHECKS; i++) await controller.checkNow();
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(50, 9);
      expect(warnings(logger)).toEqual([]);

      busy.now = { busySeconds: Number.NaN, messages: 70 };
      await controller.checkNow();
      busy.now = new Error('registry gone');
      expect(await controller.checkNow()).toMatchObject({ outcome: 'balanced' });
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(50, 9);
      expect(await metricValue(registry, 'load_aware_desired_members', { group: 'g' })).toBe(2);
      // One WARN for the streak of bad readings, and a line when it is over.
      expect(warnings(logger)).toEqual([
        'member capacity not derived: busy time is not a usable measurement (NaN s over 10 messages); sizing ' +
          'keeps the last derived capacity, 50',
      ]);
      busy.now = { busySeconds: 2.4, messages: 120 };
      await controller.checkNow();
      expect(logger.messages('info')).toContain('member capacity derived again from busy time');
      expect(await capacityOf(registry, 'derived')).toBeCloseTo(50, 9);
    });

    it('refuses sizing without a capacity or a way to derive one', () => {
      const even4 = () => description('g', even);
      expect(() => setup('a-1', even4, { sizing: {} })).toThrow(/sizing\.memberCapacity/);
      expect(() => setup('a-1', even4, { sizing: { measured: { weightUnits: 'events' } } })).toThrow(
        /sizing\.measured\.busyTime/,
      );
      expect(() =>
        setup('a-1', even4, { sizing: { measured: { weightUnits: 'busy', busyTime: {} as never } } }),
      ).toThrow(/expected a busy-time recorder[\s\S]*sizing\.measured\.busyTime/);
      expect(() => setup('a-1', even4, { sizing: { measured: { weightUnits: 'busy', slots: 0 } } })).toThrow(
        /sizing\.measured\.slots/,
      );
    });

    describe('with a latency SLA', () => {
      const targetOf = (registry: Registry) => metricValue(registry, 'load_aware_target_utilization', { group: 'g' });
      const desiredOf = (registry: Registry) => metricValue(registry, 'load_aware_desired_members', { group: 'g' });

      it('sizes at the utilization the SLA allows for the measured work a message costs', async () => {
        // 20 ms a message, 50 events/s a member, four partitions of 10. A 1 s p99 allows 0.908 of a
        // member (45.4/s), so one member carries all 40/s where the default 0.7 (35/s) needs two;
        // 0.1 s allows only 0.223 (11.2/s), one partition a member.
        const busy = totals(1.2, 60);
        const slow = setup('a-1', () => description('g', even), {
          sizing: { measured: { weightUnits: 'events', busyTime: busy }, latencySla: { seconds: 1 } },
        });
        await slow.controller.checkNow();
        expect(await targetOf(slow.registry)).toBeCloseTo(0.908, 3);
        expect(await desiredOf(slow.registry)).toBe(1);
        expect(slow.logger.messages('info').filter((m) => m.startsWith('group size:'))).toEqual([
          'group size: 1 members (or 1 instances of 1) keep every member within 90.8% of its capacity ' +
            '(the 1 s p99 latency SLA at 20 ms a message); the group has 2',
        ]);
        const tight = setup('a-1', () => description('g', even), {
          sizing: { measured: { weightUnits: 'events', busyTime: busy }, latencySla: { seconds: 0.1 } },
        });
        await tight.controller.checkNow();
        expect(await targetOf(tight.registry)).toBeCloseTo(0.2234, 4);
        expect(await desiredOf(tight.registry)).toBe(4);
      });

      it('leaves the group unsized, with one WARN a streak, while no target follows from the SLA', async () => {
        // Busy-time weights have a capacity without messages, but no work a message costs yet.
        const busy = totals(0, 0);
        const { controller, registry, logger } = setup('a-1', () => description('g', even), {
          sizing: { measured: { weightUnits: 'busy', busyTime: busy }, latencySla: { seconds: 1, quantile: 0.999 } },
        });
        await controller.checkNow();
        await controller.checkNow();
        expect(await desiredOf(registry)).toBeNaN();
        expect(warnings(logger)).toEqual([
          'group not sized: no target utilization follows from the latency SLA: busy time has not measured ' +
            'the work a message costs yet',
        ]);
        // 2 s a message: past the SLA on its own.
        busy.add(4, 2);
        await controller.checkNow();
        expect(await desiredOf(registry)).toBeNaN();
        expect(warnings(logger)).toHaveLength(1);
        busy.add(0.02, 998);
        await controller.checkNow();
        expect(await desiredOf(registry)).toBeGreaterThan(0);
        expect(await targetOf(registry)).toBeGreaterThan(0);
        // The handler slows past the SLA after the group was sized: the old answer goes with it.
        busy.add(4000, 2);
        await controller.checkNow();
        expect(await desiredOf(registry)).toBeNaN();
        expect(await targetOf(registry)).toBeNaN();
        expect(await metricValue(registry, 'load_aware_scale_out_futile', { group: 'g' })).toBeNaN();
        expect(warnings(logger).filter((w) => w.startsWith('group not sized:'))).toEqual([
          'group not sized: no target utilization follows from the latency SLA: busy time has not measured ' +
            'the work a message costs yet',
          "group not sized: no target utilization follows from the latency SLA: one message's work (4 s) alone " +
            'takes the 1 s SLA or longer',
        ]);
      });

      it('refuses a latency SLA beside a stated target or capacity, or without a recorder', () => {
        const even4 = () => description('g', even);
        const busy = totals(1, 10);
        const measured = { weightUnits: 'events', busyTime: busy } as const;
        expect(() =>
          setup('a-1', even4, { sizing: { measured, latencySla: { seconds: 1 }, targetUtilization: 0.8 } }),
        ).toThrow(/targetUtilization or latencySla, not both[\s\S]*sizing\.latencySla/);
        expect(() =>
          setup('a-1', even4, { sizing: { measured, memberCapacity: 10, latencySla: { seconds: 1 } } }),
        ).toThrow(/measured\.busyTime[\s\S]*no memberCapacity/);
        expect(() =>
          setup('a-1', even4, { sizing: { measured: { weightUnits: 'busy' }, latencySla: { seconds: 1 } } }),
        ).toThrow(/sizing\.latencySla/);
        expect(() => setup('a-1', even4, { sizing: { measured, latencySla: { seconds: 1, quantile: 1 } } })).toThrow(
          /sizing\.latencySla\.quantile/,
        );
        expect(() => setup('a-1', even4, { sizing: { measured, latencySla: { seconds: 0 } } })).toThrow(
          /sizing\.latencySla\.seconds/,
        );
      });
    });
  });

  it('ignores members without load-aware userData in the election', async () => {
    const members = [{ memberId: '0-foreign', partitions: [0, 1] }, ...even.slice(1)];
    const b = setup('b-1', () => description('g', members));
    await b.controller.checkNow();
    expect(b.controller.isCoordinator).toBe(true);
  });

  it('skips checks until the member id is known, and learns it from heartbeats', async () => {
    const { controller, consumer } = setup(undefined, () => description('g', even));
    expect(await controller.checkNow()).toMatchObject({ outcome: 'skipped' });
    expect(consumer.describe).not.toHaveBeenCalled();
    consumer.emit('HEARTBEAT', { memberId: 'a-1', groupId: 'g', groupGenerationId: 3 });
    expect(await controller.checkNow()).toMatchObject({ outcome: 'balanced' });
  });

  it('fires: bumps the epoch and makes its own consumer rejoin, once', async () => {
    const { controller, assigner, cluster, registry, logger } = setup('a-1', () => description('g', skewed));
    expect((await controller.checkNow()).outcome).toBe('awaiting_hysteresis');
    expect((await controller.checkNow()).outcome).toBe('fired');
    expect(assigner.epochOf('g')).toBe(1);
    expect(assigner.epochOf('other')).toBe(0);
    await expect(cluster.refreshes()).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    await expect(cluster.refreshes()).resolves.toBeUndefined();
    expect(await metricValue(registry, 'load_aware_trigger_rebalances_initiated_total')).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'fired' })).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_last_fired_timestamp_seconds')).toBeGreaterThan(0);
    const info = logger.messages('info');
    expect(info.some((m) => m.includes('(violated check 1/2)'))).toBe(true);
    expect(info.some((m) => m.includes('(violated check 2/2)'))).toBe(true);
    expect(info.some((m) => m.startsWith('rebalance initiated: epoch bumped to 1'))).toBe(true);
    // Still skewed after the rebalance: suppressed by the cooldown, and the WARN names causes.
    await controller.checkNow();
    expect((await controller.checkNow()).outcome).toBe('cooldown_suppressed');
    expect(logger.messages('warn').join('\n')).toMatch(
      /cooldown doubled from 60 s to 120 s\. Likely causes: the assignment did not change/,
    );
    expect(logger.messages('info').some((m) => m.includes('rebalance suppressed by cooldown'))).toBe(true);
    expect(await metricValue(registry, 'load_aware_trigger_cooldown_seconds')).toBe(120);
  });

  it('in advise mode logs and counts what it would do, never rebalances', async () => {
    const { controller, assigner, cluster, registry, logger } = setup('a-1', () => description('g', skewed), {
      advise: true,
    });
    await controller.checkNow();
    expect((await controller.checkNow()).outcome).toBe('fired');
    expect(assigner.epochOf('g')).toBe(0);
    await expect(cluster.refreshes()).resolves.toBeUndefined();
    expect(await metricValue(registry, 'load_aware_trigger_advised_rebalances_total')).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_rebalances_initiated_total')).toBe(0);
    expect(logger.messages('info').some((m) => m.startsWith('advise mode: would initiate a group rebalance'))).toBe(
      true,
    );
  });

  it('keeps the role while the group rebalances and counts group_not_stable', async () => {
    let state = 'Stable';
    const { controller, registry } = setup('a-1', () => description('g', even, state));
    await controller.checkNow();
    state = 'PreparingRebalance';
    expect((await controller.checkNow()).outcome).toBe('group_not_stable');
    expect(controller.isCoordinator).toBe(true);
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'group_not_stable' })).toBe(
      1,
    );
  });

  it('counts a check that does not finish in time as an error and logs its code', async () => {
    let slow = false;
    const { controller, consumer, registry, logger } = setup('a-1', () => description('g', even), {
      checkIntervalMs: 1000,
      checkTimeoutMs: 50,
    });
    await controller.checkNow();
    consumer.describe.mockImplementation(() => {
      slow = true;
      return new Promise((resolve) =>
        setTimeout(() => {
          resolve(description('g', skewed));
        }, 150),
      );
    });
    expect((await controller.checkNow()).outcome).toBe('error');
    expect(slow).toBe(true);
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'error' })).toBe(1);
    const warn = logger.records.find((r) => r.level === 'warn')!;
    expect(warn.fields['code']).toBe('LOAD_AWARE_TRIGGER_CHECK_TIMEOUT');
    // The abandoned check finished late but acted on nothing.
    expect(
      await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'awaiting_hysteresis' }),
    ).toBe(0);
  });

  it('counts weight source failures as sampler errors', async () => {
    const failing: WeightSource = { getWeights: () => Promise.reject(new Error('sampler down')) };
    const { controller, registry } = setup('a-1', () => description('g', even), {}, failing);
    expect((await controller.checkNow()).outcome).toBe('error');
    expect(await metricValue(registry, 'load_aware_trigger_sampler_errors_total')).toBe(1);
  });

  it('runs one check at a time', async () => {
    const { controller, consumer } = setup('a-1', () => description('g', even));
    const [first, second] = [controller.checkNow(), controller.checkNow()];
    expect(first).toBe(second);
    await first;
    expect(consumer.describe).toHaveBeenCalledTimes(1);
  });

  it('reports 1 on a shared registry while any of the process’s consumers is the coordinator', async () => {
    const registry = new Registry();
    let members = even;
    const a = setup('a-1', () => description('g', members), { registry });
    const b = setup('b-1', () => description('g', members), { registry });
    await a.controller.checkNow();
    await b.controller.checkNow();
    expect(await metricValue(registry, 'load_aware_trigger_coordinator')).toBe(1);
    members = even.slice(1);
    await b.controller.checkNow();
    expect(await metricValue(registry, 'load_aware_trigger_coordinator')).toBe(1);
    await a.controller.checkNow();
    expect([a.controller.isCoordinator, b.controller.isCoordinator]).toEqual([false, true]);
    expect(await metricValue(registry, 'load_aware_trigger_coordinator')).toBe(1);
    await b.controller.stop();
    expect(await metricValue(registry, 'load_aware_trigger_coordinator')).toBe(0);
  });

  it('drops the role when the consumer stops', async () => {
    const { controller, consumer, registry } = setup('a-1', () => description('g', even));
    await controller.checkNow();
    consumer.emit('STOP');
    expect(controller.isCoordinator).toBe(false);
    expect(await metricValue(registry, 'load_aware_trigger_coordinator')).toBe(0);
    expect(await controller.checkNow()).toMatchObject({ outcome: 'skipped' });
  });

  it('checks every checkIntervalMs, and stop() leaves no timer or listener behind', async () => {
    const { controller, consumer } = setup('a-1', () => description('g', even), { checkIntervalMs: 100 });
    // Waits for the second periodic check rather than a fixed time: on a loaded machine timers run late.
    for (let waited = 0; consumer.describe.mock.calls.length < 2 && waited < 10_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const calls = consumer.describe.mock.calls.length;
    expect(calls).toBeGreaterThanOrEqual(2);
    await controller.stop();
    expect(consumer.listenerCount()).toBe(0);
    await new Promise((r) => setTimeout(r, 250));
    expect(consumer.describe.mock.calls.length).toBe(calls);
  });

  it('takes the default weight from the assigner and rejects bad dependencies and options', () => {
    const consumer = fakeConsumer(() => Promise.resolve(description('g', even)));
    const assigner = LoadAwareAssigner({ instanceId: 'x' });
    const codeOf = (action: () => unknown): unknown => {
      try {
        action();
      } catch (err) {
        return (err as { code?: unknown }).code;
      }
      return undefined;
    };
    expect(codeOf(() => createTriggerController({ target: {} as never }))).toBe('LOAD_AWARE_CONFIG');
    expect(codeOf(() => createTriggerController({ consumer, assigner } as never))).toBe('LOAD_AWARE_CONFIG');
    expect(
      codeOf(() =>
        createTriggerController(
          { target: assigner.triggerTarget(consumer) },
          { checkIntervalMs: 1000, checkTimeoutMs: 2000 },
        ),
      ),
    ).toBe('LOAD_AWARE_CONFIG');
    expect(
      codeOf(() =>
        createTriggerController({ target: assigner.triggerTarget(consumer) }, { trigger: { threshold: 0 } }),
      ),
    ).toBe('LOAD_AWARE_CONFIG');
    expect(
      codeOf(() =>
        createTriggerController({ target: assigner.triggerTarget(consumer) }, { checkIntervall: 5 } as never),
      ),
    ).toBe('LOAD_AWARE_CONFIG');
  });

  it('writes every line with component "trigger" and, once known, the group id', async () => {
    const { controller, logger } = setup('a-1', () => description('g', skewed));
    await controller.checkNow();
    expect((await controller.checkNow()).outcome).toBe('fired');
    expect(logger.records.length).toBeGreaterThan(3);
    for (const r of logger.records) expect(r.fields).toMatchObject({ component: 'trigger', groupId: 'g' });
  });
});
