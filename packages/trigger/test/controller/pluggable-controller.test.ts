import { Registry } from 'prom-client';
import { ConfigError, LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import {
  createCompositeTrigger,
  createPeriodicTrigger,
  createThresholdTriggerFor,
  createTriggerController,
  type Trigger,
  type TriggerController,
  type TriggerControllerOptions,
  type TriggerDecision,
} from '@load-aware/trigger';
import { errorThrownBy, manualClock, recordingLogger } from '@load-aware/test-support';
import { description, fakeConsumer, type FakeMember } from '../fakes';

// Four partitions of 10: a-1 holds three, b-1 one: ratio 1.5.
const skewed: FakeMember[] = [
  { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1, 2] },
  { memberId: 'b-1', instanceId: 'pod-b', partitions: [3] },
];
const tenEach: WeightSource = {
  getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 10 }))),
};

async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { values } = (await registry.getSingleMetric(name)?.get()) ?? { values: [] };
  const match = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return match?.value ?? Number.NaN;
}

describe('createTriggerController with a pluggable trigger', () => {
  const controllers: Array<TriggerController<TriggerDecision>> = [];
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
  });

  function setup<D extends TriggerDecision>(options: TriggerControllerOptions<D>) {
    const registry = new Registry();
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ instanceId: 'pod-x', weights: tenEach, defaultWeight: 10 });
    const consumer = fakeConsumer(() => Promise.resolve(description('g', skewed)));
    const controller = createTriggerController<D>(
      { target: assigner.triggerTarget(consumer) },
      { checkIntervalMs: 3_600_000, advise: true, logger, registry, ...options },
    );
    controllers.push(controller);
    consumer.emit('GROUP_JOIN', { memberId: 'a-1', groupId: 'g', isLeader: true, leaderId: 'a-1' });
    return { controller, registry, logger, assigner };
  }

  it('runs any object with evaluate(observation), acts on its fire and logs its reason', async () => {
    const seen: number[] = [];
    let fire = false;
    const custom: Trigger = {
      evaluate: (o) => {
        seen.push(o.members.length);
        return fire
          ? { outcome: 'fired', reason: 'custom says so', kind: 'custom' }
          : { outcome: 'not_due', reason: 'custom waits', kind: 'custom' };
      },
    };
    const { controller, registry, logger } = setup({ trigger: custom });
    expect(await controller.checkNow()).toMatchObject({ outcome: 'not_due', evaluation: { reason: 'custom waits' } });
    fire = true;
    expect((await controller.checkNow()).outcome).toBe('fired');
    expect(seen).toEqual([2, 2]);
    expect(await metricValue(registry, 'load_aware_trigger_advised_rebalances_total')).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'not_due' })).toBe(1);
    expect(logger.messages('info')).toContain('trigger fired: custom says so');
    expect(logger.messages('info')).toContain('advise mode: would initiate a group rebalance (custom says so)');
    expect(logger.messages('debug')).toContain('trigger did not fire (not_due): custom waits');
    // Threshold gauges describe a threshold evaluation; this trigger made none.
    expect(await metricValue(registry, 'load_aware_trigger_imbalance_ratio')).toBeNaN();
  });

  it('starts zero series only for the outcomes the trigger declares', async () => {
    const { controller, registry } = setup({ trigger: createPeriodicTrigger({ intervalMs: 60_000 }) });
    await controller.checkNow();
    const { values } = (await registry.getSingleMetric('load_aware_trigger_evaluations_total')?.get()) ?? {
      values: [],
    };
    expect(values.map((v) => v.labels['outcome']).sort()).toEqual(
      ['error', 'fired', 'group_not_stable', 'no_members', 'not_due', 'unheld_partitions'].sort(),
    );
  });

  it('publishes the threshold gauges and lines of a threshold trigger inside a composite', async () => {
    const clock = manualClock(0);
    const assigner = LoadAwareAssigner({ instanceId: 'pod-x', weights: tenEach });
    const trigger = createCompositeTrigger({
      mode: 'any',
      triggers: [
        createThresholdTriggerFor(
          assigner.triggerTarget(fakeConsumer(() => Promise.resolve(description('g', skewed)))),
          {
            minViolatedChecks: 2,
            monotonicNow: clock.now,
          },
        ),
        createPeriodicTrigger({ intervalMs: 60_000, monotonicNow: clock.now }),
      ],
    });
    const { controller, registry, logger } = setup({ trigger });
    const first = await controller.checkNow();
    expect(first.outcome).toBe('awaiting_hysteresis');
    expect(first.evaluation?.children.map((c) => c.outcome)).toEqual(['awaiting_hysteresis', 'not_due']);
    expect(await metricValue(registry, 'load_aware_trigger_imbalance_ratio')).toBe(1.5);
    expect(logger.messages('info').some((m) => m.includes('(violated check 1/2)'))).toBe(true);
    expect((await controller.checkNow()).outcome).toBe('fired');
    expect(logger.messages('info').some((m) => m.startsWith('trigger fired: any fired (threshold: ratio 1.500'))).toBe(
      true,
    );
  });

  it('counts a decision outside TRIGGER_OUTCOMES as an error with its code, never as a label', async () => {
    const bad = { evaluate: () => ({ outcome: 'overloaded', reason: 'x' }) } as unknown as Trigger;
    const { controller, registry, logger } = setup({ trigger: bad });
    expect((await controller.checkNow()).outcome).toBe('error');
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'error' })).toBe(1);
    expect(await metricValue(registry, 'load_aware_trigger_evaluations_total', { outcome: 'overloaded' })).toBeNaN();
    const warn = logger.records.find((r) => r.level === 'warn')!;
    expect(warn.fields['code']).toBe('LOAD_AWARE_TRIGGER_INVALID_DECISION');
    expect(warn.message).toContain('"overloaded" is not one of fired');
  });

  it('threshold children built with createThresholdTriggerFor judge with the assigner’s default weight', () => {
    // p3 has no weight: at the assigner's default (10) 3+1 partitions is skewed; at the schema's 1 it is not.
    const assigner = LoadAwareAssigner({ instanceId: 'x', defaultWeight: 10 });
    const target = assigner.triggerTarget(fakeConsumer(() => Promise.resolve(description('g', skewed))));
    const trigger = createThresholdTriggerFor(target, { minViolatedChecks: 1 });
    const e = trigger.evaluate({
      state: 'Stable',
      members: [
        {
          memberId: 'a',
          instanceId: 'a',
          topics: ['t'],
          assigned: [0, 1, 2].map((partition) => ({ topic: 't', partition })),
        },
        { memberId: 'b', instanceId: 'b', topics: ['t'], assigned: [{ topic: 't', partition: 3 }] },
      ],
      partitions: [0, 1, 2].map((partition) => ({ topic: 't', partition, weight: 10 })),
    });
    expect(e).toMatchObject({ currentMaxLoad: 30, optimalMaxLoad: 20, outcome: 'fired' });
    expect(errorThrownBy(() => createThresholdTriggerFor({} as never), ConfigError).message).toContain('triggerTarget');
  });

  it.each([
    ['a number', 1.1, 'or a Trigger (an object with evaluate(observation))'],
    ['null', null, 'or a Trigger (an object with evaluate(observation))'],
    ['an object without evaluate', { check: () => true }, 'a custom trigger needs an evaluate(observation) method'],
    ['evaluate that is not a function', { evaluate: true }, 'trigger.evaluate'],
  ])('rejects a trigger that is %s with a ConfigError saying what it expected', (_, trigger, expected) => {
    const consumer = fakeConsumer(() => Promise.resolve(description('g', skewed)));
    const assigner = LoadAwareAssigner({ instanceId: 'x' });
    const err = errorThrownBy(
      () => createTriggerController({ target: assigner.triggerTarget(consumer) }, { trigger } as never),
      ConfigError,
    );
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(expected);
  });
});
