import { createPeriodicTrigger, type PeriodicDecision, type PeriodicTriggerOptions } from '@load-aware/trigger';
import { errorThrownBy, manualClock } from '@load-aware/test-support';
import { ConfigError } from '@load-aware/assignor';
import { observation } from '../fakes';

const group = { m1: [0, 1], m2: [2, 3] };
const EVEN = [10, 10, 10, 10];
const stable = observation(group, EVEN);
const rebalancing = observation(group, EVEN, { state: 'PreparingRebalance' });

function setup(options: Partial<PeriodicTriggerOptions> = {}) {
  const clock = manualClock(5_000);
  const wall = manualClock(1_700_000_000_000);
  const trigger = createPeriodicTrigger({ intervalMs: 60_000, ...options, now: wall.now, monotonicNow: clock.now });
  /** Moves both clocks; the wall clock only for the reported fire time. */
  const advance = (ms: number): void => {
    clock.t += ms;
    wall.t += ms;
  };
  return { clock, wall, advance, trigger };
}

const outcomes = (list: PeriodicDecision[]): string[] => list.map((d) => d.outcome);

describe('createPeriodicTrigger', () => {
  it('does not fire before the first period has elapsed since its creation', () => {
    const { advance, trigger } = setup();
    const first = trigger.evaluate(stable);
    expect(first).toMatchObject({ kind: 'periodic', outcome: 'not_due', dueInMs: 60_000, lastFiredAt: undefined });
    advance(59_999);
    expect(trigger.evaluate(stable)).toMatchObject({ outcome: 'not_due', dueInMs: 1 });
    expect(trigger.evaluate(stable).reason).toMatch(/^next periodic fire in 0\.0 s$/);
  });

  it('fires once the period has elapsed, then every period after each fire', () => {
    const { advance, wall, trigger } = setup();
    const seen: PeriodicDecision[] = [];
    // A check every 10 s for 3 minutes.
    for (let s = 0; s <= 180; s += 10) {
      seen.push(trigger.evaluate(stable));
      advance(10_000);
    }
    const fires = seen.flatMap((d, i) => (d.outcome === 'fired' ? [i * 10] : []));
    expect(fires).toEqual([60, 120, 180]);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ outcome: 'fired', dueInMs: 60_000, intervalMs: 60_000 });
    expect(last.lastFiredAt).toBe(wall.t - 10_000);
    expect(last.reason).toBe('the period of 60 s has elapsed');
  });

  it('fires only when the group is Stable: a period elapsed during a rebalance stays due until Stable', () => {
    const { advance, trigger } = setup();
    advance(60_000);
    const held = [trigger.evaluate(rebalancing), trigger.evaluate(rebalancing)];
    expect(outcomes(held)).toEqual(['group_not_stable', 'group_not_stable']);
    expect(held[0]!.reason).toContain('the period has elapsed, waiting for Stable');
    expect(held[0]!.dueInMs).toBe(0);
    // 25 s late: it fires now, and the next period runs from this fire, not from when it was due.
    advance(25_000);
    expect(trigger.evaluate(stable).outcome).toBe('fired');
    advance(59_000);
    expect(trigger.evaluate(stable).outcome).toBe('not_due');
    advance(1_000);
    expect(trigger.evaluate(stable).outcome).toBe('fired');
  });

  it('never fires on a group without members', () => {
    const { advance, trigger } = setup();
    advance(120_000);
    expect(trigger.evaluate(observation({}, EVEN))).toMatchObject({ outcome: 'no_members', dueInMs: 0 });
    expect(trigger.evaluate(stable).outcome).toBe('fired');
  });

  it('measures the period on the monotonic clock: a wall clock stepped back or forward changes nothing', () => {
    const { clock, wall, trigger } = setup();
    wall.t += 3_600_000;
    expect(trigger.evaluate(stable).outcome).toBe('not_due');
    wall.t -= 7_200_000;
    clock.t += 60_000;
    expect(trigger.evaluate(stable).outcome).toBe('fired');
  });

  it('undoes a vetoed fire and adopts a fire it did not make when settled', () => {
    const { advance, trigger } = setup();
    advance(60_000);
    expect(trigger.evaluate(stable).outcome).toBe('fired');
    trigger.settle(false);
    // Still due: it fires at the next check the composite allows.
    advance(1_000);
    expect(trigger.evaluate(stable)).toMatchObject({ outcome: 'fired', lastFiredAt: expect.any(Number) as number });
    // A fire it did not vote for restarts the period as its own would.
    advance(30_000);
    expect(trigger.evaluate(stable).outcome).toBe('not_due');
    trigger.settle(true);
    advance(59_000);
    expect(trigger.evaluate(stable).outcome).toBe('not_due');
    advance(1_000);
    expect(trigger.evaluate(stable).outcome).toBe('fired');
  });

  it('declares the outcomes it can return', () => {
    expect(setup().trigger.outcomes).toEqual(['fired', 'not_due', 'group_not_stable', 'no_members']);
  });

  it.each([
    ['intervalMs', {}],
    ['intervalMs', { intervalMs: 999 }],
    ['intervalMs', { intervalMs: 1.5e3 + 0.5 }],
    ['intervalMs', { intervalMs: '60000' }],
    ['monotonicNow', { intervalMs: 60_000, monotonicNow: 5 }],
    ['interval', { intervalMs: 60_000, interval: 5 }],
  ])('rejects bad options with a ConfigError naming %s', (key, options) => {
    const err = errorThrownBy(() => createPeriodicTrigger(options as PeriodicTriggerOptions), ConfigError);
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
  });
});
