import { createThresholdTrigger, type Evaluation, type ThresholdTriggerOptions } from '@load-aware/trigger';
import { observation, setup } from '../fakes';

// Four partitions of 10 on two instances: 2+2 is optimal (20), 3+1 is skewed (30 → ratio 1.5).
const EVEN = [10, 10, 10, 10];
const balanced = { m1: [0, 1], m2: [2, 3] };
const skewed = { m1: [0, 1, 2], m2: [3] };
const skewedOtherwise = { m1: [0], m2: [1, 2, 3] };

function codeOf(action: () => unknown): unknown {
  try {
    action();
  } catch (err) {
    return (err as { code?: unknown }).code;
  }
  return undefined;
}

const outcomes = (list: Evaluation[]): string[] => list.map((e) => e.outcome);

describe('createThresholdTrigger', () => {
  it('judges a balanced group as balanced, with the ratio against balance() for the same members and weights', () => {
    const { trigger } = setup();
    const e = trigger.evaluate(observation(balanced, EVEN));
    expect(e).toMatchObject({
      outcome: 'balanced',
      ratio: 1,
      currentMaxLoad: 20,
      optimalMaxLoad: 20,
      violatedChecks: 0,
    });
    expect(e.shape).toEqual({ members: 2, instances: 2, partitions: 4, defaulted: 0, weighted: 4 });
  });

  it('waits for minViolatedChecks violated checks of one assignment, then fires', () => {
    const { trigger } = setup();
    const first = trigger.evaluate(observation(skewed, EVEN));
    expect(first).toMatchObject({ outcome: 'awaiting_hysteresis', ratio: 1.5, currentMaxLoad: 30, optimalMaxLoad: 20 });
    expect(first.violatedChecks).toBe(1);
    const second = trigger.evaluate(observation(skewed, EVEN));
    expect(second).toMatchObject({ outcome: 'fired', violatedChecks: 2, ratio: 1.5 });
    expect(second.lastFiredAt).toBe(1_000_000);
  });

  it('fires only strictly above the threshold', () => {
    const { trigger } = setup({ threshold: 1.5, minViolatedChecks: 1 });
    expect(trigger.evaluate(observation(skewed, EVEN))).toMatchObject({ outcome: 'balanced', ratio: 1.5 });
    const { trigger: tighter } = setup({ threshold: 1.49, minViolatedChecks: 1 });
    expect(tighter.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
  });

  it('skips groups that are not Stable without touching the streak', () => {
    const { trigger } = setup();
    trigger.evaluate(observation(skewed, EVEN));
    const skipped = trigger.evaluate(observation(skewed, EVEN, { state: 'PreparingRebalance' }));
    expect(skipped).toMatchObject({
      outcome: 'group_not_stable',
      ratio: undefined,
      violatedChecks: 1,
      shape: undefined,
    });
    expect(trigger.evaluate(observation(skewed, EVEN, { state: 'CompletingRebalance' })).outcome).toBe(
      'group_not_stable',
    );
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
  });

  it('reports no_members for an empty member list and weights_unknown when no weight is usable, changing nothing', () => {
    const { trigger } = setup();
    trigger.evaluate(observation(skewed, EVEN));
    expect(trigger.evaluate(observation({}, EVEN)).outcome).toBe('no_members');
    const unknown = trigger.evaluate(observation(skewed, [undefined, Number.NaN, -1, Number.POSITIVE_INFINITY]));
    expect(unknown).toMatchObject({ outcome: 'weights_unknown', ratio: undefined, violatedChecks: 1 });
    expect(unknown.shape).toMatchObject({ partitions: 4, defaulted: 4, weighted: 0 });
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
  });

  it('restarts the streak when the assignment changes', () => {
    const { trigger } = setup();
    expect(trigger.evaluate(observation(skewed, EVEN)).violatedChecks).toBe(1);
    const changed = trigger.evaluate(observation(skewedOtherwise, EVEN));
    expect(changed).toMatchObject({ outcome: 'awaiting_hysteresis', violatedChecks: 1 });
    expect(trigger.evaluate(observation(skewedOtherwise, EVEN)).outcome).toBe('fired');
  });

  it('decays the streak by one on a balanced check of the same assignment instead of resetting it', () => {
    // Weights move under a fixed assignment: [10,10,10,10] on 3+1 is skewed, [0,0,30,30] on it is not.
    const { trigger } = setup({ minViolatedChecks: 3 });
    const calm = [0, 0, 30, 30];
    const results = [
      trigger.evaluate(observation(skewed, EVEN)),
      trigger.evaluate(observation(skewed, EVEN)),
      trigger.evaluate(observation(skewed, calm)),
      trigger.evaluate(observation(skewed, EVEN)),
      trigger.evaluate(observation(skewed, EVEN)),
    ];
    expect(results.map((e) => e.violatedChecks)).toEqual([1, 2, 1, 2, 3]);
    expect(outcomes(results)).toEqual([
      'awaiting_hysteresis',
      'awaiting_hysteresis',
      'balanced',
      'awaiting_hysteresis',
      'fired',
    ]);
  });

  it('suppresses fires within the cooldown and fires again once it has elapsed', () => {
    const { clock, trigger } = setup({ minViolatedChecks: 1 });
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
    // The group was seen balanced once, so the cooldown stays at its base.
    trigger.evaluate(observation(balanced, EVEN));
    clock.t += 4_000;
    const suppressed = trigger.evaluate(observation(skewedOtherwise, EVEN));
    expect(suppressed).toMatchObject({
      outcome: 'cooldown_suppressed',
      cooldownMs: 10_000,
      cooldownRemainingMs: 6_000,
    });
    expect(suppressed.cooldownGrowth).toBeUndefined();
    clock.t += 6_000;
    expect(trigger.evaluate(observation(skewedOtherwise, EVEN)).outcome).toBe('fired');
  });

  it('doubles the cooldown after each fire that did not help, up to the maximum, and returns to the base once balanced', () => {
    const { clock, trigger } = setup({ minViolatedChecks: 1 });
    const fires: number[] = [];
    const growth: Array<[number, number]> = [];
    const start = clock.t;
    // The imbalance never goes away: a check every second for two minutes.
    for (let s = 0; s <= 120; s++) {
      clock.t = start + s * 1000;
      const e = trigger.evaluate(observation(s % 2 === 0 ? skewed : skewedOtherwise, EVEN));
      if (e.outcome === 'fired') fires.push(s);
      if (e.cooldownGrowth !== undefined) growth.push([e.cooldownGrowth.fromMs, e.cooldownGrowth.toMs]);
    }
    expect(fires).toEqual([0, 20, 60, 100]);
    expect(growth).toEqual([
      [10_000, 20_000],
      [20_000, 40_000],
      [40_000, 40_000],
      [40_000, 40_000],
    ]);

    clock.t = start + 121_000;
    const calm = trigger.evaluate(observation(balanced, EVEN));
    expect(calm).toMatchObject({ outcome: 'balanced', balancedAgain: true, cooldownMs: 10_000 });
    // Back at the base: 25 s after the last fire is long enough again, and the doubling restarts.
    clock.t = start + 125_000;
    expect(trigger.evaluate(observation(skewed, EVEN))).toMatchObject({ outcome: 'fired', cooldownMs: 10_000 });
    clock.t = start + 126_000;
    const next = trigger.evaluate(observation(skewedOtherwise, EVEN));
    expect(next).toMatchObject({ outcome: 'cooldown_suppressed', cooldownMs: 20_000 });
    expect(next.cooldownGrowth).toMatchObject({ fromMs: 10_000, toMs: 20_000 });
  });

  it('keeps the base cooldown when the fire helped', () => {
    const { clock, trigger } = setup();
    trigger.evaluate(observation(skewed, EVEN));
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
    clock.t += 1000;
    expect(trigger.evaluate(observation(balanced, EVEN))).toMatchObject({ outcome: 'balanced', balancedAgain: true });
    expect(trigger.evaluate(observation(balanced, EVEN))).toMatchObject({ outcome: 'balanced', balancedAgain: false });
    clock.t += 10_000;
    trigger.evaluate(observation(skewed, EVEN));
    expect(trigger.evaluate(observation(skewed, EVEN))).toMatchObject({ outcome: 'fired', cooldownMs: 10_000 });
  });

  it('tells whether the assignment changed since a fire that did not help', () => {
    const { trigger } = setup({ minViolatedChecks: 1 });
    trigger.evaluate(observation(skewed, EVEN));
    const unchanged = trigger.evaluate(observation(skewed, EVEN));
    expect(unchanged.cooldownGrowth).toEqual({ fromMs: 10_000, toMs: 20_000, assignmentChangedSinceFire: false });

    const other = setup({ minViolatedChecks: 1 }).trigger;
    other.evaluate(observation(skewed, EVEN));
    expect(other.evaluate(observation(skewedOtherwise, EVEN)).cooldownGrowth?.assignmentChangedSinceFire).toBe(true);
  });

  it('balances load per unit of capacity and groups members by instance', () => {
    const { trigger } = setup({ minViolatedChecks: 1 });
    // pod-a has capacity 3 and two members; pod-b capacity 1. 40 in total: 30/10 is optimal.
    const e = trigger.evaluate(
      observation({ a1: [0, 1], a2: [2], b1: [3] }, EVEN, {
        instanceOf: { a1: 'pod-a', a2: 'pod-a', b1: 'pod-b' },
        capacity: { a1: 3, a2: 3, b1: 1 },
      }),
    );
    expect(e).toMatchObject({ outcome: 'balanced', currentMaxLoad: 10, optimalMaxLoad: 10 });
    expect(e.shape).toMatchObject({ members: 3, instances: 2 });
  });

  it('weighs unknown partitions at the default weight and counts them, also when only assigned', () => {
    const { trigger } = setup({ minViolatedChecks: 1, defaultWeight: 5 });
    // Partition 3 is held but not listed: it joins at the default weight on both sides.
    const obs = observation(skewed, [10, 10, undefined]);
    const e = trigger.evaluate(obs);
    expect(e.shape).toMatchObject({ partitions: 4, defaulted: 2, weighted: 2 });
    expect(e.currentMaxLoad).toBe(25);
    expect(e.optimalMaxLoad).toBe(15);
    expect(e.plan?.assignments.size).toBe(2);
  });

  it('rejects bad options with a ConfigError naming them', () => {
    const bad: unknown[] = [
      { threshold: 0.9 },
      { cooldownMs: 20, maxCooldownMs: 10 },
      { minViolatedChecks: 0 },
      { treshold: 1.2 },
    ];
    for (const options of bad) {
      expect(codeOf(() => createThresholdTrigger(options as ThresholdTriggerOptions))).toBe('LOAD_AWARE_CONFIG');
    }
  });

  it('uses the documented defaults', () => {
    const trigger = createThresholdTrigger();
    const e = trigger.evaluate(observation(balanced, EVEN));
    expect(e).toMatchObject({ threshold: 1.1, minViolatedChecks: 2, cooldownMs: 600_000 });
  });
});
