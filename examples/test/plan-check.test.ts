import { comparePlan } from '../demo/run';
import { inspectLookbackSeconds } from '../demo/inspect';

describe('comparePlan', () => {
  it("sets the round-robin group's plan against where the load-aware phase ended", () => {
    const check = comparePlan([
      { assigner: 'round-robin', cli: { ratio: 2.1, proposedRatio: 1.04, moves: 12 } },
      { assigner: 'load-aware', cli: { ratio: 1.07, proposedRatio: 1.05, moves: 1 } },
    ]);
    expect(check?.predicted).toBe(1.04);
    expect(check?.reached).toBe(1.07);
    expect(check?.difference).toBeCloseTo(0.03, 10);
    expect(check?.text).toBe(
      'load-aware plan on the round-robin group: busiest ÷ ideal 2.10 → 1.04; the load-aware phase ended at 1.07 (difference 0.03)',
    );
  });

  it('says nothing when either phase has no CLI view', () => {
    expect(
      comparePlan([
        { assigner: 'round-robin' },
        { assigner: 'load-aware', cli: { ratio: 1, proposedRatio: 1, moves: 0 } },
      ]),
    ).toBeUndefined();
  });
});

describe('inspectLookbackSeconds', () => {
  it('reads rates from the second half of the phase only, at most 15 s and at least 2 s back', () => {
    expect(inspectLookbackSeconds(75)).toBe(15);
    expect(inspectLookbackSeconds(20)).toBe(9);
    expect(inspectLookbackSeconds(10)).toBe(4);
    expect(inspectLookbackSeconds(3)).toBe(2);
  });
});
