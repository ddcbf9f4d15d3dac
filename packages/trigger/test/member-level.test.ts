import { Registry } from 'prom-client';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import {
  createTriggerController,
  type Evaluation,
  type Observation,
  type TriggerController,
} from '@load-aware/trigger';
import { description, fakeConsumer, observation, setup } from './fakes';
import { recordingLogger } from '@load-aware/test-support';

// Two instances of two members, eight partitions of 10: each instance holds 40 (instance ratio 1),
// but inside pod-a one member holds all four (40 where 20 is possible: member ratio 2).
const INSTANCE_OF = { a1: 'pod-a', a2: 'pod-a', b1: 'pod-b', b2: 'pod-b' };
const EVEN = [10, 10, 10, 10, 10, 10, 10, 10];
const hotMember = { a1: [0, 1, 2, 3], a2: [], b1: [4, 5], b2: [6, 7] };
const evenMembers = { a1: [0, 1], a2: [2, 3], b1: [4, 5], b2: [6, 7] };
// Same assignment as hotMember, pod-b's partitions twice as heavy: pod-b 80 where 60 is possible.
const INSTANCE_SKEW = [10, 10, 10, 10, 20, 20, 20, 20];

const groupOf = (assignment: Record<string, number[]>, weights = EVEN): Observation =>
  observation(assignment, weights, { instanceOf: INSTANCE_OF });

/** The observation after the plan of `e` is applied: what the group looks like after the rebalance. */
function applied(e: Evaluation, weights = EVEN): Observation {
  const assignment: Record<string, number[]> = {};
  for (const [memberId, partitions] of e.plan!.assignments) assignment[memberId] = partitions.map((p) => p.partition);
  return groupOf(assignment, weights);
}

describe('the threshold trigger at member level', () => {
  it('fires for one overloaded member in balanced instances, saying the member level fired', () => {
    const { trigger } = setup();
    const first = trigger.evaluate(groupOf(hotMember));
    expect(first).toMatchObject({
      outcome: 'awaiting_hysteresis',
      level: 'member',
      ratio: 1,
      memberRatio: 2,
      memberThreshold: 1.25,
      memberInstanceId: 'pod-a',
      currentMaxMemberLoad: 40,
      optimalMaxMemberLoad: 20,
    });
    const second = trigger.evaluate(groupOf(hotMember));
    expect(second).toMatchObject({ outcome: 'fired', level: 'member', violatedChecks: 2 });
    expect(second.reason).toContain('member ratio 2.000 of the members of instance pod-a above member threshold 1.250');
  });

  it('does not judge members when the member level is disabled', () => {
    const { trigger } = setup({ memberLevel: { enabled: false } });
    for (let i = 0; i < 5; i++) {
      expect(trigger.evaluate(groupOf(hotMember))).toMatchObject({
        outcome: 'balanced',
        level: undefined,
        memberRatio: undefined,
        memberThreshold: undefined,
      });
    }
  });

  it('judges a group balanced at both levels as balanced', () => {
    const { trigger } = setup();
    const e = trigger.evaluate(groupOf(evenMembers));
    expect(e).toMatchObject({ outcome: 'balanced', level: undefined, ratio: 1, memberRatio: 1 });
    expect(e.reason).toBe('ratio 1.000 within threshold 1.100, member ratio 1.000 within 1.250');
  });

  it('gives member ratio 1 when no instance has two members', () => {
    const { trigger } = setup();
    const e = trigger.evaluate(observation({ m1: [0, 1], m2: [2, 3] }, [10, 10, 10, 10]));
    expect(e).toMatchObject({ outcome: 'balanced', memberRatio: 1, memberInstanceId: undefined });
  });

  it('fires only strictly above the member threshold', () => {
    // pod-a's members 30 and 10 where 20 is possible: member ratio exactly 1.5.
    const assignment = { a1: [0, 1, 2], a2: [3], b1: [4, 5], b2: [6, 7] };
    const at = setup({ memberLevel: { threshold: 1.5 }, minViolatedChecks: 1 });
    expect(at.trigger.evaluate(groupOf(assignment))).toMatchObject({ outcome: 'balanced', memberRatio: 1.5 });
    const below = setup({ memberLevel: { threshold: 1.49 }, minViolatedChecks: 1 });
    expect(below.trigger.evaluate(groupOf(assignment))).toMatchObject({ outcome: 'fired', level: 'member' });
  });

  it('is balanced after the plan is applied: the fire does not loop', () => {
    const { trigger, clock } = setup({ minViolatedChecks: 1 });
    const fired = trigger.evaluate(groupOf(hotMember));
    expect(fired.outcome).toBe('fired');
    // The plan keeps the instance split (instances were balanced) and evens the members out.
    const after = applied(fired);
    const afterIds = after.members.map((m) => [m.memberId, m.assigned.length]);
    expect(afterIds).toEqual([
      ['a1', 2],
      ['a2', 2],
      ['b1', 2],
      ['b2', 2],
    ]);
    for (let i = 0; i < 10; i++) {
      clock.t += 60_000;
      const e = trigger.evaluate(after);
      expect(e.outcome).toBe('balanced');
      expect(e.memberRatio!).toBeLessThanOrEqual(1.25);
    }
  });

  it('never fires for a member imbalance the leader would keep (within twice the move tolerance)', () => {
    // pod-a: 21 vs 19 where 20/20 is possible, 5% off: the leader keeps members within 10%.
    const weights = [11, 10, 10, 9, 10, 10, 10, 10];
    const assignment = { a1: [0, 1], a2: [2, 3], b1: [4, 5], b2: [6, 7] };
    const { trigger } = setup({ memberLevel: { threshold: 1 }, minViolatedChecks: 1 });
    expect(trigger.evaluate(groupOf(assignment, weights))).toMatchObject({ outcome: 'balanced', memberRatio: 1 });
  });

  it('reports the instance level when both levels are violated', () => {
    const { trigger } = setup({ minViolatedChecks: 1 });
    const e = trigger.evaluate(groupOf(hotMember, INSTANCE_SKEW));
    expect(e).toMatchObject({ outcome: 'fired', level: 'instance', memberRatio: 2 });
    expect(e.ratio!).toBeGreaterThan(1.1);
  });

  it('counts violated checks of either level in one streak', () => {
    const { trigger } = setup();
    expect(trigger.evaluate(groupOf(hotMember, INSTANCE_SKEW))).toMatchObject({
      outcome: 'awaiting_hysteresis',
      level: 'instance',
    });
    expect(trigger.evaluate(groupOf(hotMember))).toMatchObject({
      outcome: 'fired',
      level: 'member',
      violatedChecks: 2,
    });
  });

  it('decays and restarts the member streak like the instance one', () => {
    const { trigger } = setup({ minViolatedChecks: 3 });
    expect(trigger.evaluate(groupOf(hotMember)).violatedChecks).toBe(1);
    expect(trigger.evaluate(groupOf(hotMember)).violatedChecks).toBe(2);
    // A balanced check of the same assignment decays by one: pod-a's load all in one partition,
    // which no placement can split.
    expect(trigger.evaluate(groupOf(hotMember, [40, 0, 0, 0, 10, 10, 10, 10]))).toMatchObject({
      outcome: 'balanced',
      violatedChecks: 1,
    });
    // Another assignment restarts it.
    const moved = { ...hotMember, a1: [0, 1, 2], a2: [3] };
    expect(trigger.evaluate(groupOf(moved))).toMatchObject({ outcome: 'awaiting_hysteresis', violatedChecks: 1 });
  });

  it('shares the cooldown with the instance level and doubles it when a member fire did not help', () => {
    const { trigger, clock } = setup();
    trigger.evaluate(groupOf(hotMember));
    expect(trigger.evaluate(groupOf(hotMember)).outcome).toBe('fired');
    // The rebalance did not happen: the same imbalance, now at instance level, within the cooldown.
    clock.t += 1_000;
    trigger.evaluate(groupOf(hotMember, INSTANCE_SKEW));
    const suppressed = trigger.evaluate(groupOf(hotMember, INSTANCE_SKEW));
    expect(suppressed).toMatchObject({
      outcome: 'cooldown_suppressed',
      level: 'instance',
      cooldownMs: 20_000,
      cooldownGrowth: { fromMs: 10_000, toMs: 20_000, assignmentChangedSinceFire: false },
    });
    clock.t += 19_000;
    expect(trigger.evaluate(groupOf(hotMember))).toMatchObject({ outcome: 'fired', level: 'member' });
    // Balanced at both levels: the cooldown is back to its base.
    expect(trigger.evaluate(groupOf(evenMembers))).toMatchObject({
      outcome: 'balanced',
      balancedAgain: true,
      cooldownMs: 10_000,
    });
  });
});

describe('the controller with the member level', () => {
  const controllers: TriggerController[] = [];
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
  });

  const tenEach: WeightSource = {
    getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 10 }))),
  };
  const hot = [
    { memberId: 'a1', instanceId: 'pod-a', partitions: [0, 1, 2, 3] },
    { memberId: 'a2', instanceId: 'pod-a', partitions: [] },
    { memberId: 'b1', instanceId: 'pod-b', partitions: [4, 5] },
    { memberId: 'b2', instanceId: 'pod-b', partitions: [6, 7] },
  ];

  async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}) {
    const metric = registry.getSingleMetric(name);
    if (metric === undefined) return Number.NaN;
    const { values } = await metric.get();
    const match = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
    return match?.value ?? Number.NaN;
  }

  it('publishes the member ratio, counts violated checks by level and logs which level fired', async () => {
    const registry = new Registry();
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ instanceId: 'pod-x', weights: tenEach });
    const consumer = fakeConsumer(() => Promise.resolve(description('g', hot)));
    const controller = createTriggerController(
      { target: assigner.triggerTarget(consumer) },
      { checkIntervalMs: 3_600_000, advise: true, logger, registry },
    );
    controllers.push(controller);
    consumer.emit('GROUP_JOIN', { memberId: 'a1', groupId: 'g', isLeader: false, leaderId: 'z' });

    expect((await controller.checkNow()).outcome).toBe('awaiting_hysteresis');
    expect((await controller.checkNow()).outcome).toBe('fired');

    expect(await metricValue(registry, 'load_aware_trigger_member_imbalance_ratio')).toBe(2);
    expect(await metricValue(registry, 'load_aware_trigger_member_threshold_ratio')).toBe(1.25);
    expect(await metricValue(registry, 'load_aware_trigger_imbalance_ratio')).toBe(1);
    const violated = (level: string, outcome: string) =>
      metricValue(registry, 'load_aware_trigger_violated_checks_total', { group: 'g', level, outcome });
    expect(await violated('member', 'awaiting_hysteresis')).toBe(1);
    expect(await violated('member', 'fired')).toBe(1);
    expect(await violated('instance', 'fired')).toBe(0);
    expect(await metricValue(registry, 'load_aware_trigger_advised_rebalances_total')).toBe(1);

    const info = logger.messages('info');
    expect(info).toContain(
      'member load imbalance ratio 2.000 inside instance pod-a above member threshold 1.250 (violated check 2/2)',
    );
    expect(info).toContain('advise mode: would initiate a group rebalance (member ratio 2)');
  });
});
