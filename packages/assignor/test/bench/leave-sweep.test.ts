import { createRng } from '../../bench/quality/rng';
import { drawGroup, summarize, sweepGroup } from '../../bench/quality/leave-sweep';

describe('bench:leave-sweep', () => {
  const seed = Math.floor(Math.random() * 2 ** 31);

  it(`draws groups of 12–40 instances of 1–maxMembers members, every member subscribed (seed ${String(seed)})`, () => {
    const rng = createRng(seed);
    for (const shape of ['log-normal', 'zipf', 'bimodal'] as const) {
      const group = drawGroup(rng, shape, 4);
      expect(group.instances).toBeGreaterThanOrEqual(12);
      expect(group.instances).toBeLessThanOrEqual(40);
      const perInstance = new Map<string, number>();
      for (const m of group.members) perInstance.set(m.instanceId, (perInstance.get(m.instanceId) ?? 0) + 1);
      expect(perInstance.size).toBe(group.instances);
      expect(Math.max(...perInstance.values())).toBeLessThanOrEqual(4);
      expect([...group.weights.values()].every((w) => Number.isFinite(w) && w > 0)).toBe(true);
    }
  });

  it(`counts every orphan as moved, and an unchanged group moves nothing (seed ${String(seed)})`, () => {
    const { leaves, unchangedMoved } = sweepGroup(drawGroup(createRng(seed), 'bimodal', 2));
    expect(unchangedMoved).toBe(0);
    for (const leave of leaves) {
      expect(leave.movedCount).toBeGreaterThanOrEqual(leave.heldCount);
      expect(leave.movedWeight).toBeGreaterThanOrEqual(leave.heldWeight - 1e-9);
      expect(leave.busiestToBest).toBeGreaterThanOrEqual(1);
      // Moves inside an instance are sticky partitions: never more than what moved beyond the orphans.
      expect(leave.withinInstanceWeight).toBeGreaterThanOrEqual(0);
      expect(leave.withinInstanceWeight).toBeLessThanOrEqual(leave.movedWeight - leave.heldWeight + 1e-9);
    }
    const summary = summarize(leaves);
    expect(summary.leaves).toBe(leaves.length);
    expect(summary.medianWeightRatio).toBeGreaterThanOrEqual(1);
    expect(summary.worstWeightRatio).toBeGreaterThanOrEqual(summary.p95WeightRatio);
    if (Number.isFinite(summary.withinInstanceShare)) {
      expect(summary.withinInstanceShare).toBeGreaterThanOrEqual(0);
      expect(summary.withinInstanceShare).toBeLessThanOrEqual(1 + 1e-9);
    }
  });
});
