import {
  createCompositeTrigger,
  createPeriodicTrigger,
  createThresholdTrigger,
  type Observation,
  type Trigger,
} from '@load-aware/trigger';
import { manualClock } from '@load-aware/test-support';
import { observation } from '../fakes';

/**
 * The state-machine rules every shipped trigger keeps, checked on each of them alike with a manual
 * clock: only a Stable group fires, a fire is not repeated on the next check, and `settle()` makes
 * the trigger's memory of fires follow what really happened.
 */

const EVEN = [10, 10, 10, 10];
const skewed = observation({ m1: [0, 1, 2], m2: [3] }, EVEN);
const balanced = observation({ m1: [0, 1], m2: [2, 3] }, EVEN);
const rebalancing = observation({ m1: [0, 1, 2], m2: [3] }, EVEN, { state: 'PreparingRebalance' });
const PERIOD = 60_000;

type Clock = ReturnType<typeof manualClock>;
interface Case {
  make(clock: Clock): Trigger & { settle(fired: boolean): void };
  /** A check that does not fire just before the trigger is due. */
  readonly hold: Observation;
  /** A check that fires once the trigger is due. */
  readonly firing: Observation;
  /** Time from creation to just before due, and from there to due. */
  readonly nearlyDueMs: number;
  readonly lastStepMs: number;
}

const threshold = (clock: Clock) =>
  createThresholdTrigger({ minViolatedChecks: 1, cooldownMs: 10_000, now: clock.now, monotonicNow: clock.now });
const periodic = (clock: Clock) =>
  createPeriodicTrigger({ intervalMs: PERIOD, now: clock.now, monotonicNow: clock.now });

const cases: Array<[string, Case]> = [
  ['threshold', { make: threshold, hold: balanced, firing: skewed, nearlyDueMs: 0, lastStepMs: 1_000 }],
  ['periodic', { make: periodic, hold: balanced, firing: balanced, nearlyDueMs: PERIOD - 1_000, lastStepMs: 1_000 }],
  [
    'composite all(threshold, periodic)',
    {
      make: (c) => createCompositeTrigger({ mode: 'all', triggers: [threshold(c), periodic(c)] }),
      hold: balanced,
      firing: skewed,
      nearlyDueMs: PERIOD - 1_000,
      lastStepMs: 1_000,
    },
  ],
  [
    'composite any(threshold, periodic)',
    {
      make: (c) => createCompositeTrigger({ mode: 'any', triggers: [threshold(c), periodic(c)] }),
      hold: balanced,
      firing: skewed,
      nearlyDueMs: PERIOD - 1_000,
      lastStepMs: 1_000,
    },
  ],
];

describe.each(cases)('the %s trigger', (_, c) => {
  function dueTrigger() {
    const clock = manualClock(1_000_000);
    const trigger = c.make(clock);
    clock.t += c.nearlyDueMs + c.lastStepMs;
    return { clock, trigger };
  }

  it('never fires on a group that is not Stable, and such checks change nothing', () => {
    const { trigger } = dueTrigger();
    for (let i = 0; i < 3; i++) expect(trigger.evaluate(rebalancing).outcome).toBe('group_not_stable');
    expect(trigger.evaluate(c.firing).outcome).toBe('fired');
  });

  it('returns only outcomes it declares, each with a reason', () => {
    const { clock, trigger } = dueTrigger();
    const seen = [rebalancing, c.hold, c.firing, c.firing, c.hold, observation({}, EVEN)].map((obs) => {
      clock.t += 7_000;
      return trigger.evaluate(obs);
    });
    for (const d of seen) {
      expect(trigger.outcomes).toContain(d.outcome);
      expect(d.reason).toMatch(/\S/);
    }
  });

  it('does not fire again on the check right after a fire', () => {
    const { trigger } = dueTrigger();
    expect(trigger.evaluate(c.firing).outcome).toBe('fired');
    expect(trigger.evaluate(c.firing).outcome).not.toBe('fired');
  });

  it('forgets a fire settled as not carried out: it fires again on the next check', () => {
    const { trigger } = dueTrigger();
    expect(trigger.evaluate(c.firing).outcome).toBe('fired');
    trigger.settle(false);
    expect(trigger.evaluate(c.firing).outcome).toBe('fired');
  });

  it('counts a fire it did not make once settled with it: not due when it would have been', () => {
    const clock = manualClock(1_000_000);
    const trigger = c.make(clock);
    clock.t += c.nearlyDueMs;
    expect(trigger.evaluate(c.hold).outcome).not.toBe('fired');
    trigger.settle(true);
    clock.t += c.lastStepMs;
    expect(trigger.evaluate(c.firing).outcome).not.toBe('fired');

    // The same without settle(true) fires: the settle made the difference.
    const control = manualClock(1_000_000);
    const other = c.make(control);
    control.t += c.nearlyDueMs;
    other.evaluate(c.hold);
    control.t += c.lastStepMs;
    expect(other.evaluate(c.firing).outcome).toBe('fired');
  });
});
