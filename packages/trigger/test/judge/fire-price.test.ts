import type { Observation } from '@load-aware/trigger';
import { observation, setup } from '../fakes';

/**
 * `members` instances of one member each, each holding one partition of `weight`; the first also
 * holds two more of `extra` each, one of which a rebalance moves elsewhere: the busiest instance
 * goes from weight + 2 x extra to weight + extra.
 */
function wideGroup(members: number, weight: number, extra: number): Observation {
  const assignment: Record<string, number[]> = {};
  for (let i = 0; i < members; i++) assignment[`m${String(i).padStart(3, '0')}`] = [i];
  assignment['m000']!.push(members, members + 1);
  const weights = [...Array.from({ length: members }, () => weight), extra, extra];
  return observation(assignment, weights);
}

/** The same group with every member reporting `pauseMs` for generation 7 in its userData. */
function withPauses(o: Observation, pauseMs: number): Observation {
  return {
    ...o,
    members: o.members.map((m) => ({ ...m, lastPause: { generation: 7, pauseMs, cause: 'join' as const } })),
  };
}

describe('fires that pay for themselves', () => {
  it('holds a confirmed tiny imbalance of a large group at every cooldown: the pause would cost more', () => {
    // 100 members of 100 load, one of them with 2 x 12 more: 124 where 112 is possible, ratio
    // 1.107 over the 1.1 threshold.
    const { trigger, clock } = setup({ minViolatedChecks: 2, cooldownMs: 30_000 });
    const outcomes: string[] = [];
    for (let check = 0; check < 40; check++) {
      outcomes.push(trigger.evaluate(wideGroup(100, 100, 12)).outcome);
      clock.t += 10_000;
    }
    expect(outcomes.filter((o) => o === 'fired')).toEqual([]);
    expect(outcomes.filter((o) => o === 'gain_below_cost').length).toBeGreaterThan(30);
    const last = trigger.evaluate(wideGroup(100, 100, 12));
    // Gain: 12 x 60 s = 720; cost: 100 members x 1 s assumed x 100.24 per member.
    expect(last.price).toMatchObject({
      gain: 720,
      horizonSeconds: 60,
      pausedMemberSeconds: 100,
      pauseSource: 'assumed',
    });
    expect(last.price!.cost).toBeCloseTo(10_024, 6);
    expect(last.reason).toContain('expected gain 720 vs cost 10000');
  });

  it('fires the same imbalance with minGainToCost 0: the plain threshold rule', () => {
    const { trigger } = setup({ minViolatedChecks: 2, minGainToCost: 0 });
    trigger.evaluate(wideGroup(100, 100, 12));
    expect(trigger.evaluate(wideGroup(100, 100, 12)).outcome).toBe('fired');
  });

  it('fires a large imbalance of a small group, and says what it expects to buy and pay', () => {
    const { trigger } = setup({ minViolatedChecks: 1 });
    const fired = trigger.evaluate(wideGroup(3, 100, 100));
    expect(fired.outcome).toBe('fired');
    // Busiest 300 now, 200 planned: 100 x 60 s = 6000 against 3 x 1 s assumed x 500 / 3 per member.
    expect(fired.price).toMatchObject({ gain: 6000, pausedMemberSeconds: 3 });
    expect(fired.price!.cost).toBeCloseTo(500, 6);
    expect(fired.reason).toContain('expected gain 6000 vs cost 500 (3 paused member-s assumed, gain over 60 s)');
  });

  it('prices with the pauses the members measured, once they report them', () => {
    const { trigger } = setup({ minViolatedChecks: 1 });
    // The same imbalance, but the group's last rebalance paused every member 10 s: 30 member-s.
    const held = trigger.evaluate(withPauses(wideGroup(3, 100, 100), 10_000));
    expect(held.outcome).toBe('gain_below_cost');
    expect(held.price).toMatchObject({ pausedMemberSeconds: 30, pauseSource: 'measured' });
    expect(held.price!.cost).toBeCloseTo(5000, 6);
  });

  it('keeps the streak while held, so a grown imbalance fires at once', () => {
    const { trigger } = setup({ minViolatedChecks: 2, cooldownMs: 0 });
    trigger.evaluate(wideGroup(100, 100, 12));
    expect(trigger.evaluate(wideGroup(100, 100, 12)).outcome).toBe('gain_below_cost');
    expect(trigger.evaluate(wideGroup(100, 100, 1000)).outcome).toBe('fired');
  });
});
