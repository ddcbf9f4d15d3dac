import { createThresholdTrigger } from '@load-aware/trigger';
import { EPOCH_MS } from '@load-aware/test-support';
import { observation } from './fakes';

/**
 * The cooldown is an interval, so it must follow a monotonic clock: NTP steps, a VM resumed from
 * suspension or an operator fixing the date move the wall clock by minutes or hours, and neither
 * must delay the next fire by that much nor let one through early. Only the reported
 * `lastFiredAt` is a wall-clock timestamp (it feeds a `_timestamp_seconds` gauge).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const EVEN = [10, 10, 10, 10];
const balanced = { m1: [0, 1], m2: [2, 3] };
const skewed = { m1: [0, 1, 2], m2: [3] };

afterEach(() => {
  jest.restoreAllMocks();
});

/**
 * One check a minute with the default clocks and the default 10 min cooldown: a fire at minute 0,
 * a balanced check at minute 1 (the rebalance helped, so the cooldown stays at its base), then a
 * skewed group on every check. The wall clock is stepped by `stepMs` right after the first fire
 * while the monotonic clock moves on normally. Returns the minutes of the first two fires.
 */
function firesWithWallStep(stepMs: number): { fires: number[]; lastFiredAt: number[] } {
  let minute = 0;
  jest.spyOn(performance, 'now').mockImplementation(() => minute * MINUTE);
  jest.spyOn(Date, 'now').mockImplementation(() => EPOCH_MS + minute * MINUTE + (minute >= 1 ? stepMs : 0));
  const trigger = createThresholdTrigger({ minViolatedChecks: 1 });
  const fires: number[] = [];
  const lastFiredAt: number[] = [];
  for (; minute <= 3 * 60 && fires.length < 2; minute++) {
    const e = trigger.evaluate(observation(minute === 1 ? balanced : skewed, EVEN));
    if (e.outcome === 'fired') {
      fires.push(minute);
      lastFiredAt.push(e.lastFiredAt!);
    }
  }
  return { fires, lastFiredAt };
}

describe('threshold trigger under a stepped wall clock', () => {
  it('keeps the 10 min cooldown when the wall clock steps back an hour', () => {
    const { fires, lastFiredAt } = firesWithWallStep(-HOUR);
    expect(fires).toEqual([0, 10]);
    // Reported as wall-clock time, step included: what a dashboard compares with "now".
    expect(lastFiredAt).toEqual([EPOCH_MS, EPOCH_MS + 10 * MINUTE - HOUR]);
  });

  it('keeps the 10 min cooldown when the wall clock steps forward an hour', () => {
    const { fires, lastFiredAt } = firesWithWallStep(HOUR);
    expect(fires).toEqual([0, 10]);
    expect(lastFiredAt).toEqual([EPOCH_MS, EPOCH_MS + 10 * MINUTE + HOUR]);
  });

  it('reports the remaining cooldown from the monotonic clock', () => {
    let minute = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => minute * MINUTE);
    jest.spyOn(Date, 'now').mockImplementation(() => EPOCH_MS + (minute >= 1 ? -HOUR : 0));
    const trigger = createThresholdTrigger({ minViolatedChecks: 1 });
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
    minute = 4;
    expect(trigger.evaluate(observation(balanced, EVEN)).cooldownRemainingMs).toBe(6 * MINUTE);
  });

  it('takes an injected monotonic clock', () => {
    const mono = { t: 0 };
    const trigger = createThresholdTrigger({ minViolatedChecks: 1, monotonicNow: () => mono.t, now: () => 42 });
    expect(trigger.evaluate(observation(skewed, EVEN))).toMatchObject({ outcome: 'fired', lastFiredAt: 42 });
    mono.t = MINUTE;
    expect(trigger.evaluate(observation(balanced, EVEN)).outcome).toBe('balanced');
    mono.t = 10 * MINUTE - 1;
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('cooldown_suppressed');
    mono.t = 10 * MINUTE;
    expect(trigger.evaluate(observation(skewed, EVEN)).outcome).toBe('fired');
  });
});
